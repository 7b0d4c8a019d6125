// The toolspec extension: the language (package.json and language-configuration.json), its
// TextMate grammar, and a client that starts `toolspec lsp` over stdio for .toolspec files.
'use strict';
const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');
const { serverCommand } = require('./server');

let client;
let output;

async function start() {
  const found = serverCommand(vscode.workspace.getConfiguration('toolspec').get('path'));
  if (found.error) {
    output.appendLine(found.error);
    void vscode.window.showWarningMessage(`toolspec: ${found.error}`);
    return;
  }
  const executable = { command: found.command, args: found.args, options: { shell: found.shell } };
  client = new LanguageClient(
    'toolspec',
    'toolspec',
    { run: executable, debug: executable },
    {
      documentSelector: [{ scheme: 'file', language: 'toolspec' }, { scheme: 'untitled', language: 'toolspec' }],
      outputChannel: output,
      synchronize: {
        // Specs read included files and toolspec.toml: the server hears of their changes.
        fileEvents: vscode.workspace.createFileSystemWatcher('**/{*.toolspec,toolspec.toml}'),
      },
    },
  );
  try {
    await client.start();
  } catch (err) {
    client = undefined;
    const message = `could not start \`${found.command} lsp\`: ${err?.message ?? err}. ` +
      'It needs a toolspec with the `lsp` command; set toolspec.path to choose the executable.';
    output.appendLine(message);
    void vscode.window.showErrorMessage(`toolspec: ${message}`);
  }
}

async function stop() {
  const running = client;
  client = undefined;
  if (running) await running.stop();
}

async function activate(context) {
  output = vscode.window.createOutputChannel('toolspec');
  context.subscriptions.push(
    output,
    vscode.commands.registerCommand('toolspec.restartServer', async () => {
      await stop();
      await start();
    }),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration('toolspec.path')) {
        await stop();
        await start();
      }
    }),
  );
  await start();
}

function deactivate() {
  return stop();
}

module.exports = { activate, deactivate };

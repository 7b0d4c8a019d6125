// The extension's manifest holds together (the language, the grammar, the configuration, the
// entry point, the version of the Rust crate), the server is found where the README says, and the
// .vsix that `vsce package` builds holds the extension and its runtime dependencies and nothing
// of the tests or the tooling. TOOLSPEC_VSIX names a .vsix to check (.ci/run and the release
// workflow package it first); without it the test packages one itself.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const zlib = require('node:zlib');
const { execFileSync } = require('node:child_process');
const { findOnPath, serverCommand } = require('../server');

const EXT = path.resolve(__dirname, '..');
const ROOT = path.resolve(EXT, '../..');
const manifest = JSON.parse(fs.readFileSync(path.join(EXT, 'package.json'), 'utf8'));
const readJson = (p) => JSON.parse(fs.readFileSync(path.join(EXT, p), 'utf8'));

test('the manifest declares the toolspec language, its grammar and its configuration', () => {
  for (const field of ['name', 'displayName', 'description', 'version', 'publisher', 'license', 'repository', 'main']) {
    assert.ok(manifest[field], `package.json has ${field}`);
  }
  const cargo = fs.readFileSync(path.join(ROOT, 'Cargo.toml'), 'utf8');
  assert.equal(manifest.version, cargo.match(/^version = "([^"]+)"/m)[1], 'the version of Cargo.toml');
  const [language] = manifest.contributes.languages;
  assert.equal(language.id, 'toolspec');
  assert.deepEqual(language.extensions, ['.toolspec']);
  const config = readJson(language.configuration);
  assert.equal(config.comments.lineComment, '#');
  assert.deepEqual(config.brackets, [['{', '}'], ['(', ')'], ['[', ']']]);
  assert.ok(config.autoClosingPairs.some((p) => p.open === '"'));
  const [grammar] = manifest.contributes.grammars;
  assert.equal(grammar.language, 'toolspec');
  assert.equal(readJson(grammar.path).scopeName, grammar.scopeName);
  assert.ok(fs.existsSync(path.join(EXT, manifest.main)), `${manifest.main} exists`);
  // The client library's own VS Code requirement is the extension's.
  const client = readJson('node_modules/vscode-languageclient/package.json');
  assert.equal(manifest.engines.vscode, client.engines.vscode);
  assert.equal(manifest.dependencies['vscode-languageclient'], client.version);
  // Every contributed command and setting is the one extension.js uses.
  const source = fs.readFileSync(path.join(EXT, manifest.main), 'utf8');
  for (const { command } of manifest.contributes.commands) assert.ok(source.includes(`'${command}'`), command);
  assert.ok(source.includes(".get('path')") && manifest.contributes.configuration.properties['toolspec.path']);
});

test('the server is toolspec.path when set, else toolspec on PATH', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolspec-ext-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  const env = { PATH: ['/nonexistent', bin].join(':') };
  assert.match(serverCommand('', env, 'linux').error, /No `toolspec` executable on PATH/);
  fs.writeFileSync(path.join(bin, 'toolspec'), '#!/bin/sh\n', { mode: 0o755 });
  assert.deepEqual(serverCommand('', env, 'linux'), { command: path.join(bin, 'toolspec'), args: ['lsp'], shell: false });
  const own = path.join(dir, 'own-toolspec');
  fs.writeFileSync(own, '#!/bin/sh\n', { mode: 0o755 });
  assert.deepEqual(serverCommand(` ${own} `, env, 'linux'), { command: own, args: ['lsp'], shell: false });
  assert.match(serverCommand(path.join(dir, 'missing'), env, 'linux').error, /is not a file/);
  // npm's shim on Windows is toolspec.cmd, which runs through the shell.
  fs.writeFileSync(path.join(bin, 'toolspec.CMD'), '');
  fs.rmSync(path.join(bin, 'toolspec'));
  const win = { Path: bin, PATHEXT: '.EXE;.CMD' };
  assert.equal(findOnPath('toolspec', win, 'win32'), path.join(bin, 'toolspec.CMD'));
  assert.equal(serverCommand('', win, 'win32').shell, true);
});

// The entries of a zip file: name -> () => contents (stored or deflated, as vsce writes them).
function readZip(file) {
  const buf = fs.readFileSync(file);
  let eocd = buf.length - 22;
  while (eocd >= 0 && buf.readUInt32LE(eocd) !== 0x06054b50) eocd--;
  assert.ok(eocd >= 0, `${file} is a zip file`);
  const count = buf.readUInt16LE(eocd + 10);
  let at = buf.readUInt32LE(eocd + 16);
  const entries = new Map();
  for (let i = 0; i < count; i++) {
    assert.equal(buf.readUInt32LE(at), 0x02014b50, 'a central directory entry');
    const method = buf.readUInt16LE(at + 10);
    const size = buf.readUInt32LE(at + 20);
    const nameLen = buf.readUInt16LE(at + 28);
    const extraLen = buf.readUInt16LE(at + 30);
    const commentLen = buf.readUInt16LE(at + 32);
    const local = buf.readUInt32LE(at + 42);
    const name = buf.toString('utf8', at + 46, at + 46 + nameLen);
    entries.set(name, () => {
      const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
      const data = buf.subarray(start, start + size);
      return method === 8 ? zlib.inflateRawSync(data) : data;
    });
    at += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

test('the .vsix holds the extension, its runtime dependencies and nothing else', (t) => {
  let vsix = process.env.TOOLSPEC_VSIX;
  if (!vsix) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolspec-vsix-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    vsix = path.join(dir, 'toolspec.vsix');
    execFileSync(process.execPath, [require.resolve('@vscode/vsce/vsce'), 'package', '--skip-license', '--out', vsix], {
      cwd: EXT,
      stdio: 'pipe',
    });
  }
  const entries = readZip(vsix);
  const names = [...entries.keys()];
  for (const file of [
    'extension.vsixmanifest',
    'extension/package.json',
    'extension/extension.js',
    'extension/server.js',
    'extension/language-configuration.json',
    'extension/syntaxes/toolspec.tmLanguage.json',
    'extension/readme.md',
    'extension/node_modules/vscode-languageclient/lib/node/main.js',
    'extension/node_modules/vscode-languageclient/package.json',
    'extension/node_modules/vscode-jsonrpc/package.json',
  ]) {
    assert.ok(entries.has(file), `${file} is in the .vsix`);
  }
  const packed = JSON.parse(entries.get('extension/package.json')().toString('utf8'));
  assert.equal(packed.version, manifest.version);
  assert.deepEqual(packed.contributes, manifest.contributes);
  assert.equal(
    entries.get('extension/syntaxes/toolspec.tmLanguage.json')().toString('utf8'),
    fs.readFileSync(path.join(EXT, 'syntaxes/toolspec.tmLanguage.json'), 'utf8'),
  );
  const vsixManifest = entries.get('extension.vsixmanifest')().toString('utf8');
  assert.match(vsixManifest, new RegExp(`Version="${manifest.version.replace(/\./g, '\\.')}"`));
  assert.match(vsixManifest, /Publisher="toolspec"/);
  const unwanted = names.filter((n) =>
    /^extension\/(test\/|.*\.vsix$)|node_modules\/(vscode-textmate|vscode-oniguruma|@vscode\/vsce)\/|\.d\.ts$|\.map$/.test(n),
  );
  assert.deepEqual(unwanted, []);
  assert.ok(names.length < 400, `${names.length} files`);
});

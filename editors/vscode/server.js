// Where the language server comes from: the `toolspec.path` setting when it is set, else the
// `toolspec` executable found on PATH (`pip install toolspec-cli` and `npm install -g toolspec` both
// put one there). No VS Code API here, so that node's test runner can check it.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

function isFile(p) {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

// The first `name` on PATH, as the shell would find it: on Windows with each PATHEXT extension
// (npm installs `toolspec.cmd`, pip `toolspec.exe`).
function findOnPath(name, env = process.env, platform = process.platform) {
  const dirs = (env.PATH ?? env.Path ?? '').split(platform === 'win32' ? ';' : ':').filter(Boolean);
  const exts = platform === 'win32' ? ['', ...(env.PATHEXT ?? '.COM;.EXE;.BAT;.CMD').split(';').filter(Boolean)] : [''];
  for (const dir of dirs) {
    for (const ext of exts) {
      const candidate = path.join(dir, name + ext);
      if (isFile(candidate)) return candidate;
    }
  }
  return null;
}

// { command, args, shell } to start `toolspec lsp`, or { error } saying what to do.
function serverCommand(configuredPath, env = process.env, platform = process.platform) {
  let command;
  const configured = (configuredPath ?? '').trim();
  if (configured) {
    if (!isFile(configured)) {
      return { error: `toolspec.path is set to ${configured}, which is not a file.` };
    }
    command = configured;
  } else {
    command = findOnPath('toolspec', env, platform);
    if (!command) {
      return {
        error:
          'No `toolspec` executable on PATH. Install it (`pip install toolspec-cli` or `npm install -g toolspec`) ' +
          'or set toolspec.path to the executable.',
      };
    }
  }
  // A `.cmd` or `.bat` shim (npm on Windows) runs only through the shell.
  const shell = platform === 'win32' && /\.(cmd|bat)$/i.test(command);
  return { command, args: ['lsp'], shell };
}

module.exports = { findOnPath, serverCommand };

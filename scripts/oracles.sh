#!/usr/bin/env bash
# The oracle suites' truth, checked against the format owners' code itself: installs the SDKs
# pinned in tests/oracles/requirements.txt (anthropic, openai, google-genai, langchain-core,
# pydantic-ai-slim) into a fresh virtual environment, generates every family's seeded cases again
# and has the SDKs read them, and fails unless the committed recordings in tests/oracles/cases/
# say the same (`record.py --check`). `cargo test` (tests/it/readers_oracles.rs) then holds the
# readers to those recordings, so together they compare toolspec with the SDKs on every case.
#   scripts/oracles.sh [WORKDIR]      (default: a temporary folder, removed at the end)
# Needs: python3 (3.10+) with venv, and PyPI. About 1 minute on 2 cores, most of it pip.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
if [[ $# -ge 1 ]]; then
  WORK="$1"; mkdir -p "$WORK"
else
  WORK="$(mktemp -d)"; trap 'rm -rf "$WORK"' EXIT
fi
start=$(date +%s)
"$PYTHON" -m venv "$WORK/oracles-venv"
"$WORK/oracles-venv/bin/pip" install --quiet --disable-pip-version-check -r tests/oracles/requirements.txt
installed=$(date +%s)
echo "oracle SDKs installed in $(( installed - start )) s"
"$WORK/oracles-venv/bin/python" tests/oracles/record.py --check
echo "oracle recordings checked in $(( $(date +%s) - installed )) s"

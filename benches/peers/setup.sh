#!/usr/bin/env bash
# Install the peers toolspec's score throughput is compared with (docs/performance.md), pinned,
# from their registries, into DIR (default /tmp/toolspec-peers):
#   DIR/deepeval  a Python virtual environment with deepeval==4.3.1
#   DIR/evalite   an npm folder with evalite@1.0.0-beta.16 (its scorer runs on node 20 too)
#   benches/peers/setup.sh [DIR]
set -euo pipefail
DIR="${1:-/tmp/toolspec-peers}"
mkdir -p "$DIR"
if [[ ! -x "$DIR/deepeval/bin/python" ]]; then
  python3 -m venv "$DIR/deepeval"
fi
"$DIR/deepeval/bin/pip" install --quiet --disable-pip-version-check "deepeval==4.3.1"
mkdir -p "$DIR/evalite"
(cd "$DIR/evalite" && { [[ -f package.json ]] || npm init -y > /dev/null; } \
  && npm install --save-exact --no-audit --no-fund "evalite@1.0.0-beta.16" > /dev/null 2>&1)
"$DIR/deepeval/bin/python" -c 'import importlib.metadata as m; print("deepeval", m.version("deepeval"))'
node -p "'evalite ' + require('$DIR/evalite/node_modules/evalite/package.json').version"

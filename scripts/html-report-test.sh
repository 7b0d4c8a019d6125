#!/usr/bin/env bash
# The HTML report in a browser: renders the bundled examples' `--format html` report in headless
# Chromium (Debian's `chromium`, /usr/bin/chromium) with playwright-core (pinned in
# tests/browser/package-lock.json) and checks it against `--format json`: no console error, no
# request, every spec, transcript and count in the DOM, the status filter.
#
#   scripts/html-report-test.sh [TOOLSPEC_BINARY] [--screenshot FILE]
#
# TOOLSPEC_BINARY defaults to target/debug/toolspec (built by `cargo test`).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="${1:-$ROOT/${CARGO_TARGET_DIR:-target}/debug/toolspec}"
shift || true
if [[ ! -d "$ROOT/tests/browser/node_modules/playwright-core" ]]; then
  (cd "$ROOT/tests/browser" && npm ci --no-audit --no-fund --ignore-scripts)
fi
# playwright-core drives the system Chromium: it downloads no browser.
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 node "$ROOT/tests/browser/html-report.test.mjs" --bin "$BIN" "$@"

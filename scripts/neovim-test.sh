#!/usr/bin/env bash
# The editor support in a real editor: headless Neovim (Debian's `neovim`, 0.7 and later), with
# no configuration or plugin of its own.
#   1. tests/nvim/highlight.lua: the tree-sitter grammar installed as docs/editors.md says (the
#      parser compiled with cc from editors/tree-sitter-toolspec/src, the highlight query beside
#      it) parses every spec of specs/ and highlights one.
#   2. tests/nvim/lsp_e2e.lua: Neovim's LSP client starts `toolspec lsp`, receives a diagnostic
#      and sees it go, completes a tool name from the project's transcript, and formats the file
#      as `toolspec fmt` does.
#
#   scripts/neovim-test.sh [TOOLSPEC_BINARY]      (default target/debug/toolspec)
#
# Needs nvim and cc on PATH (.ci/run installs Debian's neovim when it is missing). Exit 0 when
# every check holds.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="${1:-$ROOT/${CARGO_TARGET_DIR:-target}/debug/toolspec}"
[ -x "$BIN" ] || { echo "neovim-test: $BIN is not an executable file" >&2; exit 2; }
BIN="$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")"
command -v nvim >/dev/null || { echo "neovim-test: no nvim on PATH" >&2; exit 2; }

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
nvim --version | head -1

# 1. Highlighting: a runtimepath folder laid out as ~/.config/nvim is in docs/editors.md.
GRAMMAR="$ROOT/editors/tree-sitter-toolspec"
mkdir -p "$WORK/rtp/parser" "$WORK/rtp/queries/toolspec"
cc -shared -fPIC -O1 -I "$GRAMMAR/src" "$GRAMMAR/src/parser.c" "$GRAMMAR/src/scanner.c" \
  -o "$WORK/rtp/parser/toolspec.so"
cp "$GRAMMAR/queries/highlights.scm" "$WORK/rtp/queries/toolspec/"
TOOLSPEC_RTP="$WORK/rtp" TOOLSPEC_ROOT="$ROOT" \
  timeout 120 nvim --headless --clean -c "luafile $ROOT/tests/nvim/highlight.lua" </dev/null

# 2. The language server, in a scratch project: toolspec.toml, a transcript, and a spec with a
# misspelt setting on line 4 and a call to be formatted.
P="$WORK/project"
mkdir -p "$P/runs" "$P/specs"
printf '# The scratch project of scripts/neovim-test.sh.\n' >"$P/toolspec.toml"
cp "$ROOT/examples/runs/coding/claude-code-session.jsonl" "$P/runs/"
cat >"$P/specs/coding.toolspec" <<'SPEC'
# The spec Neovim opens.
spec coding {
  transcripts "../runs/*.jsonl"
  ordr in_order
  call   Grep(pattern:type string)
}
SPEC
(cd "$P" && TOOLSPEC_BIN="$BIN" TOOLSPEC_PROJECT="$P" \
  timeout 120 nvim --headless --clean -c "luafile $ROOT/tests/nvim/lsp_e2e.lua" </dev/null)

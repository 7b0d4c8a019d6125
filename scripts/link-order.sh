#!/usr/bin/env bash
# Regenerate linker/toolspec.order, the order in which the linker lays out the functions that a
# `toolspec check` start-up runs, so that they share as few 64 KiB code windows as possible
# (build.rs passes the file to the linker; see docs/performance.md, "pre-commit").
#
#   scripts/link-order.sh            # needs valgrind, python3 and a release build's toolchain
#
# The file names symbols as this toolchain and Cargo.lock mangle them. After a toolchain or
# dependency update, or a large change to the check path, run this again and commit the result.
# A stale file is harmless: the linker ignores names it does not find.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
command -v valgrind >/dev/null || { echo "link-order.sh: valgrind is needed" >&2; exit 2; }
# Link without the current order, so the profile sees every function under its own name.
TOOLSPEC_LINK_ORDER=0 cargo build --release --bin toolspec
bin="$root/target/release/toolspec"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

n=0
profile() { # profile DIR ARGS...: one run under callgrind, function names kept mangled
  local dir=$1; shift
  n=$((n + 1))
  (cd "$dir" && valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/$(printf %02d $n).cg" \
     "$bin" "$@" >/dev/null 2>&1) || true
}

# 1. The pre-commit case first: one spec, one staged Claude Code transcript.
mkdir -p "$work/precommit/runs"
cp examples/runs/coding/claude-code-session.jsonl "$work/precommit/runs/session.jsonl"
cp examples/prompts/coding.toolspec "$work/precommit/coding.toolspec"
sed -i 's#transcripts *"[^"]*"#transcripts "runs/*.jsonl"#' "$work/precommit/coding.toolspec"
profile "$work/precommit" check runs/session.jsonl --no-config
profile "$work/precommit" check coding.toolspec --no-config
# 2. The bundled examples: every transcript format, passing and failing expectations.
profile "$root" check examples
profile "$root/examples" check runs/refund/2025-06-03-openai.request.json
# 3. A spec with errors: diagnostics rendering.
mkdir -p "$work/broken"
printf 'spec broken {\n  transcripts "*.jsonl"\n  at_least 1 call Read(file_path: /[/)\n}\n' > "$work/broken/broken.toolspec"
profile "$work/broken" check broken.toolspec --no-config
# 4. Other start-ups.
profile "$root" --version
profile "$root" compile examples/prompts/refund.toolspec

nm --defined-only "$bin" | awk '$2 ~ /^[tTwW]$/ {print $3}' > "$work/text-symbols"
python3 - "$work" "$root/linker/toolspec.order" <<'PY'
import glob, re, sys
work, out = sys.argv[1], sys.argv[2]
text = set(open(f"{work}/text-symbols").read().split())
order, seen = [], set()
for cg in sorted(glob.glob(f"{work}/*.cg")):
    names = {}
    for line in open(cg, errors="replace"):
        m = re.match(r"^c?fn=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
        if m and m.group(2):
            names.setdefault(m.group(1), m.group(2))
    for _, name in sorted(names.items(), key=lambda kv: int(kv[0])):
        if name in text and name not in seen:
            seen.add(name)
            order.append(name)
with open(out, "w") as f:
    f.write("\n".join(order) + "\n")
print(f"linker/toolspec.order: {len(order)} functions")
PY

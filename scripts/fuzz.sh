#!/usr/bin/env bash
# Seed the fuzz corpora from the repository, run every fuzz target for a time budget, and keep
# every crash as a regression input (tests/fuzz_regressions/<target>/, replayed by cargo test).
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [PARALLEL_JOBS] [TARGET...]
#   scripts/fuzz.sh 600 2                        # every target, 10 minutes each, two at a time
#   scripts/fuzz.sh 60 1 transcript_read         # one target, one minute
#
# Needs cargo-fuzz (`cargo install cargo-fuzz`). cargo-fuzz passes nightly-only `-Z` flags to
# rustc; on a stable toolchain this script sets RUSTC_BOOTSTRAP=1 to allow them. The sanitizer is
# AddressSanitizer unless SANITIZER=none (e.g. where the ASan runtime is missing). Builds are
# optimized with debug assertions on (overflow checks included), so an arithmetic overflow is a
# crash too. Logs: fuzz/logs/<target>.log.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SECS="${1:-300}"
JOBS="${2:-2}"
shift $(( $# > 2 ? 2 : $# ))
TARGETS=("$@")
if [[ ${#TARGETS[@]} -eq 0 ]]; then
  TARGETS=(spec_parser compile transcript_read transcript_eval engine score_line tape_serde document_nodes mapping schema_rules yaml)
fi
SAN="${SANITIZER:-address}"
export RUSTC_BOOTSTRAP=1
cd "$ROOT/fuzz"
mkdir -p logs

# Seeds: the bundled specs, transcripts (small ones; a leading selector byte picks the format,
# 0 = detection) and peer vectors (a leading byte picks the profile).
python3 - "$ROOT" <<'PY'
import glob, gzip, hashlib, os, sys
root = sys.argv[1]
def put(target, data):
    d = os.path.join(root, "fuzz", "corpus", target)
    os.makedirs(d, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)
specs = glob.glob(f"{root}/specs/**/*.toolspec", recursive=True) + glob.glob(f"{root}/examples/**/*.toolspec", recursive=True)
shared = open(f"{root}/specs/shared/support_tools.toolspec", "rb").read() if os.path.exists(f"{root}/specs/shared/support_tools.toolspec") else b""
for s in specs:
    data = open(s, "rb").read()
    put("spec_parser", data)
    put("compile", shared + b"\0" + data.replace(b'include "shared/support_tools.toolspec"', b'include "shared.toolspec"'))
formats = ["", "openai_chat", "openai_responses", "anthropic_messages", "vercel_ai_sdk", "langchain",
           "otel_genai", "mcp_jsonrpc", "claude_code", "codex_cli", "gemini", "deepeval"]
for t in sorted(glob.glob(f"{root}/tests/fixtures/**/transcripts/**/*", recursive=True)):
    if not os.path.isfile(t) or os.path.getsize(t) > 48_000:
        continue
    data = open(t, "rb").read()
    put("transcript_read", b"\0" + data)
    # Selector 255: detection (past every format's index).
    put("document_nodes", b"\xff" + data)
    fmt = t.split("/transcripts/")[1].split("/")[0]
    if fmt in formats:
        put("transcript_read", bytes([formats.index(fmt)]) + data)
# Zip archives (Inspect AI `.eval` logs) after their magic, for `transcript_eval` (selector 0).
for t in sorted(glob.glob(f"{root}/tests/fixtures/**/*.eval", recursive=True) + glob.glob(f"{root}/tests/fixtures/**/*.zip", recursive=True)):
    data = open(t, "rb").read()
    if data.startswith(b"PK\x03\x04") and len(data) <= 48_000:
        put("transcript_eval", b"\0" + data[4:])
for i, name in enumerate(["axion", "deepeval", "evalite", "agentevals", "galtea", "promptfoo"]):
    path = f"{root}/tests/fixtures/vectors/{name}.jsonl.gz"
    if not os.path.exists(path):
        continue
    for n, line in enumerate(gzip.open(path, "rb")):
        if n >= 300:
            break
        put("score_line", bytes([i]) + line.rstrip(b"\n"))
        put("tape_serde", line.rstrip(b"\n"))
# YAML documents (cassettes, mappings) for `yaml`, after a budget selector byte (255: the
# largest budget the target tries).
for t in sorted(glob.glob(f"{root}/tests/fixtures/**/*.y*ml", recursive=True)):
    data = open(t, "rb").read()
    if len(data) <= 48_000:
        put("yaml", b"\xff" + data)
put("yaml", b"\xffa: &x [1, *x]\nb: {c: !tag 'd', e: |\n  text\n}\n")
os.makedirs(os.path.join(root, "fuzz", "corpus", "engine"), exist_ok=True)
os.makedirs(os.path.join(root, "fuzz", "corpus", "schema_rules"), exist_ok=True)
# Custom mappings: `calls \0 name \0 results \0 document`, the fixture's mapping and others on
# the fixture's log and on a small array.
log = open(f"{root}/tests/fixtures/mapping/runs/session.json", "rb").read()
for calls, name, results in [
    (b"$.events[?@.kind == 'tool']", b"$.tool.fn", b"$.events[?@.kind == 'tool_result']"),
    (b"$..[?@.ref]", b"@.tool.fn", b""),
    (b"$.events[?count($..ref) > 1 && value($.events[0].kind) == @.kind]", b"$.tool.fn", b""),
    (b"$[?$[*]]", b"$.k", b"$[*][?@.k]"),
]:
    for doc in [log, b'[{"k":"a"},{"k":"b"},[1,[2,[3]]]]']:
        put("mapping", b"\0".join([calls, name, results, doc]))
PY

cargo fuzz build -O -a --sanitizer "$SAN"

run_one() {
  local t="$1" max_len=8192
  [[ "$t" == transcript_read || "$t" == transcript_eval || "$t" == document_nodes ]] && max_len=65536
  echo "== $t: ${SECS}s (sanitizer $SAN, max_len $max_len)"
  cargo fuzz run "$t" -O -a --sanitizer "$SAN" -- \
    -max_total_time="$SECS" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 > "logs/$t.log" 2>&1 || true
  local stats
  stats=$(grep -E "^Done [0-9]+ runs|stat::number_of_executed_units|SUMMARY|ERROR: libFuzzer" "logs/$t.log" | tr '\n' ' ')
  echo "== $t: $stats"
}
export -f run_one
export SECS SAN
printf '%s\n' "${TARGETS[@]}" | xargs -P "$JOBS" -I{} bash -c 'run_one {}'

# Keep every crash, timeout and out-of-memory input as a regression test.
found=0
for t in "${TARGETS[@]}"; do
  for f in artifacts/"$t"/crash-* artifacts/"$t"/timeout-* artifacts/"$t"/oom-*; do
    [[ -e "$f" ]] || continue
    mkdir -p "$ROOT/tests/fuzz_regressions/$t"
    cp -n "$f" "$ROOT/tests/fuzz_regressions/$t/"
    echo "kept $f -> tests/fuzz_regressions/$t/"
    found=$((found + 1))
  done
done
echo "fuzz: ${#TARGETS[@]} target(s) x ${SECS}s; $found artifact(s) kept"

#!/usr/bin/env bash
# Is the repository's copy of the shared transcript corpus complete and current?
#
#   scripts/corpus_check.sh [SHARED_CORPUS_DIR]     (default: ../shared/corpus)
#
# For every file under the shared corpus's transcripts/, truth/ and real/: the same bytes must be
# under tests/fixtures/corpus/ (which `cargo test` reads: tests/it/readers_corpus.rs and
# tests/it/cli_calls_truth.rs walk every transcript there and compare it with its truth file), and
# every transcript must have a truth file. Then `toolspec calls --json` (release build) is run
# on each shared transcript and compared with its shared truth. Exit 1 on any difference.
# Needs the shared folder, so it is a maintainer's tool, not part of `cargo test`.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SHARED="${1:-$ROOT/../shared/corpus}"
COPY="$ROOT/tests/fixtures/corpus"
[ -d "$SHARED" ] || { echo "no shared corpus at $SHARED" >&2; exit 2; }
bad=0
n=0
for sub in transcripts truth real; do
  while IFS= read -r f; do
    rel="${f#"$SHARED"/}"
    n=$((n + 1))
    if [ ! -f "$COPY/$rel" ]; then echo "missing in the repository: $rel"; bad=1
    elif ! cmp -s "$f" "$COPY/$rel"; then echo "differs from the shared copy: $rel"; bad=1; fi
  done < <(find "$SHARED/$sub" -type f | sort)
done
while IFS= read -r f; do
  rel="${f#"$COPY"/}"
  [ -f "$SHARED/$rel" ] || { echo "only in the repository: $rel"; bad=1; }
done < <(find "$COPY" -type f | sort)
echo "$n shared files compared with tests/fixtures/corpus"

cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml"
BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/toolspec"
python3 - "$SHARED" "$BIN" <<'EOF' || bad=1
import json, os, subprocess, sys
shared, binary = sys.argv[1], sys.argv[2]
pairs = []
for sub, truth in (("transcripts", "truth"), ("real", "real/truth")):
    for fmt in sorted(os.listdir(os.path.join(shared, sub))):
        d = os.path.join(shared, sub, fmt)
        if fmt == "truth" or not os.path.isdir(d):
            continue
        for f in sorted(os.listdir(d)):
            pairs.append((os.path.join(d, f), os.path.join(shared, truth, fmt, f + ".truth.json")))
bad = 0
for t, truth in pairs:
    if not os.path.isfile(truth):
        print(f"no truth file: {truth}")
        bad += 1
        continue
    r = subprocess.run([binary, "calls", "--json", t], capture_output=True)
    try:
        got = json.loads(r.stdout)
    except ValueError:
        got = None
    if r.returncode != 0 or got != json.load(open(truth)):
        print(f"differs from its truth: {t}")
        bad += 1
print(f"{len(pairs)} transcripts through `toolspec calls --json`: {len(pairs) - bad} equal their truth")
sys.exit(1 if bad else 0)
EOF
exit $bad

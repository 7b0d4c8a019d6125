#!/usr/bin/env bash
# Regenerate the benchmark inputs and run every measurement of docs/performance.md, in one run.
#
#   scripts/bench.sh [all|score|check|memory|precommit|precommit-cpu|watch|growth|html]...   (default: all)
#
# Environment:
#   GEN_BIG         the corpus generator (default: ../shared/corpus/gen_big.py)
#   BENCH_DIR       where generated inputs go (default: /tmp/toolspec-bench)
#   CORPUS          the large corpus (default: /tmp/bigcorpus; regenerated if missing or REGEN=1)
#   BIG_GB          size of the peak-memory JSONL files in GB (default: 1)
#   REPS            repetitions per measurement (default: 3)
#   ROUNDS          score: rounds of the peer and toolspec timed in turn (default: 5)
#   PEER_SECS       score: CPU-seconds of each peer run (default: 3)
#   PEERS           score: where benches/peers/setup.sh installed the peers (/tmp/toolspec-peers)
# Needs: cargo, python3, /usr/bin/time (GNU time), hyperfine (apt-get install hyperfine) for
# precommit, perf (linux-perf) for precommit-cpu.
# Prints everything; tee it: scripts/bench.sh | tee /tmp/toolspec-bench.log
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
GEN_BIG="${GEN_BIG:-$ROOT/../shared/corpus/gen_big.py}"
BENCH_DIR="${BENCH_DIR:-/tmp/toolspec-bench}"
CORPUS="${CORPUS:-/tmp/bigcorpus}"
BIG_GB="${BIG_GB:-1}"
REPS="${REPS:-3}"
export TOOLSPEC_BENCH_REPS="$REPS" TOOLSPEC_BENCH_CORPUS="$CORPUS"
SECTIONS=("${@:-all}")
want() { [[ " ${SECTIONS[*]} " == *" all "* || " ${SECTIONS[*]} " == *" $1 "* ]]; }
say() { printf '\n### %s\n' "$*"; }
BIN="$ROOT/target/dist/toolspec"
mkdir -p "$BENCH_DIR"

say "machine"
uname -srm
grep -m1 'model name' /proc/cpuinfo || true
echo "cpus: $(nproc); load: $(cut -d' ' -f1-3 /proc/loadavg)"
rustc --version
date -u +"%Y-%m-%dT%H:%M:%SZ"
git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || true

say "build (the dist profile of the published binaries: lto thin, codegen-units 1)"
# The benches (bench profile: the same optimization, with line tables), then the binary as the
# release workflow builds it (target/dist/toolspec).
cargo bench --no-run --quiet 2>/dev/null || cargo bench --no-run
cargo build --profile dist --quiet

corpus() {
  if [[ ! -d "$CORPUS/transcripts" || "${REGEN:-0}" == 1 ]]; then
    rm -rf "$CORPUS"
    python3 "$GEN_BIG" --out "$CORPUS" --n 5000 --scale 2 --seed 7
  fi
  echo "corpus: $CORPUS ($(du -sh "$CORPUS/transcripts" | cut -f1), $(find "$CORPUS/transcripts" -type f | wc -l) files)"
}

# /usr/bin/time fields: wall s, user s, sys s, max RSS KB.
timed() { /usr/bin/time -f '%e %U %S %M' "$@" 2>&1 >/dev/null | tail -n1; }

if want score; then
  say "(a) toolspec score: cases per CPU-second, per profile, vs serde_json -> Value (library, in memory)"
  # The profiles whose conformance vectors are in the repository.
  profiles=$(ls tests/fixtures/vectors/ | sed -n 's/\.jsonl\.gz$//p' | grep -v -e difflib -e _extra | tr '\n' ' ')
  cargo bench --quiet --bench score -- $profiles
  say "(a) toolspec score through the binary vs the peers, same run"
  # Case files: the conformance vectors without their expected results, as the peers' oracles
  # read them (compact JSON, as in the vector files), repeated to about 400 000 cases; and the
  # same cases as Python's json.dumps writes them (spaces, \u escapes), a common dataset style.
  python3 - "$BENCH_DIR" <<'PY'
import gzip, json, sys, os
out = sys.argv[1]
for name in ["evalite", "deepeval"]:
    cases = []
    for raw in gzip.open(f"tests/fixtures/vectors/{name}.jsonl.gz", "rt"):
        if not raw.strip():
            continue
        v = json.loads(raw)
        if name == "deepeval":
            for r in v.get("results", []):
                cases.append({"id": v["id"], "tools_called": v["tools_called"],
                              "expected_tools": v["expected_tools"], "options": r["options"]})
        else:
            v.pop("evalite", None)
            v.pop("kind", None)
            cases.append(v)
    reps = max(1, 400_000 // len(cases))
    for style, dump in [("compact", lambda c: json.dumps(c, separators=(",", ":"), ensure_ascii=False)),
                        ("python", json.dumps)]:
        lines = "\n".join(dump(c) for c in cases) + "\n"
        with open(os.path.join(out, f"{name}.{style}.jsonl"), "w") as f:
            for _ in range(reps):
                f.write(lines)
        if style == "compact":
            with open(os.path.join(out, f"{name}.peer.jsonl"), "w") as f:
                f.write(lines)
    print(f"{name}: {len(cases) * reps} cases ({len(cases)} vectors x {reps})")
PY
  # The peer and toolspec are timed in turn, ROUNDS times (default 5): the peer's driver for
  # PEER_SECS CPU-seconds (default 3) on the vectors, then toolspec on each file; each round
  # gives the ratio of the two, and the medians over the rounds are reported. Every figure is
  # cases per CPU-second (user + system time), so the load of the other core does not count.
  PEERS="${PEERS:-/tmp/toolspec-peers}"
  declare -A peer_cmd=(
    [evalite]="env EVALITE_DIR=$PEERS/evalite node benches/peers/evalite_scorer.mjs"
    [deepeval]="$PEERS/deepeval/bin/python benches/peers/deepeval_metric.py"
  )
  for p in evalite deepeval; do
    cmd=()
    if [[ -d "$PEERS/evalite/node_modules/evalite" && -x "$PEERS/deepeval/bin/python" ]]; then
      read -r -a cmd <<< "${peer_cmd[$p]}"
    else
      echo "peers not installed (benches/peers/setup.sh $PEERS): toolspec alone"
    fi
    runs=()
    for style in compact python; do
      for j in 1 "$(nproc)"; do runs+=("$BENCH_DIR/$p.$style.jsonl:$j"); done
    done
    python3 benches/peers/interleave.py "$BIN" "$p" "$BENCH_DIR/$p.peer.jsonl" "${ROUNDS:-5}" \
      "${PEER_SECS:-3}" "${runs[@]}" -- "${cmd[@]}"
  done
fi

if want check; then
  say "(b) toolspec check over the large corpus vs serde_json -> Value of the same files (library)"
  corpus
  cargo bench --quiet --bench check -- corpus
  say "(b) the same through the binary (JSON report to /dev/null)"
  bytes=$(find "$CORPUS/transcripts" -type f -printf '%s\n' | awk '{s+=$1} END {print s}')
  for j in 1 "$(nproc)"; do
    for _ in $(seq "$REPS"); do
      read -r wall user sys rss < <(cd "$CORPUS" && timed "$BIN" check bench.toolspec --no-config --format json -j "$j")
      python3 -c "b=$bytes/1e6; w=$wall; c=$user+$sys; print(f'toolspec check -j $j: wall {w:.2f} s, CPU {c:.2f} s -> {b/w:.0f} MB/s, {b/c:.0f} MB/CPU-s, max RSS {$rss/1024:.1f} MB')"
    done
  done
fi

if want growth; then
  say "(f) growth with transcript size, and 1 MB strings under fuzzy constraints"
  cargo bench --quiet --bench check -- growth fuzzy
fi

if want memory; then
  say "(c) peak memory on ${BIG_GB} GB JSONL files (target: under 64 MB)"
  corpus
  big="$BENCH_DIR/big"
  mkdir -p "$big/runs"
  # Long Claude Code sessions with large tool outputs (what makes real session logs big).
  [[ -d "$BENCH_DIR/long-sessions" ]] || python3 "$GEN_BIG" --out "$BENCH_DIR/long-sessions" \
      --n 200 --scale 8 --seed 7 --formats claude_code > /dev/null
  python3 - "$CORPUS" "$BENCH_DIR/long-sessions" "$big/runs" "$BIG_GB" <<'PY'
import glob, json, os, sys
corpus, long_sessions, out, gb = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
target = int(gb * 1e9)
def fill(path, chunks, unique=lambda c, k: c):
    if os.path.exists(path) and os.path.getsize(path) >= target:
        return
    size, k = 0, 0
    with open(path, "w") as f:
        while size < target:
            for c in chunks:
                c = unique(c, k)
                f.write(c)
                size += len(c)
                if size >= target:
                    break
            k += 1
    print(f"wrote {path}: {os.path.getsize(path) / 1e9:.2f} GB")
# Each pass renames the call and message ids, so every call is a new call (the reader drops
# calls whose id it has seen, as a resumed session repeats them).
rename = lambda c, k: c.replace('"toolu_', f'"toolu_p{k}_').replace('"msg_', f'"msg_p{k}_')
# 1. One session whose bytes are mostly tool outputs (each at least 64 KB: file reads, test
#    logs), so few calls per MB: how long agent sessions get big.
def pad_outputs(line):
    try:
        ev = json.loads(line)
    except ValueError:
        return line
    content = (ev.get("message") or {}).get("content")
    if not isinstance(content, list):
        return line
    for block in content:
        if isinstance(block, dict) and block.get("type") == "tool_result":
            c = block.get("content")
            if isinstance(c, str) and c:
                block["content"] = (c + "\n") * (65536 // (len(c) + 1) + 1)
    return json.dumps(ev, separators=(",", ":")) + "\n"
events = ["".join(pad_outputs(l) for l in open(p))
          for p in sorted(glob.glob(f"{long_sessions}/transcripts/claude_code/*.session.jsonl"))]
fill(os.path.join(out, "session.jsonl"), events, rename)
# 2. One session made of many short sessions: many calls per MB.
events = [open(p).read() for p in sorted(glob.glob(f"{corpus}/transcripts/claude_code/*.session.jsonl"))]
fill(os.path.join(out, "many-calls.jsonl"), events, rename)
# 3. A dataset: one OpenAI Chat request per line (each line one transcript).
docs = [json.dumps(json.load(open(p)), separators=(",", ":")) + "\n"
        for p in sorted(glob.glob(f"{corpus}/transcripts/openai_chat/*.request.json"))]
fill(os.path.join(out, "dataset.jsonl"), docs)
PY
  for f in session many-calls; do
    cat > "$big/$f.toolspec" <<EOF
spec coding_session {
  transcripts "runs/$f.jsonl"
  order any
  at_least 1 call Read(file_path: type string)
  at_least 1 call Bash(command: /test/)
  never git_push
}
EOF
  done
  cat > "$big/dataset.toolspec" <<'EOF'
spec refund_dataset {
  transcripts "runs/dataset.jsonl"
  order in_order
  call lookup_customer(email: /@/)
  call get_order(order_id: /^ORD-/)
  never close_account
}
EOF
  for s in session many-calls dataset; do
    (cd "$big" && "$BIN" check "$s.toolspec" --no-config --format json > "$big/$s.report.json" || true)
    for fmt in human json; do
      read -r wall user sys rss < <(cd "$big" && timed "$BIN" check "$s.toolspec" --no-config --format "$fmt")
      python3 - "$big/$s.report.json" "$s" "$fmt" "$wall" "$user" "$sys" "$rss" "$(stat -c %s "$big/runs/$s.jsonl")" <<'PY'
import json, sys
path, s, fmt, wall, user, sys_, rss, size = sys.argv[1:]
d = json.load(open(path))
calls = sum(r["calls"] for r in d["results"])
findings = sum(len(r["findings"]) for r in d["results"])
print(f"check {s}.jsonl ({int(size)/1e9:.2f} GB, {len(d['results'])} transcript(s), {calls} calls, {findings} findings), "
      f"--format {fmt}: wall {float(wall):.1f} s, CPU {float(user)+float(sys_):.1f} s, max RSS {int(rss)/1024:.1f} MB")
PY
    done
  done
  # 4. Every transcript of the corpus failing: the human report shows a snippet of each, from
  #    files it reads again (kept within a budget: cli::sources).
  printf '%s\n' 'spec fails_everywhere {' '  transcripts "transcripts/*/*"' '  order any' \
    '  call no_such_tool_anywhere' '}' > "$CORPUS/fails_everywhere.toolspec"
  for fmt in human json; do
    read -r wall user sys rss < <(cd "$CORPUS" && timed "$BIN" check fails_everywhere.toolspec --no-config --format "$fmt")
    echo "check the corpus ($(du -sh "$CORPUS/transcripts" | cut -f1)), a spec failing on every transcript, --format $fmt: wall $wall s, CPU $(python3 -c "print(round($user + $sys, 2))") s, max RSS $((rss / 1024)) MB"
  done
fi

# The inputs of the pre-commit runs: one spec and one ~100 KB Claude Code session (no tool
# declarations), one OpenAI Chat request declaring 7 tools with their JSON Schemas (the built-in
# schema rules compile each), and the minimal clap binary; both binaries copied as installed.
precommit_inputs() {
  corpus
  pc="$BENCH_DIR/precommit"
  mkdir -p "$pc/runs"
  src=$(find "$CORPUS/transcripts/claude_code" -name '*coding_agent.session.jsonl' -size +90k -size -110k | sort | head -n1)
  cp "$src" "$pc/runs/session.jsonl"
  cat > "$pc/coding.toolspec" <<'EOF'
spec claude_code_fix {
  transcripts "runs/*.jsonl"
  order in_order
  args subset
  at_least 1 call Grep(pattern: type string)
  read: at_least 1 call Read(file_path: /\.(py|ts|go|rs)$/)
  edit: at_least 1 call Edit(file_path: read.args.file_path)
  at_least 1 call Bash(command: /test/)
  never WebFetch(url: /evil/)
  read before edit
}
EOF
  echo "transcript: $(stat -c %s "$pc/runs/session.jsonl") bytes ($src)"
  mc="$BENCH_DIR/minclap"
  mkdir -p "$mc/src"
  clapv=$(cargo tree -p clap --depth 0 -e normal 2>/dev/null | head -n1 | sed 's/.* v//')
  cat > "$mc/Cargo.toml" <<EOF
[package]
name = "minclap"
version = "0.1.0"
edition = "2021"
[dependencies]
clap = { version = "=${clapv}", features = ["derive"] }
[profile.release]
lto = "thin"
codegen-units = 1
EOF
  cat > "$mc/src/main.rs" <<'EOF'
use clap::Parser;
/// A minimal clap binary: parses the same arguments as the pre-commit call, does nothing.
#[derive(Parser)]
struct Cli {
    command: String,
    paths: Vec<std::path::PathBuf>,
    #[arg(long)]
    no_config: bool,
}
fn main() {
    let cli = Cli::parse();
    std::hint::black_box((cli.command, cli.paths, cli.no_config));
}
EOF
  cp "$ROOT/Cargo.lock" "$mc/Cargo.lock" 2>/dev/null || true
  (cd "$mc" && cargo build --release --quiet --offline 2>/dev/null || cargo build --release --quiet)
  # Both binaries run as installed: copied, as `cargo install` from a path, a package or a
  # download writes them. A binary the linker has just written starts slower while the page
  # cache still holds the pages the linker wrote (1.60 against 1.38 ms for the same bytes here;
  # 1.43 and 1.44 ms once `drop_caches` made both come from disk), and the larger binary pays
  # more of it; see docs/performance.md (d).
  inst="$BENCH_DIR/installed"
  rm -rf "$inst" && mkdir -p "$inst"
  cp "$mc/target/release/minclap" "$BIN" "$inst/"
  # An OpenAI Chat request of the corpus declaring 7 tools (the coding agent's), and its spec.
  tools_src=$(find "$CORPUS/transcripts/openai_chat" -name '*coding_agent.request.json' | sort | head -n1)
  cp "$tools_src" "$pc/runs/request.json"
  cat > "$pc/tools.toolspec" <<'EOF'
spec openai_coding_fix {
  transcripts "runs/*.json"
  order any
  args subset
  at_least 1 call search_code(pattern: type string)
  read: at_least 1 call read_file(path: /\.(py|ts|go|rs)$/)
  at_least 1 call edit_file(path: read.args.path)
  at_least 1 call run_command(command: type string)
  never run_command(command: /rm -rf/)
}
EOF
  echo "transcript with 7 declared tools: $(stat -c %s "$pc/runs/request.json") bytes ($tools_src)"
}

if want precommit; then
  say "(d) pre-commit: one spec, one ~100 KB transcript, vs a minimal clap binary's start-up (hyperfine)"
  precommit_inputs
  (cd "$pc" && "$inst/toolspec" check runs/session.jsonl --no-config | tail -n1) || true
  (cd "$pc" && hyperfine -N --warmup 50 --runs 500 --ignore-failure \
     "$inst/minclap check runs/session.jsonl --no-config" \
     "$inst/toolspec check runs/session.jsonl --no-config" \
     "$inst/toolspec check coding.toolspec --no-config" \
     "$inst/toolspec --version" \
     --export-json "$BENCH_DIR/precommit.json")
  python3 - "$BENCH_DIR/precommit.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
base = r[0]
for x in r[1:]:
    print(f"{x['command'].split('/')[-1]}: mean {x['mean']*1e3:.2f} ms, median {x['median']*1e3:.2f} ms "
          f"= {x['median']/base['median']:.2f}x the minimal clap binary (median {base['median']*1e3:.2f} ms; target <= 2x)")
PY
fi

if want precommit-cpu; then
  say "(d) pre-commit, CPU time: median task-clock of 30 runs each, vs the minimal clap binary (target <= 3x)"
  precommit_inputs
  # perf stat's task-clock is the CPU time of the measured process alone (user + system), so the
  # ratio does not move with what the other core runs. The commands run in turn, 5 rounds of
  # warm-up then 30 measured, so that a slow minute of the machine falls on all of them.
  cmds=("$inst/minclap check runs/session.jsonl --no-config"
        "$inst/toolspec check runs/session.jsonl --no-config"
        "$inst/toolspec check runs/request.json --no-config"
        "$inst/toolspec --version")
  tc="$BENCH_DIR/task-clock"
  rm -rf "$tc" && mkdir -p "$tc"
  for round in $(seq -4 30); do
    for i in "${!cmds[@]}"; do
      # shellcheck disable=SC2086 # the command's words
      (cd "$pc" && perf stat -x, -e task-clock -o "$tc/run" -- ${cmds[$i]} > /dev/null 2>&1) || true
      if [[ $round -gt 0 ]]; then grep ',task-clock,' "$tc/run" | cut -d, -f1 >> "$tc/$i"; fi
    done
  done
  python3 - "$tc" "${cmds[@]}" <<'PY'
import statistics, sys
tc, cmds = sys.argv[1], sys.argv[2:]
med = [statistics.median(float(x) for x in open(f"{tc}/{i}")) for i in range(len(cmds))]
print(f"{cmds[0].split('/')[-1]}: median {med[0]:.2f} ms CPU")
for c, m in zip(cmds[1:], med[1:]):
    print(f"{c.split('/')[-1]}: median {m:.2f} ms CPU = {m / med[0]:.2f}x the minimal clap binary (target <= 3x)")
PY
fi

if want watch; then
  say "(e) watch: save -> re-checked report, vs the debounce interval (target: debounce + 10 ms)"
  cargo bench --quiet --bench watch -- 50 100
fi

if want html; then
  say "(f) --format html: 10 000 transcripts (a quarter failing) in <= 2 s and <= 10 MB, vs --format json"
  hb="$BENCH_DIR/html"
  rm -rf "$hb"
  python3 "$ROOT/scripts/gen-html-bench.py" "$hb" 10000
  for fmt in html json; do
    best=""
    for _ in $(seq "$REPS"); do
      t=$(cd "$hb" && timed "$BIN" check . --exit-zero --format "$fmt" --output-file "$BENCH_DIR/report.$fmt")
      wall=${t%% *}
      if [[ -z "$best" ]] || python3 -c "import sys; sys.exit(not $wall < ${best%% *})"; then best="$t"; fi
    done
    read -r wall user sys rss <<<"$best"
    size=$(stat -c %s "$BENCH_DIR/report.$fmt")
    echo "$fmt: wall $wall s, user $user s, sys $sys s, max RSS $((rss / 1024)) MB, $size bytes (best of $REPS)"
    eval "wall_$fmt=$wall size_$fmt=$size"
  done
  # shellcheck disable=SC2154 # set by the eval above
  python3 -c "print(f'html / json: time {$wall_html / max($wall_json, 0.001):.2f}x, size {$size_html / $size_json:.2f}x; html {$size_html / 1e6:.2f} MB (budget 10 MB), {$wall_html:.2f} s (budget 2 s)')"
fi

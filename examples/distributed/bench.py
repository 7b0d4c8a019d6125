"""Throughput of the distributed example on a local Ray cluster, with 1 and 2 workers, against
`toolspec check` (the command line) and a plain loop over `toolspec.check` on the same data.

    python examples/distributed/bench.py [N]      # N transcripts (default 2000)

The corpus is the five refund runs of examples/runs/refund/, repeated to N transcripts; each is
checked against examples/prompts/refund.toolspec. Prints one Markdown table row per way.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import ray

sys.path.insert(0, os.path.dirname(__file__))
import check_corpus  # noqa: E402

import toolspec  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "examples/prompts/refund.toolspec"


def best_of(runs: int, f) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    sources = sorted(glob.glob(str(ROOT / "examples/runs/refund/*.json")))
    data = [Path(p).read_bytes() for p in sources]
    rows = [{"path": f"run-{i:05}.json", "bytes": data[i % len(data)]} for i in range(n)]
    table = []

    # The command line on the same transcripts, as files.
    cli = shutil.which("toolspec")
    with tempfile.TemporaryDirectory() as d:
        paths = []
        for r in rows:
            p = os.path.join(d, r["path"])
            Path(p).write_bytes(r["bytes"])
            paths.append(p)
        for j in (1, 2):
            cmd = [cli, "check", "--allow-outside-root", "--spec", str(SPEC), "--format", "json"]
            cmd += ["-j", str(j), *paths]
            out = subprocess.run(cmd, capture_output=True, check=False)
            report = json.loads(out.stdout)
            assert report["summary"]["checked"] == n and not report["errors"], out.stderr[-2000:]
            t = best_of(3, lambda: subprocess.run(cmd, capture_output=True, check=False))
            table.append((f"`toolspec check -j {j}` (files)", j, t))

    # In-process, one Python thread, no engine.
    def loop() -> None:
        for r in rows:
            assert toolspec.check(str(SPEC), r["bytes"]).results

    table.append(("`toolspec.check` loop (one process)", 1, best_of(3, loop)))

    check_corpus.init_local(2)
    ds = ray.data.from_items(rows).materialize()
    for workers in (1, 2):
        job = lambda: check_corpus.check_dataset(ds, SPEC, workers=workers).take_all()
        assert len(job()) == n  # warm-up: workers started, the module imported
        table.append((f"Ray Data, {workers} worker{'s' if workers > 1 else ''}", workers, best_of(3, job)))
    ray.shutdown()

    cli1 = table[0][2]
    print(f"{n} transcripts (the refund runs, {sum(len(x) for x in data) // len(data)} bytes each on average)\n")
    print("| way | workers | wall time | transcripts/s | time / `toolspec check -j 1` |")
    print("|---|---|---|---|---|")
    for name, w, t in table:
        print(f"| {name} | {w} | {t:.3f} s | {n / t:,.0f} | {t / cli1:.1f}× |")


if __name__ == "__main__":
    main()

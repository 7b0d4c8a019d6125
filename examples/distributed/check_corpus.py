"""Check a corpus of agent transcripts on Ray Data: a column of transcripts → a column of results.

Each row holds one transcript (the bytes of a file, as read from object storage or a table);
`check_dataset` adds the verdict of every spec of a `.toolspec` file on it. The spec's text
travels with the task, so workers need no shared file system; each worker checks its batches
in-process with the `toolspec` module (no process per transcript).

    python examples/distributed/check_corpus.py SPEC TRANSCRIPT...   # a local cluster

On a real cluster, call `ray.init(address="auto")` instead and build the dataset from the
store that holds the transcripts (`ray.data.read_binary_files("s3://bucket/runs/")`: its
`bytes` column is the transcript).
"""

from __future__ import annotations

import os
import sys
from typing import Any, Dict, List, Optional

import ray

import toolspec


class CheckBatch:
    """A Ray Data worker: the spec compiled once per worker, each batch checked in-process."""

    def __init__(self, spec_text: str, spec_name: Optional[str] = None) -> None:
        # A spec that does not compile fails the job at once.
        self.spec = toolspec.Spec(spec_text, name=spec_name)

    def __call__(self, batch: Dict[str, Any]) -> Dict[str, List[Any]]:
        out: Dict[str, List[Any]] = {
            "path": [],
            "spec": [],
            "passed": [],
            "score": [],
            "failure": [],
            "findings": [],
            "error": [],
        }
        for path, data in zip(batch["path"], batch["bytes"]):
            try:
                report = self.spec.check(bytes(data))
            except toolspec.ToolspecError as e:
                # A transcript that cannot be read is a row with its error, not a failed job.
                for k in ("spec", "passed", "score", "failure", "findings"):
                    out[k].append(None)
                out["path"].append(path)
                out["error"].append(str(e))
                continue
            for r in report.results:
                out["path"].append(path)
                out["spec"].append(r.spec)
                out["passed"].append(r.passed)
                out["score"].append(r.score)
                out["failure"].append(r.failure)
                out["findings"].append([f.code for f in r.findings])
                out["error"].append(None)
        return out


def check_dataset(
    ds: "ray.data.Dataset",
    spec_text: str,
    *,
    workers: int = 2,
    spec_name: Optional[str] = None,
    batch_size: int = 64,
) -> "ray.data.Dataset":
    """`ds` (columns `path`, `bytes`) → one row per (transcript, spec): `path`, `spec`,
    `passed`, `score`, `failure`, `findings` (codes), `error` (a transcript that could not be
    read). `workers` parallel workers, one CPU each."""
    return ds.map_batches(
        CheckBatch,
        fn_constructor_kwargs={"spec_text": spec_text, "spec_name": spec_name},
        batch_size=batch_size,
        compute=ray.data.ActorPoolStrategy(size=workers),
        num_cpus=1,
        batch_format="numpy",
    )


def init_local(num_cpus: int = 2) -> None:
    """Start a local Ray cluster of `num_cpus` CPUs whose workers can import this file."""
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.pathsep.join(p for p in (here, os.environ.get("PYTHONPATH")) if p)
    ray.init(
        num_cpus=num_cpus,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": path}},
    )


def dataset_of_files(paths: List[str]) -> "ray.data.Dataset":
    """A dataset with a `path` and a `bytes` column, one row per file."""
    rows = []
    for p in paths:
        with open(p, "rb") as f:
            rows.append({"path": p, "bytes": f.read()})
    return ray.data.from_items(rows)


def main(argv: List[str]) -> int:
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    spec, transcripts = argv[0], argv[1:]
    with open(spec, encoding="utf-8") as f:
        spec_text = f.read()
    init_local(2)
    rows = check_dataset(dataset_of_files(transcripts), spec_text).take_all()
    failed = 0
    for r in sorted(rows, key=lambda r: (r["path"], r["spec"] or "")):
        verdict = "ERROR" if r["error"] else ("PASS" if r["passed"] else "FAIL")
        failed += verdict != "PASS"
        print(f"{verdict}  {r['score'] if r['score'] is not None else '-'}  {r['spec']}  {r['path']}")
    print(f"{len(rows) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

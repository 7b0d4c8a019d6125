"""Check a corpus of agent transcripts on Ray Data: a column of transcripts → a column of results.

Each row holds one transcript (the bytes of a file, as read from object storage or a table);
`check_dataset` adds the verdict of every spec of a `.toolspec` file on it. The spec is
compiled on the driver first (a spec that does not compile fails at once, before any worker
starts); the workers get its path and the project root it was compiled under, never its text,
and each compiles it from that file through the same root guard as `toolspec check` (its
includes stay inside the root), then checks its batches in-process with the `toolspec` module
(no process per transcript).

    python examples/distributed/check_corpus.py SPEC TRANSCRIPT...   # a local cluster

On a real cluster, call `ray.init(address="auto")` instead and build the dataset from the
store that holds the transcripts (`ray.data.read_binary_files("s3://bucket/runs/")`: its
`bytes` column is the transcript). The workers read the spec file and its includes at the
driver's paths: the project must be at the same place on every machine (a shared file system,
or the job's container image).
"""

from __future__ import annotations

import os
import sys
from typing import Any, Dict, List, Optional

import ray

import toolspec


class CheckBatch:
    """A Ray Data worker: the spec compiled once per worker, each batch checked in-process."""

    def __init__(self, spec_path: str, root: str, spec_name: Optional[str] = None) -> None:
        # The spec file, read inside the driver's project root wherever the worker runs.
        self.spec = toolspec.Spec(spec_path, name=spec_name, root=root)

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
    spec: "str | os.PathLike[str]",
    *,
    workers: int = 2,
    spec_name: Optional[str] = None,
    batch_size: int = 64,
) -> "ray.data.Dataset":
    """`ds` (columns `path`, `bytes`) → one row per (transcript, spec of the file `spec`):
    `path`, `spec`, `passed`, `score`, `failure`, `findings` (codes), `error` (a transcript
    that could not be read). `workers` parallel workers, one CPU each.

    Raises `toolspec.SpecError` at once when the spec cannot be read or does not compile."""
    compiled = toolspec.Spec(spec, name=spec_name)
    kwargs = {"spec_path": os.path.abspath(spec), "root": compiled.root, "spec_name": spec_name}
    return ds.map_batches(
        CheckBatch,
        fn_constructor_kwargs=kwargs,
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
    init_local(2)
    rows = check_dataset(dataset_of_files(transcripts), spec).take_all()
    failed = 0
    for r in sorted(rows, key=lambda r: (r["path"], r["spec"] or "")):
        verdict = "ERROR" if r["error"] else ("PASS" if r["passed"] else "FAIL")
        failed += verdict != "PASS"
        print(f"{verdict}  {r['score'] if r['score'] is not None else '-'}  {r['spec']}  {r['path']}")
    print(f"{len(rows) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

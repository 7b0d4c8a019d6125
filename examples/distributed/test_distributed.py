"""The distributed example on a local Ray cluster (two CPUs): the results of the Ray job are
the results of `toolspec.check` on each transcript, the failing example run fails, and a
transcript that cannot be read is a row with its error."""

from __future__ import annotations

import glob
import os
import sys
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")

sys.path.insert(0, os.path.dirname(__file__))
import check_corpus  # noqa: E402

import toolspec  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "examples/prompts/refund.toolspec"


@pytest.fixture(autouse=True)
def at_root(monkeypatch) -> None:
    monkeypatch.chdir(ROOT)


@pytest.fixture(scope="module")
def cluster():
    check_corpus.init_local(2)
    yield
    ray.shutdown()


def test_a_ray_job_gives_each_transcript_its_check_result(cluster, tmp_path) -> None:
    paths = sorted(glob.glob(str(ROOT / "examples/runs/refund/*.json")))
    assert len(paths) == 5
    broken = tmp_path / "broken.json"
    broken.write_bytes(b"{ not json")
    ds = check_corpus.dataset_of_files(paths + [str(broken)])
    rows = check_corpus.check_dataset(ds, SPEC.read_text(), workers=2, batch_size=2).take_all()
    by_path = {r["path"]: r for r in rows}
    assert len(rows) == 6 and set(by_path) == set(paths) | {str(broken)}
    for p in paths:
        (expected,) = toolspec.check(SPEC, p).results
        got = by_path[p]
        assert got["error"] is None, got
        assert (got["spec"], bool(got["passed"]), float(got["score"])) == (
            expected.spec,
            expected.passed,
            expected.score,
        ), p
        assert list(got["findings"]) == [f.code for f in expected.findings]
    failed = [r["path"] for r in rows if r["error"] is None and not r["passed"]]
    assert [Path(p).name for p in failed] == ["2025-06-07-openai-skipped-check.request.json"]
    assert by_path[str(broken)]["error"] and by_path[str(broken)]["passed"] is None


def test_a_spec_that_does_not_compile_fails_the_job(cluster) -> None:
    ds = check_corpus.dataset_of_files([str(ROOT / "examples/runs/refund/2025-06-03-openai.request.json")])
    with pytest.raises(Exception, match="SpecError"):
        check_corpus.check_dataset(ds, "spec broken {\n  call (\n}\n", workers=1).take_all()

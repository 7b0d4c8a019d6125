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
    rows = check_corpus.check_dataset(ds, SPEC, workers=2, batch_size=2).take_all()
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


def test_a_spec_that_does_not_compile_fails_before_the_job(cluster, tmp_path, monkeypatch) -> None:
    ds = check_corpus.dataset_of_files([str(ROOT / "examples/runs/refund/2025-06-03-openai.request.json")])
    monkeypatch.chdir(tmp_path)
    (tmp_path / "broken.toolspec").write_text("spec broken {\n  call (\n}\n")
    with pytest.raises(toolspec.SpecError):
        check_corpus.check_dataset(ds, "broken.toolspec", workers=1)


def test_the_workers_read_the_spec_inside_the_drivers_root(cluster, tmp_path, monkeypatch) -> None:
    """The workers compile the spec from its file through the root guard: an include out of the
    project is refused on the driver, and a worker never reads it (nor quotes it in the job)."""
    secret = "AKIAFAKE0RAY0WORKER"
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (tmp_path / "credentials").write_text(f"aws_access_key_id = {secret}\n")
    (repo / "leak.toolspec").write_text('include "../credentials"\nspec leak {\n  call lookup\n}\n')
    (repo / "tools.toolspec").write_text("tool lookup()\n")
    (repo / "ok.toolspec").write_text('include "tools.toolspec"\nspec ok {\n  call lookup\n}\n')
    monkeypatch.chdir(repo)
    ds = check_corpus.dataset_of_files([str(ROOT / "examples/runs/refund/2025-06-03-openai.request.json")])
    with pytest.raises(toolspec.SpecError) as e:
        check_corpus.check_dataset(ds, "leak.toolspec", workers=1)
    assert secret not in str(e.value) and "outside the project root" in str(e.value)
    # A spec whose includes stay inside: the workers compile it from its file, wherever their
    # working folder is, under the driver's root.
    rows = check_corpus.check_dataset(ds, "ok.toolspec", workers=1).take_all()
    assert [(r["spec"], r["error"]) for r in rows] == [("ok", None)]

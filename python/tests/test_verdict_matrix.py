"""One verdict everywhere: the same trees checked through `toolspec check`, the Python API
(`check_project`, `check` of each transcript, `Spec.passes`), `assert_passes`, `pytest --toolspec`
and the pre-commit hooks' command give one verdict, one exit outcome and the same counts.

The trees: the bundled examples, and a project with a spec with a `pass_rate` (met, then
missed), a file of two specs each for its own runs, a folder `toolspec.toml` excludes and a
folder `.gitignore` ignores (each holding a spec that would fail the run), and a staged
`package.json` (no transcript, passed over)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest

import toolspec
from toolspec.testing import assert_passes

from conftest import ROOT, cli_command

GOOD = """{"model": "gpt-4o", "messages": [
  {"role": "user", "content": "Book SFO to NRT."},
  {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
    "function": {"name": "search_flights", "arguments": "{\\"origin\\": \\"%s\\"}"}}]},
  {"role": "tool", "tool_call_id": "call_1", "content": "ok"}
]}
"""


def run(origin: str) -> str:
    return GOOD % origin


def make_project(root: Path, failing_rated: int) -> Path:
    """The project: `failing_rated` of the 4 runs of the rated spec fail (it needs 50 %)."""
    files = {
        "toolspec.toml": 'exclude = ["excluded/**"]\n',
        ".gitignore": "ignored/\n",
        "package.json": '{\n  "name": "agent-app",\n  "version": "1.0.0"\n}\n',
        "prompts/booking.toolspec": (
            "spec booking {\n"
            '  transcripts "../runs/booking/*.json"\n'
            "  pass_rate >= 0.5\n"
            '  call search_flights(origin: "SFO")\n'
            "}\n"
        ),
        "prompts/two.toolspec": (
            "spec from_sfo {\n"
            '  transcripts "../runs/sfo/*.json"\n'
            '  call search_flights(origin: "SFO")\n'
            "}\n\n"
            "spec from_oak {\n"
            '  transcripts "../runs/oak/*.json"\n'
            '  call search_flights(origin: "OAK")\n'
            "}\n"
        ),
        "runs/sfo/a.json": run("SFO"),
        "runs/oak/b.json": run("OAK"),
        # Each would fail the run if it were checked.
        "excluded/stale.toolspec": 'spec stale {\n  transcripts "../runs/sfo/*.json"\n  call nope()\n}\n',
        "ignored/stale.toolspec": 'spec stale {\n  transcripts "../runs/sfo/*.json"\n  call nope()\n}\n',
    }
    for i in range(4):
        files[f"runs/booking/{i}.json"] = run("OAK" if i < failing_rated else "SFO")
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    git(root, "init", "-q", ".")
    git(root, "add", ".")
    return root


def git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@localhost", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


def cli(cwd: Path, *args: str) -> "subprocess.CompletedProcess[str]":
    return subprocess.run(
        [cli_command(), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )


def cli_report(cwd: Path, *args: str) -> Tuple[int, Dict[str, Any]]:
    out = cli(cwd, "check", *args, "--format", "json")
    assert out.returncode in (0, 1, 2), out.stderr
    return out.returncode, json.loads(out.stdout)


def pytest_counts(cwd: Path, *args: str) -> Tuple[int, Dict[str, int]]:
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "--toolspec", *args, "-p", "no:cacheprovider", "-q"],
        cwd=cwd,
        capture_output=True,
        text=True,
    )
    last = out.stdout.strip().splitlines()[-1]
    counts = {k: int(n) for n, k in re.findall(r"(\d+) (passed|failed|error)", last)}
    return out.returncode, counts


def verdict_counts(report: Dict[str, Any]) -> Dict[str, int]:
    """What the pytest items of a report must count: a result of a spec without a rate, or a
    rate, each one item; the run's errors one failing item."""
    alone = [r for r in report["results"] if r.get("pass_rate") is None]
    rates = report.get("rates", [])
    passed = sum(r["passed"] for r in alone) + sum(r["met"] for r in rates)
    failed = len(alone) + len(rates) - passed + (1 if report["errors"] else 0)
    return {k: v for k, v in (("passed", passed), ("failed", failed)) if v}


def hook_entry(hook_id: str) -> List[str]:
    """The command a hook of `.pre-commit-hooks.yaml` runs (its `entry`)."""
    text = (ROOT / ".pre-commit-hooks.yaml").read_text()
    block = text.split(f"- id: {hook_id}\n", 1)[1]
    entry = re.search(r"^\s+entry: (.+)$", block, re.M)
    assert entry
    program, *args = entry.group(1).split()
    assert program == "toolspec"
    return args


def hook_files(cwd: Path) -> List[str]:
    """The files pre-commit hands the staged-files hook on `--all-files` (its `files` regex)."""
    text = (ROOT / ".pre-commit-hooks.yaml").read_text()
    block = text.split("- id: toolspec\n", 1)[1]
    pattern = re.search(r"^\s+files: '(.+)'$", block, re.M)
    assert pattern
    listed = subprocess.run(
        ["git", "ls-files"], cwd=cwd, capture_output=True, text=True, check=True
    ).stdout.split()
    return [f for f in listed if re.search(pattern.group(1), f)]


def agree(cwd: Path, monkeypatch: pytest.MonkeyPatch) -> Tuple[int, Dict[str, Any]]:
    """Check the tree at `cwd` every way; assert they agree; return the command's exit status
    and report."""
    monkeypatch.chdir(cwd)
    status, report = cli_report(cwd)
    # The Python API: the same report, the same verdict.
    project, checked = toolspec._check_project([])
    assert project.raw == report
    assert project.passed is (status == 0)
    # Each transcript, by path, through the API and `assert_passes`, as `toolspec check
    # TRANSCRIPT` checks it (a spec with a rate: the rate over that one transcript).
    for transcript in sorted({r["transcript"] for r in report["results"]}):
        t_status, t_report = cli_report(cwd, transcript)
        spec_files = {r["spec_file"] for r in t_report["results"]}
        assert len(spec_files) == 1, t_report
        spec_file = spec_files.pop()
        got = toolspec.check(spec_file, transcript)
        assert [r.raw for r in got.results] == t_report["results"], transcript
        assert got.rates == t_report.get("rates", [])
        assert got.passed is (t_status == 0), transcript
        assert toolspec.Spec(spec_file).passes(transcript) is (t_status == 0)
        if t_status == 0:
            assert_passes(spec_file, transcript)
        else:
            with pytest.raises(AssertionError):
                assert_passes(spec_file, transcript)
    # pytest --toolspec: one item per verdict, failing exactly when the command does.
    p_status, counts = pytest_counts(cwd)
    assert (p_status == 0) is (status == 0), counts
    assert counts == verdict_counts(report)
    # The pre-commit hooks' commands: the whole repository, then every tracked file.
    whole = cli(cwd, *hook_entry("toolspec-all"))
    assert whole.returncode == status, whole.stderr
    staged = cli(cwd, *hook_entry("toolspec"), *hook_files(cwd), "--format", "json")
    assert staged.returncode == status, staged.stderr
    staged_report = json.loads(staged.stdout)
    # Every count (a staged package.json is a note, no warning).
    assert staged_report["summary"] == report["summary"]
    assert staged_report.get("rates") == report.get("rates")
    return status, report


def test_the_bundled_examples_have_one_verdict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = tmp_path / "examples"
    shutil.copytree(ROOT / "examples", tree, ignore=shutil.ignore_patterns("distributed"))
    git(tree, "init", "-q", ".")
    git(tree, "add", ".")
    status, report = agree(tree, monkeypatch)
    assert status == 1
    assert (report["summary"]["passed"], report["summary"]["failed"]) == (11, 1)


@pytest.mark.parametrize(("failing", "status"), [(1, 0), (3, 1)])
def test_a_project_with_a_rate_two_specs_and_left_out_folders_has_one_verdict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: int, status: int
) -> None:
    tree = make_project(tmp_path / "project", failing)
    got, report = agree(tree, monkeypatch)
    assert got == status
    # The left-out folders are left out everywhere; the rate is one verdict.
    assert {r["spec_file"] for r in report["results"]} == {
        "prompts/booking.toolspec",
        "prompts/two.toolspec",
    }
    (rate,) = report["rates"]
    assert (rate["passed"], rate["total"], rate["met"]) == (4 - failing, 4, status == 0)
    assert verdict_counts(report) == (
        {"passed": 3} if status == 0 else {"passed": 2, "failed": 1}
    )


def test_a_rate_is_one_pytest_item_listing_its_failing_transcripts(tmp_path: Path) -> None:
    tree = make_project(tmp_path / "project", 3)
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "--toolspec", "-p", "no:cacheprovider", "-rf", "-v"],
        cwd=tree,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 1, out.stdout
    text = out.stdout
    assert "prompts/booking.toolspec::booking::pass_rate FAILED" in text, text
    # No item per transcript of the rated spec, none of the left-out folders.
    assert "booking::runs/booking" not in text and "stale" not in text, text
    assert "1/4 passed" in text and "failing transcripts (3 of 4)" in text, text
    for i in range(3):
        assert f"runs/booking/{i}.json" in text, text
    assert "prompts/two.toolspec::from_sfo::runs/sfo/a.json PASSED" in text, text


def test_a_run_that_checks_nothing_has_one_verdict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A spec whose one run is an Inspect AI `.eval` log of no samples (a dataset of no
    records): `toolspec check` exits 0 with a `nothing-checked` warning, and `--strict` (the
    hooks) exits 1. The API passes it with that warning, `assert_passes` passes (it raised "no
    spec was checked"), and `pytest --toolspec` skips one item saying so and exits 0 (it exited
    5, no tests collected, failing where the command passes)."""
    import zipfile

    tree = tmp_path / "project"
    (tree / "runs").mkdir(parents=True)
    (tree / "toolspec.toml").write_text("")
    (tree / "s.toolspec").write_text('spec s {\n  transcripts "runs/*.eval"\n  call search\n}\n')
    with zipfile.ZipFile(tree / "runs" / "empty.eval", "w") as z:
        z.writestr("header.json", '{"version": 2, "status": "success", "eval": {"task": "t"}}')
    monkeypatch.chdir(tree)

    status, report = cli_report(tree)
    assert status == 0, report
    assert report["results"] == []
    assert [w["code"] for w in report["warnings"]] == ["nothing-checked"]
    assert cli(tree, "check", "--strict").returncode == 1
    project = toolspec.check_project()
    assert project.passed and project.results == []
    assert [w["code"] for w in project.warnings] == ["nothing-checked"]

    t_status, t_report = cli_report(tree, "runs/empty.eval")
    assert t_status == 0 and t_report["results"] == [], t_report
    got = toolspec.check("s.toolspec", "runs/empty.eval")
    assert got.passed and got.results == []
    assert [w["code"] for w in got.warnings] == ["nothing-checked"]
    assert toolspec.Spec("s.toolspec").passes("runs/empty.eval")
    assert assert_passes("s.toolspec", "runs/empty.eval").passed

    out = subprocess.run(
        [sys.executable, "-m", "pytest", "--toolspec", "-p", "no:cacheprovider", "-rs"],
        cwd=tree,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "1 skipped" in out.stdout.strip().splitlines()[-1], out.stdout
    assert "no spec × transcript pair was checked" in out.stdout, out.stdout

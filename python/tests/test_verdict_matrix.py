"""One verdict everywhere: the same trees checked through `toolspec check`, `toolspec watch`
(driven through scripted edits), the Python API (`check_project`, `check` of each transcript,
`Spec.passes`), `assert_passes`, `pytest --toolspec`, the pre-commit hooks' command and
`pre-commit` itself running the hooks of `.pre-commit-hooks.yaml` give one verdict, one exit
outcome and the same counts.

The trees: the bundled examples, and a project with a spec with a `pass_rate` (met, then
missed), a file of two specs each for its own runs, a folder `toolspec.toml` excludes and a
folder `.gitignore` ignores (each holding a spec that would fail the run), and a staged
`package.json` (no transcript, passed over). The project goes through every kind of edit (a
transcript added, edited, removed, renamed; a spec edited; `toolspec.toml` edited) under a
running `toolspec watch`, each state checked every way.

`watch` is driven as `tests/it/cli_watch.rs` drives it (the built command, its output read
line by line until a run's summary and status lines; what it prints compared with a fresh
`toolspec check`); that file covers watch's own cases. `pre-commit` (installed from PyPI,
pinned, by scripts/python-tests.sh) runs the hooks as the repository defines them, each as a
local hook of the scratch repository running the command under test."""

from __future__ import annotations

import json
import os
import queue
import re
import shlex
import shutil
import subprocess
import sys
import threading
import time
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


def check_now(cwd: Path) -> Tuple[str, str]:
    """What `toolspec check` prints for the tree at `cwd` now: (stdout, stderr)."""
    out = cli(cwd, "check", "--color", "never")
    return out.stdout, out.stderr.rstrip()


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


def pre_commit(cwd: Path, *args: str) -> "subprocess.CompletedProcess[str]":
    """`pre-commit ARGS` in the scratch repository at `cwd`, whose `.pre-commit-config.yaml`
    ([`use_the_hooks`]) holds the hooks of `.pre-commit-hooks.yaml`."""
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={
            **os.environ,
            "NO_COLOR": "1",
            "PRE_COMMIT_COLOR": "never",
            "PRE_COMMIT_HOME": str(cwd.parent / ".pre-commit-home"),
        },
    )


def use_the_hooks(cwd: Path) -> None:
    """Write the scratch repository's `.pre-commit-config.yaml`: each hook of
    `.pre-commit-hooks.yaml` as it is defined there (its entry's arguments, `files`,
    `pass_filenames`, `always_run`, `require_serial`), as a local hook whose entry runs the
    command under test in place of an installed `toolspec`."""
    import yaml  # pre-commit's own dependency

    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    local = []
    for hook in hooks:
        if hook["language"] != "python":
            continue  # the `-rust` hooks are the same hooks, built with cargo
        program, *args = hook["entry"].split()
        assert program == "toolspec", hook
        local.append(
            {
                **hook,
                # pre-commit 4's name for a command already installed (`system` before).
                "language": "unsupported",
                "entry": " ".join(shlex.quote(a) for a in [cli_command(), *args]),
            }
        )
    config = json.dumps({"repos": [{"repo": "local", "hooks": local}]}, indent=2)
    path = cwd / ".pre-commit-config.yaml"
    # Written once: a write would be a change to a running watch.
    if not path.exists() or path.read_text() != config:
        path.write_text(config)


def summary_line(human: str) -> str:
    """The counts line of `toolspec check`'s human output."""
    lines = [s for s in human.splitlines() if re.match(r"^\d+ passed, \d+ failed \(", s)]
    assert len(lines) == 1, human
    return lines[0]


def pre_commit_agrees(cwd: Path, status: int, check_out: str) -> None:
    """`pre-commit` itself, running the hooks on every file of the repository, fails exactly
    when `toolspec check` does and prints its counts, once (one process: `require_serial`)."""
    use_the_hooks(cwd)
    git(cwd, "add", "-A")
    for hook in ("toolspec", "toolspec-all"):
        out = pre_commit(cwd, "run", hook, "--all-files", "--verbose")
        text = out.stdout + out.stderr
        assert (out.returncode == 0) is (status == 0), f"{hook}: {text}"
        counts = [s for s in text.splitlines() if re.match(r"^\d+ passed, \d+ failed \(", s)]
        assert counts == [summary_line(check_out)], f"{hook}: {text}"


def agree(cwd: Path, monkeypatch: pytest.MonkeyPatch) -> Tuple[int, Dict[str, Any]]:
    """Check the tree at `cwd` every way; assert they agree; return the command's exit status
    and report."""
    monkeypatch.chdir(cwd)
    git(cwd, "add", "-A")
    status, report = cli_report(cwd)
    check_out, _ = check_now(cwd)
    # The Python API: the same report, the same verdict.
    project = toolspec._check_project([])
    assert project.raw == report
    assert project.passed is (status == 0)
    # Each transcript, by path, through the API and `assert_passes`, as `toolspec check
    # TRANSCRIPT` checks it (a spec with a rate: the rate over that one transcript), one spec
    # file at a time: it passes when every spec file's check passes.
    for transcript in sorted({r["transcript"] for r in report["results"] if r["spec_file"]}):
        t_status, t_report = cli_report(cwd, transcript)
        spec_files = sorted({r["spec_file"] for r in t_report["results"]})
        assert spec_files, t_report
        every = True
        for spec_file in spec_files:
            got = toolspec.check(spec_file, transcript)
            results = [r for r in t_report["results"] if r["spec_file"] == spec_file]
            rates = [r for r in t_report.get("rates", []) if r["spec_file"] == spec_file]
            assert [r.raw for r in got.results] == results, transcript
            assert got.rates == rates
            assert toolspec.Spec(spec_file).passes(transcript) is got.passed
            if got.passed:
                assert_passes(spec_file, transcript)
            else:
                with pytest.raises(AssertionError):
                    assert_passes(spec_file, transcript)
            every = every and got.passed
        assert every is (t_status == 0), transcript
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
    # `pre-commit` itself, running those hooks.
    pre_commit_agrees(cwd, status, check_out)
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


class Watch:
    """`toolspec watch` on a tree, its output read line by line (as tests/it/cli_watch.rs reads
    it)."""

    def __init__(self, cwd: Path) -> None:
        self.proc = subprocess.Popen(
            [cli_command(), "watch", "--color", "never", "--debounce", "250", "--no-clear"],
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "NO_COLOR": "1"},
        )
        self.lines: "queue.Queue[Tuple[bool, str]]" = queue.Queue()
        self.seen: List[str] = []
        for is_err, pipe in ((False, self.proc.stdout), (True, self.proc.stderr)):
            threading.Thread(target=self._read, args=(is_err, pipe), daemon=True).start()

    def _read(self, is_err: bool, pipe: Any) -> None:
        for line in pipe:
            self.lines.put((is_err, line.rstrip("\n")))

    def _line(self, deadline: float) -> Tuple[bool, str]:
        try:
            got = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise AssertionError(
                "no re-check within 60 s; output so far:\n" + "\n".join(self.seen)
            ) from None
        self.seen.append(got[1])
        return got

    def next_state(self) -> Tuple[str, str, str]:
        """The next run, as `toolspec check` would print it: its stdout, its stderr before
        what watch adds about itself; then what watch adds (the changes since the last run and
        the status line)."""
        deadline = time.monotonic() + 60
        out, err, own = "", "", ""
        summary = status = False
        while not (summary and status):
            is_err, line = self._line(deadline)
            if not is_err:
                summary = summary or bool(re.match(r"^\d+ passed, \d+ failed \(", line))
                out += line + "\n"
            elif line.startswith("[watch]"):
                status = True
                own += line + "\n"
            elif own or line.startswith(
                ("changed since the last run", "nothing changed since the last run")
            ):
                own += line + "\n"
            else:
                err += line + "\n"
        # Watch puts a blank line before its changes; `check` ends its stderr without one.
        return out, err.rstrip(), own

    def settle(self) -> None:
        """Let any run started by what the checks of the last state did (none is expected:
        they write nothing watch looks at) print, and drop it."""
        while True:
            try:
                self.seen.append(self.lines.get(timeout=1.0)[1])
            except queue.Empty:
                return

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait()


def watch_agrees(w: Watch, cwd: Path, step: str) -> str:
    """Watch's next run prints what a fresh `toolspec check` prints: every verdict, rate,
    count, error and warning. Returns what it printed, watch's own lines included."""
    out, err, own = w.next_state()
    check_out, check_err = check_now(cwd)
    assert out == check_out, f"{step}: watch's report differs from check's"
    assert err == check_err, f"{step}: watch's errors and warnings differ from check's"
    return out + own


def test_a_project_edited_under_watch_has_one_verdict_at_every_step(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The project through every kind of edit, `toolspec watch` running: after each, watch
    prints what `check` prints, and the API, `assert_passes`, pytest, the hooks' command and
    `pre-commit` agree with `check`."""
    tree = make_project(tmp_path / "project", 2)
    use_the_hooks(tree)
    booking = tree / "runs" / "booking"
    steps = [
        # The rate is 2/4, met at 50 %: a failing run added makes it 2/5, missed.
        ("a transcript added", lambda: (booking / "4.json").write_text(run("OAK")), 1, "2/5"),
        ("a transcript edited", lambda: (booking / "0.json").write_text(run("SFO")), 0, "3/5"),
        ("a transcript removed", lambda: (booking / "1.json").unlink(), 0, "3/4"),
        (
            "a transcript renamed",
            lambda: (tree / "runs/sfo/a.json").rename(tree / "runs/sfo/c.json"),
            0,
            "runs/sfo/c.json",
        ),
        (
            "a spec edited",
            lambda: (tree / "prompts/two.toolspec").write_text(
                (tree / "prompts/two.toolspec").read_text().replace('"OAK"', '"SFO"')
            ),
            1,
            "prompts/two.toolspec::from_oak",
        ),
        (
            "toolspec.toml edited",
            lambda: (tree / "toolspec.toml").write_text("exclude = []\n"),
            1,
            "excluded/stale.toolspec::stale",
        ),
    ]
    w = Watch(tree)
    try:
        printed = watch_agrees(w, tree, "the first run")
        assert "2/4 passed" in printed, printed
        status, _ = agree(tree, monkeypatch)
        assert status == 0
        for step, edit, expected, shown in steps:
            w.settle()
            edit()
            printed = watch_agrees(w, tree, step)
            assert shown in printed, f"{step}: {printed}"
            assert "nothing changed since the last run" not in printed, f"{step}: {printed}"
            status, _ = agree(tree, monkeypatch)
            assert status == expected, step
    finally:
        w.stop()


def test_pre_commit_on_a_staged_run_judges_the_rate_over_all_runs(tmp_path: Path) -> None:
    """`pre-commit` with one failing run staged: the hook judges its spec's `pass_rate` over
    every run, as `toolspec check` does (`--whole-rates`), not over the staged one (0/1)."""
    tree = make_project(tmp_path / "project", 1)
    use_the_hooks(tree)
    git(tree, "add", "-A")
    git(tree, "commit", "-q", "-m", "runs")
    booking = tree / "runs" / "booking"
    for name, status, rate in (("3.json", 0, "2/4 passed"), ("2.json", 1, "1/4 passed")):
        (booking / name).write_text(run("OAK"))
        git(tree, "add", str(booking / name))
        check_out, _ = check_now(tree)
        assert (cli(tree, "check").returncode == 0) is (status == 0)
        assert rate in check_out
        out = pre_commit(tree, "run", "toolspec", "--verbose")
        text = out.stdout + out.stderr
        assert (out.returncode == 0) is (status == 0), text
        assert rate in text, text
        assert f"runs/booking/{name}" in text, text
        git(tree, "commit", "-q", "-m", name)


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

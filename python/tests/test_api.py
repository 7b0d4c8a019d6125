"""The Python API agrees with the command line on the bundled examples, pair by pair, for
transcripts given as paths, as bytes and as Python objects; its errors carry the diagnostics."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Dict, List

import pytest

import toolspec
from toolspec.testing import assert_passes

from conftest import ROOT, cli_json, run_cli


def pairs(report: Any) -> List[Dict[str, Any]]:
    results = report["results"]
    assert len(results) == 12, "the examples check 12 pairs"
    return results


def ids(report: Any) -> List[str]:
    return [f"{r['spec']}-{Path(r['transcript']).name}" for r in report["results"]]


def strip_places(v: Any) -> Any:
    """`v` without byte offsets and line/columns of the transcript: a transcript re-serialized
    from Python objects holds the same calls at other places."""
    if isinstance(v, dict):
        return {
            k: strip_places(x)
            for k, x in v.items()
            if k not in ("location", "transcript", "span")
        }
    if isinstance(v, list):
        return [strip_places(x) for x in v]
    return v


def test_every_pair_checked_by_path_is_the_command_lines_result(example_report: Any) -> None:
    for expected in pairs(example_report):
        report = toolspec.check(
            expected["spec_file"], expected["transcript"], spec_name=expected["spec"]
        )
        got = [r.raw for r in report.results]
        assert got == [expected], expected["transcript"]
        r = report.results[0]
        assert (r.spec, r.passed, r.score) == (
            expected["spec"],
            expected["passed"],
            expected["score"],
        )
        assert report.passed is expected["passed"]
        # And as an os.PathLike.
        again = toolspec.check(
            Path(expected["spec_file"]), Path(expected["transcript"]), spec_name=expected["spec"]
        )
        assert [x.raw for x in again.results] == [expected]


def test_every_pair_checked_from_bytes_is_the_command_lines_result_on_stdin(
    example_report: Any,
) -> None:
    for by_path in pairs(example_report):
        data = (ROOT / by_path["transcript"]).read_bytes()
        expected = [
            r
            for r in cli_json(["check", "--spec", by_path["spec_file"], "--format", "json", "-"], data)[
                "results"
            ]
            if r["spec"] == by_path["spec"]
        ]
        report = toolspec.check(by_path["spec_file"], data, spec_name=by_path["spec"])
        assert [r.raw for r in report.results] == expected, by_path["transcript"]
        # Read from bytes, the transcript is detected and checked as its file is.
        for r in report.results:
            assert r.transcript == "<stdin>"
            assert (r.format, r.passed, r.score) == (
                by_path["format"],
                by_path["passed"],
                by_path["score"],
            ), by_path["transcript"]


def test_every_json_transcript_given_as_python_objects_is_checked_as_its_file(
    example_report: Any,
) -> None:
    checked = 0
    for by_path in pairs(example_report):
        path = ROOT / by_path["transcript"]
        try:
            objects = json.loads(path.read_bytes())
        except json.JSONDecodeError:
            # JSON lines and logs are not one Python value; `bytes` covers them.
            continue
        report = toolspec.check(by_path["spec_file"], objects, spec_name=by_path["spec"])
        assert len(report.results) == 1
        got = report.results[0].raw
        assert strip_places(got) == strip_places(by_path), by_path["transcript"]
        checked += 1
    assert checked == 7, "seven example transcripts are single JSON documents"


def test_messages_as_a_list_of_dicts_are_detected() -> None:
    request = json.loads((ROOT / "examples/runs/refund/2025-06-03-openai.request.json").read_text())
    report = toolspec.check("examples/prompts/refund.toolspec", request["messages"])
    assert report.passed, report.explain()
    assert report.results[0].format == "openai-chat"


def test_the_failing_example_explains_itself_with_findings() -> None:
    report = toolspec.check(
        "examples/prompts/refund.toolspec",
        "examples/runs/refund/2025-06-07-openai-skipped-check.request.json",
    )
    assert not report.passed
    (r,) = report.results
    codes = {f.code for f in r.findings}
    assert "missing-call" in codes
    missing = next(f for f in r.findings if f.code == "missing-call")
    assert missing.expectation == "eligibility"
    assert missing.severity == "error"
    assert any(f.call is not None for f in r.findings), r.findings
    text = r.explain()
    assert "missing-call" in text and "check_refund_eligibility" in text
    assert "FAIL" in text and "refund_flow" in text
    assert "\x1b[" not in text
    # One result is not a run: no counts line (it said `1 checked: 0 specs, 0 transcripts`).
    assert " checked: " not in text and " specs, " not in text, text
    assert text.rstrip("\n").splitlines()[-1].startswith("FAIL"), text
    with pytest.raises(AssertionError, match="missing-call"):
        assert_passes("examples/prompts/refund.toolspec", (ROOT / r.transcript).read_bytes())


def test_assert_passes_returns_the_report_of_a_passing_run() -> None:
    report = assert_passes(
        "examples/prompts/refund.toolspec", "examples/runs/refund/2025-06-03-openai.request.json"
    )
    assert report.passed


def test_a_spec_given_as_source_text() -> None:
    spec = 'spec lookup {\n  call get_order(order_id: /^ORD-/)\n}\n'
    report = toolspec.check(spec, "examples/runs/refund/2025-06-03-openai.request.json")
    assert report.passed and report.results[0].spec == "lookup"
    with pytest.raises(toolspec.ToolspecError, match="no spec named 'other'"):
        toolspec.check(spec, "examples/runs/refund/2025-06-03-openai.request.json", spec_name="other")


def test_a_compiled_spec_checks_as_check_does(example_report: Any) -> None:
    specs: Dict[str, toolspec.Spec] = {}
    for expected in pairs(example_report):
        spec_file, transcript = expected["spec_file"], expected["transcript"]
        spec = specs.setdefault(spec_file, toolspec.Spec(spec_file))
        data = (ROOT / transcript).read_bytes()
        for given in (transcript, data):
            if isinstance(given, bytes) and len(spec.names) > 1:
                continue  # bytes need a spec name in a file of several specs (tested below)
            report = toolspec.check(spec_file, given)
            got = spec.check(given)
            assert [r.raw for r in got.results] == [r.raw for r in report.results], transcript
            assert got.passed is report.passed
            assert spec.passes(given) is report.passed
            assert [r.explain() for r in got.results] == [r.explain() for r in report.results]
        named = toolspec.Spec(spec_file, name=expected["spec"])
        assert [r.raw for r in named.check(transcript).results] == [expected]
        assert named.passes(transcript) is expected["passed"]
    assert specs and all(s.names for s in specs.values())


def test_check_compiles_a_spec_once_and_again_when_it_changes(tmp_path: Path) -> None:
    spec = tmp_path / "s.toolspec"
    spec.write_text('spec a {\n  call get_order(order_id: /^ORD-/)\n}\n')
    run = "examples/runs/refund/2025-06-03-openai.request.json"
    first = toolspec._cached_spec(str(spec), None, True)
    assert toolspec._cached_spec(str(spec), None, True) is first
    assert toolspec.check(str(spec), run, allow_outside_root=True).results[0].spec == "a"
    spec.write_text('spec renamed {\n  call get_order(order_id: /^ORD-/)\n}\n# longer\n')
    assert toolspec._cached_spec(str(spec), None, True) is not first
    assert toolspec.check(str(spec), run, allow_outside_root=True).results[0].spec == "renamed"


def test_check_compiles_a_spec_again_when_a_file_it_includes_changes(tmp_path: Path) -> None:
    """The cache sees an edited include at any depth, for a spec file and for spec text."""
    (tmp_path / "tools.toolspec").write_text('include "deep.toolspec"\n')
    deep = tmp_path / "deep.toolspec"
    deep.write_text("tool get_order(order_id: /^ORD-/)\n")
    spec = tmp_path / "s.toolspec"
    spec.write_text('include "tools.toolspec"\nspec a {\n  call get_order()\n}\n')
    run = os.path.abspath("examples/runs/refund/2025-06-03-openai.request.json")
    text = spec.read_text()
    for given, root in ((str(spec), None), (text, str(tmp_path))):
        first = toolspec._cached_spec(given, None, True, root)
        assert sorted(os.path.realpath(p) for p in first._compiled.includes) == sorted(
            os.path.realpath(tmp_path / n) for n in ("deep.toolspec", "tools.toolspec")
        )
        assert toolspec._cached_spec(given, None, True, root) is first
        assert toolspec.check(given, run, allow_outside_root=True, root=root).passed
        deep.write_text("tool get_order(order_id: /^NEVER-/)\n# now longer than before\n")
        again = toolspec._cached_spec(given, None, True, root)
        assert again is not first
        assert not toolspec.check(given, run, allow_outside_root=True, root=root).passed
        deep.write_text("tool get_order(order_id: /^ORD-/)\n")


def test_a_compiled_spec_explains_a_spec_given_as_text() -> None:
    spec = toolspec.Spec('spec lookup {\n  call no_such_tool()\n}\n')
    assert spec.names == ["lookup"] and spec.path == "spec.toolspec"
    report = spec.check("examples/runs/refund/2025-06-03-openai.request.json")
    assert not report.passed
    text = report.explain()
    assert "no_such_tool" in text and "spec.toolspec" in text, text
    with pytest.raises(toolspec.ToolspecError, match="no spec named 'other'"):
        toolspec.Spec('spec lookup {\n  call a()\n}\n', name="other")
    with pytest.raises(toolspec.TranscriptError):
        spec.check("no/such/run.json")


def test_calls_are_the_command_lines_calls() -> None:
    for path in sorted((ROOT / "examples/runs").rglob("*")):
        if not path.is_file():
            continue
        rel = str(path.relative_to(ROOT))
        expected = cli_json(["calls", "--json", rel])
        assert toolspec.calls(rel) == expected, rel
        assert toolspec.calls(path.read_bytes()) == expected, rel


def test_compile_is_the_command_lines_config() -> None:
    for path in sorted((ROOT / "examples/prompts").glob("*.toolspec")):
        rel = str(path.relative_to(ROOT))
        expected = cli_json(["compile", rel])
        assert toolspec.compile(rel) == expected, rel


def test_a_spec_that_does_not_compile_raises_with_its_diagnostics() -> None:
    with pytest.raises(toolspec.SpecError) as e:
        toolspec.compile("spec broken {\n  call get_order(order_id: ord.args.x)\n}\n")
    assert e.value.diagnostics and e.value.diagnostics[0]["severity"] == "error"
    assert e.value.diagnostics[0]["code"]
    with pytest.raises(toolspec.SpecError) as e:
        toolspec.check("spec broken {\n  call (\n}\n", b"[]")
    assert e.value.diagnostics[0]["code"].startswith("toolspec::")
    assert "spec.toolspec" in str(e.value)


def test_an_unreadable_transcript_raises_with_its_diagnostics() -> None:
    with pytest.raises(toolspec.TranscriptError) as e:
        toolspec.check("examples/prompts/refund.toolspec", "no/such/run.json")
    assert e.value.diagnostics
    with pytest.raises(toolspec.TranscriptError):
        toolspec.calls(b"\x00 not a transcript")
    with pytest.raises(toolspec.TranscriptError) as e:
        toolspec.Spec("examples/prompts/refund.toolspec").passes("no/such/run.json")
    assert e.value.diagnostics
    with pytest.raises(TypeError, match="cannot read a"):
        toolspec.check("examples/prompts/refund.toolspec", [object()])


def test_check_project_keeps_every_result_it_could_check_when_a_file_is_unreadable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One unreadable transcript raises, and the error's report still holds every other
    result, as `toolspec check` prints them beside the error."""
    runs = tmp_path / "runs"
    runs.mkdir()
    good = ROOT / "examples/runs/refund/2025-06-03-openai.request.json"
    (runs / "good.json").write_bytes(good.read_bytes())
    (runs / "broken.json").write_text('{"messages": [')
    (tmp_path / "s.toolspec").write_text(
        'spec a {\n  transcripts "runs/*.json"\n  call get_order(order_id: /^ORD-/)\n}\n'
    )
    # Errors of every other call carry no report.
    with pytest.raises(toolspec.TranscriptError) as e2:
        toolspec.check("examples/prompts/refund.toolspec", "no/such/run.json")
    assert e2.value.report is None
    monkeypatch.chdir(tmp_path)
    with pytest.raises(toolspec.ToolspecError) as e:
        toolspec.check_project()
    report = e.value.report
    assert report is not None and not report.passed
    assert [Path(r.transcript).name for r in report.results] == ["good.json"]
    assert report.results[0].passed
    assert report.raw["errors"] == e.value.diagnostics and e.value.diagnostics
    assert "broken.json" in str(e.value)


def test_the_command_is_the_binarys_command() -> None:
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-m", "toolspec", "check", "examples", "--format", "json"],
        cwd=ROOT,
        capture_output=True,
    )
    assert out.returncode == 1
    assert json.loads(out.stdout) == cli_json(["check", "examples", "--format", "json"])
    usage = subprocess.run([sys.executable, "-m", "toolspec", "nope"], capture_output=True)
    assert usage.returncode == 2
    version = run_cli(["--version"])
    assert toolspec.__version__ in version.stdout.decode()


def test_a_pass_rate_is_judged_over_the_transcripts_checked() -> None:
    """A spec with `pass_rate >= 0.75`: over one transcript the rate is its verdict; over the
    whole dataset, 3 runs of 4 pass and the report passes with a failing result listed."""
    fixture = ROOT / "tests/cmd/rate.in"
    spec = fixture / "met.toolspec"
    good = toolspec.check(spec, fixture / "runs/booking/a.openai.json")
    assert good.passed
    assert [r["total"] for r in good.rates] == [1]
    bad = toolspec.check(spec, fixture / "runs/booking/d.anthropic.json", spec_name="booking")
    assert not bad.passed
    assert [(r["passed"], r["total"], r["met"]) for r in bad.rates] == [(0, 1, False)]
    assert [f.severity for f in bad.results[0].findings] == ["warning"]
    dataset = cli_json(["check", str(spec), "--format", "json"])
    assert [(r["passed"], r["total"], r["met"]) for r in dataset["rates"]] == [(3, 4, True)]
    assert run_cli(["check", str(spec)]).returncode == 0


def test_a_path_is_checked_against_the_specs_whose_globs_name_it() -> None:
    """The bundled coding file holds a Claude Code spec and a Codex spec: a Claude Code run
    given by path is checked against the spec whose globs name it, as `toolspec check` checks
    it, not failed by its sibling (which scores it 0.0)."""
    spec, run = "examples/prompts/coding.toolspec", "examples/runs/coding/claude-code-session.jsonl"
    report = toolspec.check(spec, run)
    assert report.passed, report.explain()
    assert [r.spec for r in report.results] == ["claude_code_fix"]
    assert report.raw["summary"]["specs"] == 1
    assert assert_passes(spec, run).passed
    assert toolspec.Spec(spec).passes(run) is True
    cli = cli_json(["check", run, "--format", "json"])
    assert [r.raw for r in report.results] == cli["results"]
    # `spec_name` picks a spec whatever its globs say.
    sibling = toolspec.check(spec, run, spec_name="codex_fix")
    assert not sibling.passed and [r.spec for r in sibling.results] == ["codex_fix"]
    assert toolspec.Spec(spec, name="codex_fix").passes(run) is False


def test_bytes_and_objects_need_a_spec_name_in_a_file_of_several_specs() -> None:
    spec = "examples/prompts/coding.toolspec"
    data = (ROOT / "examples/runs/coding/claude-code-session.jsonl").read_bytes()
    for call in (
        lambda: toolspec.check(spec, data),
        lambda: toolspec.Spec(spec).check(data),
        lambda: toolspec.Spec(spec).passes(data),
        lambda: assert_passes(spec, data),
        # A path no glob of the file names, as bytes.
        lambda: toolspec.check(spec, "examples/runs/refund/2025-06-03-openai.request.json"),
    ):
        with pytest.raises(toolspec.ToolspecError) as e:
            call()
        assert "`claude_code_fix`, `codex_fix`" in str(e.value), str(e.value)
        assert "spec_name=" in str(e.value)
    report = assert_passes(spec, data, spec_name="claude_code_fix")
    assert [r.spec for r in report.results] == ["claude_code_fix"]
    assert toolspec.Spec(spec, name="claude_code_fix").passes(data) is True

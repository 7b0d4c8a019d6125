"""The root guard at every door of the Python package: a spec given as text or as a path, its
includes, a transcript path, a project path, the pytest plugin, `assert_passes` and the
command run through the module. A fake credentials file outside a temporary project never
appears in any output (exception text, diagnostics, JSON, stdout, stderr); a refusal names the
path and why; `allow_outside_root=True` (`--allow-outside-root`) widens what is read, and `root=`
states the project root instead of finding it from the current folder."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable, Tuple

import pytest

import toolspec
from toolspec.testing import assert_passes


SECRET = "AKIAFAKE0PYTHON0GUARD"

#: A run with one `lookup(q: "x")` call.
RUN = (
    '{"messages": [{"role": "user", "content": "find x"}, {"role": "assistant", "content": null, '
    '"tool_calls": [{"id": "c1", "type": "function", "function": {"name": "lookup", '
    '"arguments": "{\\"q\\": \\"x\\"}"}}]}, {"role": "tool", "tool_call_id": "c1", '
    '"content": "found"}]}'
)

SPEC_BODY = 'spec leak {\n  transcripts "runs/*.json"\n  call lookup(q: "x")\n}\n'


def including(target: str) -> str:
    return f'include "{target}"\n{SPEC_BODY}'


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Tuple[Path, Path]:
    """`tmp/repo` (a git repository with a good run, the current folder) and `tmp/outside`
    holding a credentials file and a transcript-like file, neither a spec nor JSON: were either
    read, its parse error would quote it."""
    repo = tmp_path / "repo"
    outside = tmp_path / "outside"
    (repo / ".git").mkdir(parents=True)
    (repo / "runs").mkdir()
    outside.mkdir()
    (outside / "credentials").write_text(f"[default]\naws_access_key_id = {SECRET}\n")
    (outside / "secret.json").write_text(f'{{"aws_access_key_id": "{SECRET}" oops')
    (repo / "runs/good.json").write_text(RUN)
    (repo / "runs/link.json").symlink_to(outside / "secret.json")
    (repo / "creds.toolspec").symlink_to(outside / "credentials")
    monkeypatch.chdir(repo)
    return repo, outside


def texts(project: Tuple[Path, Path]) -> "dict[str, str]":
    """Spec texts that include the credentials: by a relative path, an absolute path, and a
    committed link."""
    _, outside = project
    return {
        "relative": including("../outside/credentials"),
        "absolute": including(str(outside / "credentials")),
        "link": including("creds.toolspec"),
    }


def refused(call: Callable[[], Any], exc: type = toolspec.ToolspecError) -> BaseException:
    """Run `call`, which must raise `exc` without a trace of the secret anywhere in it."""
    with pytest.raises(exc) as e:
        call()
    seen = str(e.value) + json.dumps(getattr(e.value, "diagnostics", []))
    assert SECRET not in seen, seen
    assert "aws_access_key_id" not in seen, seen
    return e.value


def test_spec_text_cannot_include_a_file_outside_the_root(project: Tuple[Path, Path]) -> None:
    repo, _ = project
    for how, text in texts(project).items():
        for call in (
            lambda: toolspec.Spec(text),
            lambda: toolspec.check(text, RUN.encode()),
            lambda: toolspec.check(text, "runs/good.json"),
            lambda: toolspec.compile(text),
            lambda: assert_passes(text, RUN.encode()),
            lambda: toolspec.Spec(text, root=repo),
        ):
            e = refused(call, toolspec.SpecError)
            assert "include-not-found" in json.dumps(e.diagnostics), how  # type: ignore[attr-defined]
            assert "outside the project root" in str(e), (how, str(e))
    # Inside the root, an include is read (relative to the root, where the text is taken to be).
    (repo / "tools.toolspec").write_text("tool lookup(q: type string)\n")
    text = including("tools.toolspec")
    assert toolspec.Spec(text).check(RUN.encode()).passed
    assert toolspec.compile(text)["specs"][0]["name"] == "leak"


def test_a_spec_file_or_its_include_outside_the_root_is_refused(project: Tuple[Path, Path]) -> None:
    repo, _ = project
    for how, text in texts(project).items():
        spec = repo / f"{how}.toolspec"
        spec.write_text(text)
        for call in (
            lambda: toolspec.Spec(spec),
            lambda: toolspec.check(str(spec), "runs/good.json"),
            lambda: toolspec.compile(spec),
        ):
            refused(call, toolspec.SpecError)
        spec.unlink()
    # The spec file itself a link out of the project.
    for call in (
        lambda: toolspec.Spec("creds.toolspec"),
        lambda: toolspec.compile("creds.toolspec"),
        lambda: toolspec.check("creds.toolspec", RUN.encode()),
    ):
        e = refused(call, toolspec.SpecError)
        assert "outside the project root" in str(e), str(e)


def test_a_transcript_path_outside_the_root_is_refused(project: Tuple[Path, Path]) -> None:
    _, outside = project
    spec = toolspec.Spec(SPEC_BODY)
    for path in ("runs/link.json", str(outside / "secret.json")):
        for call in (
            lambda: spec.check(path),
            lambda: spec.passes(path),
            lambda: toolspec.check(SPEC_BODY, path),
            lambda: toolspec.calls(path),
            lambda: toolspec.calls_by_transcript(path),
        ):
            e = refused(call, toolspec.TranscriptError)
            assert "outside the project root" in str(e), str(e)
    assert spec.check("runs/good.json").passed
    assert toolspec.calls("runs/good.json")[0]["name"] == "lookup"


def test_allow_outside_root_widens_what_is_read(project: Tuple[Path, Path]) -> None:
    """What the guard keeps out: once allowed, the files are read, and their parse errors quote
    them (so the tests above would see a leak)."""
    _, outside = project
    text = texts(project)["relative"]
    with pytest.raises(toolspec.SpecError) as e:
        toolspec.Spec(text, allow_outside_root=True)
    assert SECRET in str(e.value)
    with pytest.raises(toolspec.SpecError) as e:
        toolspec.compile(text, allow_outside_root=True)
    assert SECRET in str(e.value)
    with pytest.raises(toolspec.TranscriptError) as e:
        toolspec.calls(str(outside / "secret.json"), allow_outside_root=True)
    assert SECRET in str(e.value)
    (outside / "run.json").write_text(RUN)
    assert toolspec.check(SPEC_BODY, str(outside / "run.json"), allow_outside_root=True).passed


def test_root_states_the_project_root(project: Tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """`root=` is the project root whatever the current folder: text is taken to lie there, and
    what lies outside it is refused."""
    repo, outside = project
    (repo / "tools.toolspec").write_text("tool lookup(q: type string)\n")
    monkeypatch.chdir(outside)
    text = including("tools.toolspec")
    assert toolspec.Spec(text, root=repo).check(str(repo / "runs/good.json")).passed
    assert toolspec.compile(text, root=repo)["specs"][0]["name"] == "leak"
    refused(lambda: toolspec.Spec(texts(project)["relative"], root=repo), toolspec.SpecError)
    refused(lambda: toolspec.calls(str(outside / "secret.json"), root=repo), toolspec.TranscriptError)
    # A root inside the repository: the repository's other files are outside it.
    (repo / "sub").mkdir()
    refused(lambda: toolspec.Spec(including("../tools.toolspec"), root=repo / "sub"), toolspec.SpecError)


def test_a_project_check_stays_inside_the_root(project: Tuple[Path, Path]) -> None:
    repo, outside = project
    for how, text in texts(project).items():
        (repo / f"{how}.toolspec").write_text(text)
    e = refused(lambda: toolspec.check_project())
    codes = [d["code"] for d in e.diagnostics]  # type: ignore[attr-defined]
    assert codes.count("toolspec::include-not-found") == 3, codes
    # A folder outside the root is refused at once, before anything under it is walked.
    for path in ("/", "..", str(outside)):
        e = refused(lambda: toolspec.check_project(path))
        assert [d["code"] for d in e.diagnostics] == ["path-refused"], e.diagnostics  # type: ignore[attr-defined]
        assert "outside the project root" in str(e), str(e)


def test_the_pytest_plugin_and_the_command_never_show_the_secret(project: Tuple[Path, Path]) -> None:
    repo, _ = project
    for how, text in texts(project).items():
        (repo / f"{how}.toolspec").write_text(text)
    runs = [
        [sys.executable, "-m", "pytest", "--toolspec", ".", "-p", "no:cacheprovider", "-rf"],
        [sys.executable, "-m", "toolspec", "check", "--format", "json"],
        [sys.executable, "-m", "toolspec", "compile", "relative.toolspec"],
        [sys.executable, "-m", "toolspec", "compile", "creds.toolspec"],
        [sys.executable, "-m", "toolspec", "calls", "runs/link.json"],
        [sys.executable, "-m", "toolspec", "fmt", "--check", "creds.toolspec"],
    ]
    for args in runs:
        out = subprocess.run(args, cwd=repo, capture_output=True, text=True)
        seen = out.stdout + out.stderr
        assert SECRET not in seen, (args, seen)
        assert out.returncode != 0, (args, seen)
    out = subprocess.run(runs[0], cwd=repo, capture_output=True, text=True)
    assert "include-not-found" in out.stdout, out.stdout

"""toolspec: check the tool calls of AI agent runs against `.toolspec` specs.

Declare in a `.toolspec` file which tools an agent must call, with which arguments and in which
order; then check recorded runs against it, from Python::

    import toolspec

    report = toolspec.check("prompts/refund.toolspec", messages)
    assert report.passed, report.explain()

`check` reads a transcript from a path, from bytes, or from the Python objects a run produced
(the messages of an OpenAI, Anthropic, LangChain or Vercel AI SDK run, a Responses item list, a
dict), detecting the format as `toolspec check` does for files. Everything runs in this process.
"""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Union

from . import _toolspec

__all__ = [
    "Expectation",
    "Finding",
    "Report",
    "Result",
    "SpecError",
    "ToolspecError",
    "TranscriptError",
    "calls",
    "calls_by_transcript",
    "check",
    "check_project",
    "compile",
]

__version__: str = _toolspec.VERSION

#: Width of the human text of `explain()` and of error messages.
TEXT_WIDTH = 100


class ToolspecError(Exception):
    """Something could not be checked: a spec that does not compile, a transcript that cannot
    be read, an unknown format or spec name.

    `str(error)` is the human text `toolspec` prints; `diagnostics` holds each problem as a dict
    with at least `code`, `severity` and `message` (the `errors` of `toolspec check --format
    json`, or a spec's compile diagnostics)."""

    def __init__(self, message: str, diagnostics: Sequence[Dict[str, Any]] = ()) -> None:
        super().__init__(message)
        self.diagnostics: List[Dict[str, Any]] = list(diagnostics)


class SpecError(ToolspecError):
    """A spec that cannot be read or does not compile."""


class TranscriptError(ToolspecError):
    """A transcript that cannot be read (not found, not a known format, malformed)."""


@dataclass(frozen=True)
class Finding:
    """One thing wrong (or worth knowing) about a run."""

    #: Stable code, e.g. `missing-call`, `arg-mismatch`.
    code: str
    #: `error`, `warning` or `info`.
    severity: str
    #: What is wrong, in one sentence.
    message: str
    #: How to fix it, if there is something to say.
    help: Optional[str]
    #: Position (0-based) of the call the finding is about among the transcript's calls, when
    #: it is about a call an expectation matched; `None` otherwise (a missing call, an extra one).
    call: Optional[int]
    #: The label of the expectation it comes from (`refund` in `refund: call issue_refund(...)`),
    #: if the expectation has one.
    expectation: Optional[str]
    #: Where it is in the transcript: `file`, `line`, `column`, `end_line`, `end_column`,
    #: `span` (byte offsets); `None` when it has no place.
    location: Optional[Dict[str, Any]]
    #: Where the expectation or rule it comes from is written in the spec.
    related: Optional[Dict[str, Any]]


@dataclass(frozen=True)
class Expectation:
    """How one expectation of the spec fared."""

    index: int
    tool: str
    label: Optional[str]
    #: `matched`, `name_only`, `missing`, ...
    status: str
    passed: bool
    #: Positions (0-based) of the calls it matched.
    calls: List[int]
    #: Why it is not met (empty when met).
    reasons: List[str]


@dataclass(frozen=True)
class Result:
    """The result of one spec on one transcript."""

    #: The spec's name.
    spec: str
    #: The spec file, as the report shows it.
    spec_file: str
    #: The transcript, as the report shows it (`<stdin>` for bytes and Python objects).
    transcript: str
    #: For a dataset file (one transcript per line), the 1-based line of this transcript.
    record: Optional[int]
    #: The transcript format read (e.g. `openai-chat`).
    format: str
    passed: bool
    #: Score in [0, 1].
    score: float
    threshold: float
    #: For a failed pair, what failed it besides the score (e.g. ``forbidden call `x` ``).
    failure: Optional[str]
    findings: List[Finding]
    expectations: List[Expectation]
    #: The result exactly as `toolspec check --format json` writes it.
    raw: Dict[str, Any] = field(repr=False)
    _checked: Any = field(repr=False, compare=False, default=None)
    _index: int = field(repr=False, compare=False, default=0)

    def explain(self) -> str:
        """The human report of this result, as `toolspec check` prints it: each finding with
        the transcript and spec lines it points at, then the verdict line."""
        return self._checked.explain(self._index, TEXT_WIDTH)

    def __bool__(self) -> bool:
        return self.passed


class Report:
    """What a check found: one `Result` per spec × transcript checked.

    The results are built when first asked for: `passed` alone reads nothing but the verdicts."""

    def __init__(self, checked: Any, spec_name: Optional[str] = None) -> None:
        self._checked = checked
        self._spec_name = spec_name
        self._raw: Optional[Dict[str, Any]] = None
        self._results: Optional[List[Result]] = None

    @property
    def raw(self) -> Dict[str, Any]:
        """The whole report exactly as `toolspec check --format json` writes it."""
        if self._raw is None:
            self._raw = json.loads(self._checked.json)
        return self._raw

    @property
    def results(self) -> List[Result]:
        """One `Result` per spec × transcript, in the report's order."""
        if self._results is None:
            results = [_result(r, self._checked, i) for i, r in enumerate(self.raw["results"])]
            if self._spec_name is not None:
                results = [r for r in results if r.spec == self._spec_name]
            self._results = results
        return self._results

    @property
    def warnings(self) -> List[Dict[str, Any]]:
        """Warnings about the run (e.g. a transcript without a single call), as the JSON report
        writes them."""
        return self.raw["warnings"]

    @property
    def passed(self) -> bool:
        """True when every result passed (and there is at least one)."""
        if self._spec_name is None:
            return bool(self._checked.passed)
        return bool(self.results) and all(r.passed for r in self.results)

    @property
    def failed(self) -> List[Result]:
        """The results that did not pass."""
        return [r for r in self.results if not r.passed]

    def explain(self) -> str:
        """The human report of every result, failed ones first."""
        ordered = self.failed + [r for r in self.results if r.passed]
        return "\n".join(r.explain() for r in ordered)

    def __bool__(self) -> bool:
        return self.passed

    def __repr__(self) -> str:
        return f"<toolspec.Report passed={self.passed} results={len(self.results)}>"


PathLike = Union[str, "os.PathLike[str]"]
#: A transcript: a path, the file's bytes, or the Python objects a run produced.
Transcript = Any


def _spec_path(spec: Any, tmp: List[tempfile.TemporaryDirectory]) -> str:
    """A path for `spec`: a path as given, or source text written to a temporary file."""
    if isinstance(spec, os.PathLike):
        return os.fspath(spec)
    if not isinstance(spec, str):
        raise TypeError(f"spec must be a path or spec source text, not {type(spec).__name__}")
    if "\n" not in spec and (os.path.exists(spec) or spec.endswith(".toolspec")):
        return spec
    d = tempfile.TemporaryDirectory(prefix="toolspec-")
    tmp.append(d)
    path = os.path.join(d.name, "spec.toolspec")
    with open(path, "w", encoding="utf-8") as f:
        f.write(spec)
    return path


def _plain(v: Any) -> Any:
    """`json.dumps`'s `default`: what JSON has no type for, as the JSON it stands for."""
    if hasattr(v, "model_dump"):  # pydantic v2: the OpenAI and Anthropic SDKs, LangChain
        return v.model_dump(mode="json")
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        return dataclasses.asdict(v)
    if isinstance(v, Mapping):
        return dict(v)
    if isinstance(v, (Sequence, Set)) and not isinstance(v, (str, bytes, bytearray)):
        return list(v)
    raise TypeError(
        f"cannot read a {type(v).__name__} as part of a transcript: give dicts, lists, strings, "
        "numbers, booleans, None, pydantic models or dataclasses (or the transcript's path or bytes)"
    )


def _transcript(t: Any) -> Any:
    """A path or bytes for the extension: Python objects as their JSON text."""
    if isinstance(t, os.PathLike):
        return os.fspath(t)
    if isinstance(t, (str, bytes, bytearray)):
        return t
    try:
        text = json.dumps(t, default=_plain, allow_nan=False, ensure_ascii=False, separators=(",", ":"))
    except ValueError as e:
        raise ValueError(f"this transcript is not JSON: {e}") from None
    return text.encode("utf-8")


def _innermost(span: List[int], spans: List[tuple]) -> Any:
    """The value of the smallest `(value, (start, end))` of `spans` that holds `span`."""
    s, e = span
    best = None
    for value, (vs, ve) in spans:
        if vs <= s and e <= ve and (best is None or ve - vs < best[1]):
            best = (value, ve - vs)
    return best[0] if best else None


def _finding(f: Dict[str, Any], calls: List[tuple], labels: List[tuple]) -> Finding:
    loc = f.get("location")
    rel = f.get("related")
    call = _innermost(loc["span"], calls) if loc is not None else None
    label = None
    if rel is not None:
        label = _innermost(rel["span"], [(x, sp) for (x, f_, sp) in labels if f_ == rel["file"]])
    return Finding(
        code=f["code"],
        severity=f["severity"],
        message=f["message"],
        help=f.get("help"),
        call=call,
        expectation=label,
        location=loc,
        related=rel,
    )


def _result(r: Dict[str, Any], checked: Any, index: int) -> Result:
    calls = []
    labels: List[tuple] = []
    expectations = []
    for x in r["expectations"]:
        for c in x["calls"]:
            if c.get("location") is not None:
                calls.append((c["index"], tuple(c["location"]["span"])))
        if x.get("location") is not None:
            loc = x["location"]
            labels.append((x.get("label"), loc["file"], tuple(loc["span"])))
        expectations.append(
            Expectation(
                index=x["index"],
                tool=x["tool"],
                label=x.get("label"),
                status=x["status"],
                passed=x["passed"],
                calls=[c["index"] for c in x["calls"]],
                reasons=list(x["reasons"]),
            )
        )
    return Result(
        spec=r["spec"],
        spec_file=r["spec_file"],
        transcript=r["transcript"],
        record=r.get("record"),
        format=r["format"],
        passed=r["passed"],
        score=r["score"],
        threshold=r["threshold"],
        failure=r.get("failure"),
        findings=[_finding(f, calls, labels) for f in r["findings"]],
        expectations=expectations,
        raw=r,
        _checked=checked,
        _index=index,
    )


def check(
    spec: Union[PathLike, str],
    transcript: Transcript,
    *,
    spec_name: Optional[str] = None,
    input_format: Optional[str] = None,
    allow_outside_root: bool = False,
) -> Report:
    """Check `transcript` against the specs of `spec`.

    `spec` is the path of a `.toolspec` file, or spec source text. Every spec in it applies,
    whatever its `transcripts` globs say; `spec_name` keeps only the spec of that name.

    `transcript` is a path (`str` or `os.PathLike`), the bytes of a transcript file, or Python
    objects: the list of messages an OpenAI, Anthropic, LangChain or Vercel AI SDK run produced,
    a Responses item list, a dict (pydantic models and dataclasses are dumped first). The format
    is detected as for files; `input_format` (e.g. `"openai-chat"`) forces one.

    Settings come from the `toolspec.toml` found from the current folder up, as for the command,
    and so does the project root: a spec or transcript file outside it (a pytest `tmp_path`) is
    read only with `allow_outside_root=True` (`--allow-outside-root`). Spec source text is
    written to a temporary file and read from there, as if that were allowed.

    Raises `SpecError` when the spec cannot be read or does not compile, `TranscriptError` when
    the transcript cannot be read, `ToolspecError` for an unknown `spec_name` or format.
    """
    tmp: List[tempfile.TemporaryDirectory] = []
    try:
        path = _spec_path(spec, tmp)
        try:
            checked = _toolspec.check_spec(
                path, _transcript(transcript), input_format, allow_outside_root or bool(tmp)
            )
        except ValueError as e:
            raise ToolspecError(str(e)) from None
        if checked.has_errors:
            raw = json.loads(checked.json)
            text = checked.problems(TEXT_WIDTH)
            spec_file = os.path.basename(path)
            spec_side = any(
                e["code"].startswith("toolspec::")
                or (e.get("location") or {}).get("file", "").endswith(".toolspec")
                or spec_file in e["message"]
                for e in raw["errors"]
            )
            cls = SpecError if spec_side else TranscriptError
            raise cls(text.rstrip("\n"), raw["errors"])
        report = Report(checked, spec_name)
        if spec_name is not None and not report.results:
            names = sorted({r["spec"] for r in report.raw["results"]})
            if names:
                where = "the spec text" if tmp else os.fspath(spec)
                raise ToolspecError(
                    f"no spec named {spec_name!r} in {where}; it has: {', '.join(names)}"
                )
        return report
    finally:
        for d in tmp:
            d.cleanup()


def check_project(*paths: PathLike) -> Report:
    """Check a project as `toolspec check PATHS...` does: every spec file under `paths` (folders
    are searched for `*.toolspec`; none: the current folder) against the transcripts its
    `transcripts` globs name.

    Raises `ToolspecError` (its `diagnostics`: the report's `errors`) when something could not
    be checked: a spec that does not compile, a transcript that cannot be read, a path that does
    not exist."""
    report, checked = _check_project([os.fspath(p) for p in paths])
    if report.raw["errors"]:
        raise ToolspecError(checked.problems(TEXT_WIDTH).rstrip("\n"), report.raw["errors"])
    return report


def _check_project(paths: List[str]) -> "tuple[Report, Any]":
    """The report of `toolspec check PATHS...`, errors included, and its handle for texts."""
    try:
        checked = _toolspec.check_paths(paths)
    except ValueError as e:
        raise ToolspecError(str(e)) from None
    return Report(checked), checked


def calls_by_transcript(
    transcript: Transcript, *, input_format: Optional[str] = None
) -> List[List[Dict[str, Any]]]:
    """The calls of every transcript `transcript` holds (a dataset file holds one per line),
    each call as `toolspec calls --json` prints it: `name`, `args`, `id`, `output`,
    `is_error`."""
    try:
        text = _toolspec.calls_json(_transcript(transcript), input_format)
    except ValueError as e:
        raise TranscriptError(str(e)) from None
    return json.loads(text)


def calls(transcript: Transcript, *, input_format: Optional[str] = None) -> List[Dict[str, Any]]:
    """The tool calls read from `transcript` (a path, bytes or Python objects, as for
    `check`), normalized: a list of `{"name", "args", "id", "output", "is_error"}`.

    Raises `TranscriptError` when it cannot be read, or holds several transcripts (use
    `calls_by_transcript`)."""
    all_calls = calls_by_transcript(transcript, input_format=input_format)
    if len(all_calls) == 1:
        return all_calls[0]
    if not all_calls:
        return []
    raise TranscriptError(
        f"this input holds {len(all_calls)} transcripts: use calls_by_transcript() for each one's calls"
    )


def compile(spec: Union[PathLike, str]) -> Dict[str, Any]:  # noqa: A001 (the command's name)
    """The matcher config `spec` compiles to, as `toolspec compile` prints it (a dict with the
    file's specs). `spec` is a path or spec source text.

    Raises `SpecError` (its `diagnostics`: `code`, `severity`, `message`, `text` each) when the
    spec cannot be read or does not compile."""
    if isinstance(spec, os.PathLike) or (
        isinstance(spec, str) and "\n" not in spec and (os.path.exists(spec) or spec.endswith(".toolspec"))
    ):
        name = os.fspath(spec)
        try:
            text = _toolspec.read_spec(name)
        except ValueError as e:
            raise SpecError(str(e)) from None
    elif isinstance(spec, str):
        name, text = "<spec>", spec
    else:
        raise TypeError(f"spec must be a path or spec source text, not {type(spec).__name__}")
    config, diags = _toolspec.compile_text(name, text)
    diagnostics = [
        {"code": c, "severity": s, "message": m, "text": t} for (c, s, m, t) in diags
    ]
    if config is None:
        raise SpecError(
            "\n".join(d["text"].rstrip("\n") for d in diagnostics) or f"{name} does not compile",
            diagnostics,
        )
    return json.loads(config)

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
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence, Set
from typing import Any, Dict, List, Optional, Tuple, Union

from . import _toolspec
from ._toolspec import (
    CODES,
    TEXT_WIDTH,
    Code,
    Expectation,
    Finding,
    Report,
    Result,
    Severity,
    SpecError,
    Stage,
    ToolspecError,
    TranscriptError,
)

__all__ = [
    "CODES",
    "Code",
    "Expectation",
    "Finding",
    "Report",
    "Result",
    "Severity",
    "Spec",
    "SpecError",
    "Stage",
    "TEXT_WIDTH",
    "ToolspecError",
    "TranscriptError",
    "calls",
    "calls_by_transcript",
    "check",
    "check_project",
    "compile",
]

__version__: str = _toolspec.VERSION


PathLike = Union[str, "os.PathLike[str]"]
#: A transcript: a path, the file's bytes, or the Python objects a run produced.
Transcript = Any


#: How spec source text is named: a file of this name at the project root, which its includes
#: and globs are relative to (reports show it relative to the current folder).
TEXT_SPEC_NAME = "spec.toolspec"


def _is_path(spec: str) -> bool:
    return "\n" not in spec and (spec.endswith(".toolspec") or os.path.exists(spec))


def _spec_source(spec: Any) -> "tuple[Optional[str], Optional[str]]":
    """The path of `spec`, or its text when it is source text rather than a path."""
    if isinstance(spec, str):
        if _is_path(spec):
            return spec, None
        return None, spec
    if isinstance(spec, os.PathLike):
        return os.fspath(spec), None
    raise TypeError(f"spec must be a path or spec source text, not {type(spec).__name__}")


def _root(root: Optional[PathLike]) -> Optional[str]:
    return None if root is None else os.fspath(root)


def _plain(v: Any) -> Any:
    """What JSON has no type for, as the JSON it stands for: the extension calls it for the
    objects of a transcript that are not dicts, lists, tuples, strings, numbers, booleans or
    None, as `json.dumps` calls its `default`."""
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
    """A path, bytes, or Python objects for the extension, which reads objects as the JSON
    document `json.dumps` would write for them (calling `_plain` for what JSON has no type
    for), without writing it."""
    if type(t) is list or type(t) is dict:  # the usual case, asked first
        return t
    if isinstance(t, os.PathLike):
        return os.fspath(t)
    return t


class Spec:
    """A spec file compiled once, to check many transcripts with.

    `source_or_path` is the path of a `.toolspec` file, or spec source text. Which of its specs
    check a transcript is chosen as `toolspec check` chooses them: a transcript given by path is
    checked against the specs whose `transcripts` globs name it; given as bytes or objects (or
    by a path no glob names), against the file's one spec. A file of several specs then needs
    `name` (`ToolspecError` names its specs otherwise); `name` always picks that spec, whatever
    its globs say.
    Settings (`toolspec.toml`) and the project root are found from the current folder when the
    `Spec` is built, as for the command (or `root` is the project root), and kept: each `check`
    then reads only the transcript. Spec source text is taken as a file `spec.toolspec` at the
    project root: its includes and globs are relative to the root. The spec file, its includes
    and transcript paths are read only inside the root, unless `allow_outside_root=True`.

        spec = toolspec.Spec("prompts/refund.toolspec")
        for run in runs:
            assert spec.check(run).passed

    Raises `SpecError` when the spec cannot be read or does not compile, `ToolspecError` for an
    unknown `name` (and, from `check`, when no spec is chosen for a transcript)."""

    def __init__(
        self,
        source_or_path: Union[PathLike, str],
        *,
        name: Optional[str] = None,
        allow_outside_root: bool = False,
        root: Optional[PathLike] = None,
    ) -> None:
        path, text = _spec_source(source_or_path)
        compiled = _toolspec.compile_spec(path, text, allow_outside_root, _root(root), name)
        names: List[str] = compiled.names
        self._compiled = compiled
        #: The spec kept (`None`: every spec of the file).
        self.name: Optional[str] = name
        #: The names of the file's specs.
        self.names: List[str] = names
        #: The spec file (`spec.toolspec` for source text).
        self.path: str = TEXT_SPEC_NAME if path is None else path
        #: The project root it was compiled under (links resolved): `root=` compiles it again
        #: under the same root and settings, in another process or folder.
        self.root: str = os.fspath(compiled.root)

    def check(self, transcript: "Transcript", *, input_format: Optional[str] = None) -> "Report":
        """Check `transcript` (a path, bytes or Python objects, as for `toolspec.check`).

        Raises `TranscriptError` when the transcript cannot be read, `ToolspecError` when the
        file holds several specs, none named and none whose globs name the transcript."""
        return self._compiled.check(_transcript(transcript), input_format, self.name)

    def passes(self, transcript: "Transcript", *, input_format: Optional[str] = None) -> bool:
        """Whether `transcript` passes: `check(transcript).passed`, decided without building
        the report (no result or finding is built), for loops that only sort runs into passed
        and failed::

            failed = [run for run in runs if not spec.passes(run)]

        Raises as `check` does (`TranscriptError` when the transcript cannot be read)."""
        return self._compiled.passes(_transcript(transcript), input_format, self.name)

    def __repr__(self) -> str:
        return f"<toolspec.Spec {self.path!r} specs={self.names}>"


#: Compiled specs `check` keeps, most recently used last, keyed by spec text (or path, size and
#: modification time), spec name, current folder, root and root option; each with the size and
#: modification time of every file its includes read, checked again on every use.
_CACHE: "OrderedDict[tuple, Tuple[Spec, tuple]]" = OrderedDict()
_CACHE_SIZE = 64
_CACHE_LOCK = threading.Lock()


def _stamps(spec: Spec) -> tuple:
    """The size and modification time of each file `spec`'s includes read (`None`: gone)."""
    out = []
    for p in spec._compiled.includes:
        try:
            st = os.stat(p)
            out.append((st.st_mtime_ns, st.st_size))
        except OSError:
            out.append(None)
    return tuple(out)


def _cached_spec(
    spec: Any,
    spec_name: Optional[str],
    allow_outside_root: bool,
    root: Optional[PathLike] = None,
) -> Spec:
    path, text = _spec_source(spec)
    if text is not None:
        key: tuple = ("text", text)
    else:
        assert path is not None
        try:
            st = os.stat(path)
        except OSError:
            return Spec(path, name=spec_name, allow_outside_root=allow_outside_root, root=root)
        # The path as given: with the current folder (in the key below) it names the file.
        key = ("path", path, st.st_mtime_ns, st.st_size)
    key += (spec_name, os.getcwd(), allow_outside_root, _root(root))
    with _CACHE_LOCK:
        hit = _CACHE.get(key)
    if hit is not None and _stamps(hit[0]) == hit[1]:
        with _CACHE_LOCK:
            if key in _CACHE:
                _CACHE.move_to_end(key)
        return hit[0]
    compiled = Spec(
        spec if text is None else text,
        name=spec_name,
        allow_outside_root=allow_outside_root,
        root=root,
    )
    with _CACHE_LOCK:
        _CACHE[key] = (compiled, _stamps(compiled))
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return compiled


def check(
    spec: Union[PathLike, str],
    transcript: Transcript,
    *,
    spec_name: Optional[str] = None,
    input_format: Optional[str] = None,
    allow_outside_root: bool = False,
    root: Optional[PathLike] = None,
) -> Report:
    """Check `transcript` against the specs of `spec`.

    `spec` is the path of a `.toolspec` file, or spec source text. Its specs are chosen as
    `toolspec check` chooses them: a transcript given by path is checked against the specs whose
    `transcripts` globs name it; given as bytes or objects (or by a path no glob names), against
    the file's one spec: a file of several specs then needs `spec_name`, and the `ToolspecError`
    raised without it names them. `spec_name` always picks that spec, whatever its globs say.

    `transcript` is a path (`str` or `os.PathLike`), the bytes of a transcript file, or Python
    objects: the list of messages an OpenAI, Anthropic, LangChain or Vercel AI SDK run produced,
    a Responses item list, a dict (pydantic models and dataclasses are dumped first). The format
    is detected as for files; `input_format` (e.g. `"openai-chat"`) forces one.

    Settings come from the `toolspec.toml` found from the current folder up, as for the command,
    and so does the project root (`root` states it instead: the settings are then those of
    `root/toolspec.toml`, if any). A spec file, an included file or a transcript file outside
    the root (a pytest `tmp_path`) is read only with `allow_outside_root=True`
    (`--allow-outside-root`); a refusal names the path and why, never what the file holds. Spec
    source text is taken as a file `spec.toolspec` at the project root: its includes and globs
    are relative to the root, and go through the same guard.

    The spec is compiled once: `check` keeps the last 64 specs compiled (`Spec` objects), by
    their text, or by path, size and modification time, so checking many runs against one spec
    compiles it once; a spec whose included files (at any depth) changed size or modification
    time since is compiled again. `Spec(spec).check(transcript)` is the same check with the spec
    kept by the caller (it does not see later edits).

    Raises `SpecError` when the spec cannot be read or does not compile, `TranscriptError` when
    the transcript cannot be read, `ToolspecError` for an unknown `spec_name` or format, or
    when no spec is chosen.
    """
    return _cached_spec(spec, spec_name, allow_outside_root, root).check(
        transcript, input_format=input_format
    )


def check_project(
    *paths: PathLike, allow_outside_root: bool = False, root: Optional[PathLike] = None
) -> Report:
    """Check a project as `toolspec check PATHS...` does: every spec file under `paths` (folders
    are searched for `*.toolspec`; none: the current folder) against the transcripts its
    `transcripts` globs name. Paths, includes and globs stay inside the project root (found
    from the current folder, or `root`) unless `allow_outside_root=True`: a folder outside it
    is refused before it is searched.

    Raises `ToolspecError` (its `diagnostics`: the report's `errors`) when something could not
    be checked: a spec that does not compile, a transcript that cannot be read, a path that does
    not exist or lies outside the root. Its `report` is the report all the same: every result
    that could be checked, beside the errors."""
    return _toolspec.check_project(
        [os.fspath(p) for p in paths], allow_outside_root, _root(root)
    )


def _check_project(paths: List[str]) -> Report:
    """The report of `toolspec check PATHS...`, what could not be checked in its errors."""
    return _toolspec.check_paths(paths)


def calls_by_transcript(
    transcript: Transcript,
    *,
    input_format: Optional[str] = None,
    allow_outside_root: bool = False,
    root: Optional[PathLike] = None,
) -> List[List[Dict[str, Any]]]:
    """The calls of every transcript `transcript` holds (a dataset file holds one per line),
    each call as `toolspec calls --json` prints it: `name`, `args`, `id`, `output`,
    `is_error`. A path is read only inside the project root (as for `check`) unless
    `allow_outside_root=True`."""
    return _toolspec.calls_by_transcript(
        _transcript(transcript), input_format, allow_outside_root, _root(root)
    )


def calls(
    transcript: Transcript,
    *,
    input_format: Optional[str] = None,
    allow_outside_root: bool = False,
    root: Optional[PathLike] = None,
) -> List[Dict[str, Any]]:
    """The tool calls read from `transcript` (a path, bytes or Python objects, as for
    `check`), normalized: a list of `{"name", "args", "id", "output", "is_error"}`. A path is
    read only inside the project root unless `allow_outside_root=True`.

    Raises `TranscriptError` when it cannot be read, or holds several transcripts (use
    `calls_by_transcript`)."""
    all_calls = calls_by_transcript(
        transcript,
        input_format=input_format,
        allow_outside_root=allow_outside_root,
        root=root,
    )
    if len(all_calls) == 1:
        return all_calls[0]
    if not all_calls:
        return []
    raise TranscriptError(
        f"this input holds {len(all_calls)} transcripts: use calls_by_transcript() for each one's calls"
    )


def compile(  # noqa: A001 (the command's name)
    spec: Union[PathLike, str],
    *,
    allow_outside_root: bool = False,
    root: Optional[PathLike] = None,
) -> Dict[str, Any]:
    """The matcher config `spec` compiles to, as `toolspec compile` prints it (a dict with the
    file's specs). `spec` is a path or spec source text (taken as a file `spec.toolspec` at the
    project root). The spec file and its includes are read only inside the project root (found
    from the current folder as the command finds it, or `root`) unless
    `allow_outside_root=True`.

    Raises `SpecError` (its `diagnostics`: `code`, `severity`, `message`, `text` each) when the
    spec cannot be read or does not compile."""
    path, text = _spec_source(spec)
    config: Dict[str, Any] = json.loads(
        _toolspec.compile_config(path, text, allow_outside_root, _root(root))
    )
    return config

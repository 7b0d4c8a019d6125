# Types of the extension module (python/src/lib.rs, report.rs, errors.rs); `toolspec`
# re-exports its classes, exceptions and `CODES`. scripts/python-tests.sh holds this stub to the
# module with `mypy.stubtest`.
import os
from typing import Any, Dict, List, Literal, Optional, Sequence, Tuple, TypeAlias, Union, final


__all__ = [
    "ToolspecError",
    "SpecError",
    "TranscriptError",
    "Report",
    "Result",
    "Finding",
    "Expectation",
    "Code",
    "CompiledSpec",
    "CODES",
    "Severity",
    "Stage",
    "TEXT_WIDTH",
    "compile_spec",
    "check_paths",
    "check_project",
    "calls_by_transcript",
    "compile_config",
    "main",
    "VERSION",
]

VERSION: str
#: Width of the human text of `explain()` and of error messages.
TEXT_WIDTH: int

#: The severity of a finding, as every report prints it.
Severity: TypeAlias = Literal["error", "warning", "note"]
#: What reports a diagnostic code: a spec file, a transcript being read, the run, a spec on a
#: transcript, a built-in rule.
Stage: TypeAlias = Literal["spec", "read", "run", "engine", "rule"]

_Path: TypeAlias = Union[str, os.PathLike[str]]

class ToolspecError(Exception):
    """Something could not be checked: a spec that does not compile, a transcript that cannot
    be read, an unknown format or spec name.

    `str(error)` is the human text `toolspec` prints; `diagnostics` holds each problem as a dict
    with at least `code`, `severity` and `message` (the `errors` of `toolspec check --format
    json`, or a spec's compile diagnostics). `report` is, for `check_project`, the report of
    everything that could be checked (its results and its `errors`), else `None`."""

    diagnostics: List[Dict[str, Any]]
    report: Optional[Report]

class SpecError(ToolspecError):
    """A spec that cannot be read or does not compile."""

class TranscriptError(ToolspecError):
    """A transcript that cannot be read (not found, not a known format, malformed)."""

@final
class Code:
    """A diagnostic code of toolspec (`toolspec rules`, the table of codes in docs/cli.md)."""

    @property
    def id(self) -> str:
        """The code as reports print it (`missing-call`, `toolspec::syntax`)."""
    @property
    def name(self) -> str:
        """Its kebab-case name (`syntax`)."""
    @property
    def stage(self) -> Stage:
        """What reports it."""
    @property
    def severity(self) -> Severity:
        """Its default severity."""
    @property
    def description(self) -> str:
        """What it means, in one line."""

#: Every diagnostic code toolspec can emit, by the id reports print.
CODES: Dict[str, Code]

@final
class Finding:
    """One thing wrong (or worth knowing) about a run."""

    @property
    def code(self) -> str:
        """Stable code, a key of `CODES` (e.g. `missing-call`, `argument-mismatch`)."""
    @property
    def severity(self) -> Severity: ...
    @property
    def message(self) -> str:
        """What is wrong, in one sentence."""
    @property
    def help(self) -> Optional[str]:
        """How to fix it, if there is something to say."""
    @property
    def call(self) -> Optional[int]:
        """Position (0-based) of the call it is about among the transcript's calls."""
    @property
    def expectation(self) -> Optional[str]:
        """The label of the expectation it comes from, if the expectation has one."""
    @property
    def location(self) -> Optional[Dict[str, Any]]:
        """Where it is in the transcript: `file`, `line`, `column`, `end_line`, `end_column`,
        `span` (byte offsets)."""
    @property
    def related(self) -> Optional[Dict[str, Any]]:
        """Where the expectation or rule it comes from is written in the spec."""

@final
class Expectation:
    """How one expectation of the spec fared."""

    @property
    def index(self) -> int: ...
    @property
    def tool(self) -> str: ...
    @property
    def label(self) -> Optional[str]: ...
    @property
    def status(self) -> str:
        """`matched`, `name_only`, `missing`, ..."""
    @property
    def passed(self) -> bool: ...
    @property
    def calls(self) -> List[int]:
        """Positions (0-based) of the calls it matched."""
    @property
    def reasons(self) -> List[str]:
        """Why it is not met: the message of each constraint a matched call fails."""

@final
class Result:
    """The result of one spec on one transcript."""

    @property
    def spec(self) -> str: ...
    @property
    def spec_file(self) -> str: ...
    @property
    def transcript(self) -> str:
        """The transcript, as the report shows it (`<stdin>` for bytes and Python objects)."""
    @property
    def record(self) -> Optional[int]:
        """For a dataset file (one transcript per line), the 1-based line of this transcript."""
    @property
    def format(self) -> str: ...
    @property
    def passed(self) -> bool: ...
    @property
    def score(self) -> float: ...
    @property
    def threshold(self) -> float: ...
    @property
    def failure(self) -> Optional[str]:
        """For a failed pair, what failed it besides the score."""
    @property
    def findings(self) -> List[Finding]: ...
    @property
    def expectations(self) -> List[Expectation]: ...
    @property
    def raw(self) -> Dict[str, Any]:
        """The result exactly as `toolspec check --format json` writes it."""
    def explain(self) -> str:
        """The human report of this result, as `toolspec check` prints it."""
    def __bool__(self) -> bool: ...

@final
class Report:
    """What a check found: one `Result` per spec × transcript checked."""

    @property
    def passed(self) -> bool:
        """The check's verdict, the one `toolspec check` exits 0 on: every result passed, but
        those of a spec with a `pass_rate`, which pass through the spec's rate, and nothing
        failed to be checked. A check that checked nothing passes, with a `nothing-checked`
        warning."""
    @property
    def results(self) -> List[Result]: ...
    @property
    def failed(self) -> List[Result]: ...
    @property
    def raw(self) -> Dict[str, Any]:
        """The report exactly as `toolspec check --format json` writes it."""
    @property
    def warnings(self) -> List[Dict[str, Any]]: ...
    @property
    def rates(self) -> List[Dict[str, Any]]: ...
    def explain(self) -> str:
        """The human report of every result, failed ones first."""
    def _verdicts(self) -> List[Tuple[Literal["pair", "rate"], int, bool, List[int], str]]:
        """The run's verdicts in report order: `("pair", result, passed, [], "")` or `("rate",
        rate, met, [its results], its verdict line)`."""
    def _problems(self) -> str:
        """The human text of the run's errors and warnings."""
    def __bool__(self) -> bool: ...

@final
class CompiledSpec:
    """The specs of one spec file, compiled once."""

    @property
    def names(self) -> List[str]:
        """The names of its specs, in the file's order."""
    @property
    def root(self) -> _Path:
        """The project root it was compiled under."""
    @property
    def includes(self) -> List[_Path]:
        """The files its includes read, at any depth."""
    def check(
        self, transcript: Any, input_format: Optional[str] = None, spec_name: Optional[str] = None
    ) -> Report:
        """Check `transcript` (a path, bytes, or Python objects read as JSON) against the specs
        that check it: `spec_name`, else those whose globs name the path, else the file's one
        spec."""
    def passes(
        self, transcript: Any, input_format: Optional[str] = None, spec_name: Optional[str] = None
    ) -> bool:
        """Whether `transcript` passes the specs that check it, without building a result."""

def compile_spec(
    path: Optional[_Path],
    text: Optional[str] = None,
    allow_outside_root: bool = False,
    root: Optional[_Path] = None,
    name: Optional[str] = None,
) -> CompiledSpec: ...
def check_paths(
    paths: Sequence[_Path],
    allow_outside_root: bool = False,
    root: Optional[_Path] = None,
) -> Report: ...
def check_project(
    paths: Sequence[_Path],
    allow_outside_root: bool = False,
    root: Optional[_Path] = None,
) -> Report: ...
def calls_by_transcript(
    transcript: Any,
    input_format: Optional[str] = None,
    allow_outside_root: bool = False,
    root: Optional[_Path] = None,
) -> List[List[Dict[str, Any]]]: ...
def compile_config(
    path: Optional[_Path],
    text: Optional[str] = None,
    allow_outside_root: bool = False,
    root: Optional[_Path] = None,
) -> str: ...
def main(args: Sequence[str]) -> int: ...

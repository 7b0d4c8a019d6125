# Types of the extension module (python/src/lib.rs). The public API is `toolspec` itself
# (typed inline; the package ships `py.typed`).
from typing import Any, List, Optional, Sequence, Tuple, Union
import os

VERSION: str

class Checked:
    """The report of one check and the texts to explain it with."""

    @property
    def passed(self) -> bool:
        """Every result passed (and there is one), and nothing failed to be checked; the results
        of a spec with a `pass_rate` pass through the spec's rate instead."""
    @property
    def has_errors(self) -> bool:
        """Something could not be checked."""
    @property
    def json(self) -> str:
        """The report as `toolspec check --format json` prints it."""
    def explain(self, index: int, width: int) -> str:
        """The human report of result `index`, without colour."""
    def verdicts(self) -> List[Tuple[str, int, bool, List[int], str]]:
        """The run's verdicts in report order: `("pair", result, passed, [], "")` or `("rate",
        rate, met, [its results], its verdict line)`."""
    def problems(self, width: int) -> str:
        """The human text of the run's errors and warnings."""

class CompiledSpec:
    """The specs of one spec file, compiled once."""

    @property
    def names(self) -> List[str]:
        """The names of its specs, in the file's order."""
    @property
    def root(self) -> Union[str, os.PathLike[str]]:
        """The project root it was compiled under."""
    @property
    def includes(self) -> List[Union[str, os.PathLike[str]]]:
        """The files its includes read, at any depth."""
    def check(
        self, transcript: Any, input_format: Optional[str] = None, spec_name: Optional[str] = None
    ) -> Checked:
        """Check `transcript` (a path, bytes, or Python objects read as JSON) against the specs
        that check it: `spec_name`, else those whose globs name the path, else the file's one
        spec; `ValueError` naming the specs when the file holds several and none is chosen."""
    def passes(
        self, transcript: Any, input_format: Optional[str] = None, spec_name: Optional[str] = None
    ) -> Tuple[bool, bool]:
        """Whether `transcript` passes the specs that check it, and whether something could not
        be checked, without building a result."""

def compile_spec(
    path: Optional[Union[str, os.PathLike[str]]],
    text: Optional[str] = None,
    allow_outside_root: bool = False,
    root: Optional[str] = None,
) -> Tuple[Optional[CompiledSpec], Checked]: ...
def check_paths(
    paths: Sequence[Union[str, os.PathLike[str]]],
    allow_outside_root: bool = False,
    root: Optional[str] = None,
) -> Checked: ...
def calls_json(
    transcript: Any,
    input_format: Optional[str] = None,
    allow_outside_root: bool = False,
    root: Optional[str] = None,
) -> str: ...
def compile_config(
    path: Optional[Union[str, os.PathLike[str]]],
    text: Optional[str] = None,
    allow_outside_root: bool = False,
    root: Optional[str] = None,
) -> Tuple[Optional[str], List[Tuple[str, str, str, str]]]: ...
def main(args: List[str]) -> int: ...

"""The pytest plugin of toolspec (registered by the package; nothing to configure).

`pytest --toolspec [PATHS]` runs `toolspec check PATHS` once (the folders and `.toolspec` files
among pytest's arguments; none: the current folder), so the spec files, the transcripts and
what `toolspec.toml` excludes or `.gitignore` ignores are exactly the command's, and makes a
test item of each verdict of the run:

- each (spec, transcript) result of a spec without a `pass_rate`, failing with the human report
  (each finding at the transcript and spec lines) when the run does not meet the spec;
- each spec's pass rate, failing when the rate is not met, its report listing every failing
  transcript with its findings;
- what could not be checked (a spec that does not compile, a transcript that cannot be read),
  one failing item `toolspec-run::errors`;
- a run that checked nothing, one skipped item `toolspec-run::nothing-checked` saying so: the
  command exits 0 on it with a warning, and a skip is pytest's word for that (a session with
  no item at all would exit 5, failing where the command passes).

The test session fails exactly when `toolspec check` on the same paths exits non-zero.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Optional, Tuple, Union

import pytest

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr

from . import Result, _check_project


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("toolspec")
    group.addoption(
        "--toolspec",
        action="store_true",
        default=False,
        help="check the agent transcripts under the given paths against their .toolspec specs "
        "as `toolspec check` does, one test item per verdict",
    )


class _Run:
    """The one `toolspec check` of the session and the items of each spec file."""

    def __init__(self, paths: List[str]) -> None:
        report = _check_project(paths)
        self.report = report
        #: Spec file (absolute) → its verdicts, in report order.
        self.by_file: Dict[Path, List[Tuple[str, Any]]] = {}
        #: Verdicts of no spec file (results of the built-in rules alone).
        self.loose: List[Tuple[str, Any]] = []
        results = report.results
        rates = report.rates
        for kind, index, passed, members, text in report._verdicts():
            if kind == "pair":
                r = results[index]
                entry: Tuple[str, Any] = ("pair", r)
                spec_file = r.spec_file
            else:
                rate = rates[index]
                entry = ("rate", (rate, [results[i] for i in members], passed, text))
                spec_file = rate["spec_file"]
            if spec_file:
                self.by_file.setdefault(Path(spec_file).resolve(), []).append(entry)
            else:
                self.loose.append(entry)
        #: Spec files whose items were collected by pytest's own walk.
        self.collected: set = set()


_RUN = pytest.StashKey[Optional[_Run]]()


def _run(config: Any) -> Optional[_Run]:
    """The session's check, run on first use; `None` when no argument names a folder or spec."""
    if _RUN in config.stash:
        return config.stash[_RUN]
    paths = []
    for arg in config.args:
        path = str(arg).split("::", 1)[0]
        if os.path.isdir(path) or (path.endswith(".toolspec") and os.path.isfile(path)):
            paths.append(path)
    run = _Run(paths) if paths else None
    config.stash[_RUN] = run
    return run


def pytest_collect_file(file_path: Path, parent: Any) -> Optional["SpecFile"]:
    if parent.config.getoption("toolspec") and file_path.suffix == ".toolspec":
        return SpecFile.from_parent(parent, path=file_path)
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: Any, config: Any, items: List[Any]) -> None:
    """The items pytest's own walk did not reach: spec files of the run in folders pytest does
    not enter (`build/`, `node_modules/`, ...), results of no spec file, and the run's errors."""
    if not config.getoption("toolspec"):
        return
    run = _run(config)
    if run is None:
        return
    for path in sorted(set(run.by_file) - run.collected):
        items.extend(SpecFile.from_parent(session, path=path).collect())
    if run.loose or run.report.raw["errors"] or _nothing_checked(run):
        node = RunNode.from_parent(session, name="toolspec-run", nodeid="toolspec-run")
        items.extend(node.collect())


def _nothing_checked(run: _Run) -> List[Dict[str, Any]]:
    """The run's `nothing-checked` warning, if it checked nothing."""
    return [w for w in run.report.warnings if w["code"] == "nothing-checked"]


class ToolspecFailure(Exception):
    """A verdict that did not pass, or something that could not be checked."""


def _items(parent: Any, run: _Run, entries: List[Tuple[str, Any]]) -> Iterator[pytest.Item]:
    seen: Dict[str, int] = {}
    for kind, what in entries:
        if kind == "pair":
            result: Result = what
            name = f"{result.spec}::{result.transcript}"
            if result.record is not None:
                name += f":{result.record}"
        else:
            name = f"{what[0]['spec']}::pass_rate"
        seen[name] = seen.get(name, 0) + 1
        if seen[name] > 1:
            name += f"#{seen[name]}"
        if kind == "pair":
            yield PairItem.from_parent(parent, name=name, result=what)
        else:
            rate, results, met, text = what
            yield RateItem.from_parent(
                parent, name=name, rate=rate, results=results, met=met, text=text
            )


class SpecFile(pytest.File):
    """A `.toolspec` file: an item per verdict of its specs in the session's check (none when
    the check leaves it out: excluded in `toolspec.toml`, ignored by `.gitignore`)."""

    def collect(self) -> Iterator[pytest.Item]:
        run = _run(self.config)
        if run is None:
            return
        path = Path(self.path).resolve()
        run.collected.add(path)
        yield from _items(self, run, run.by_file.get(path, []))


class RunNode(pytest.Collector):
    """What belongs to no spec file: the run's errors, results of the built-in rules alone."""

    def collect(self) -> Iterator[pytest.Item]:
        run = _run(self.config)
        if run is None:
            return
        errors = run.report.raw["errors"]
        if errors:
            yield ProblemItem.from_parent(
                self, name="errors", text=run.report._problems(), errors=errors
            )
        yield from _items(self, run, run.loose)
        for warning in _nothing_checked(run):
            yield NothingCheckedItem.from_parent(
                self, name="nothing-checked", text=warning["message"]
            )


class ToolspecItem(pytest.Item):
    """What the toolspec items share: a failure shows toolspec's text, not a traceback."""

    def repr_failure(self, excinfo: Any, style: Any = None) -> Union[str, TerminalRepr]:
        if isinstance(excinfo.value, ToolspecFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> "tuple[Any, Optional[int], str]":
        return self.path, None, f"toolspec: {self.name}"


class PairItem(ToolspecItem):
    """One spec checked on one transcript."""

    def __init__(self, *, result: Result, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.result = result
        self.user_properties.append(("toolspec_score", result.score))

    def runtest(self) -> None:
        if not self.result.passed:
            raise ToolspecFailure(self.result.explain())


class RateItem(ToolspecItem):
    """A spec's pass rate over its transcripts: fails when the rate is not met; its report
    lists each failing transcript with its findings."""

    def __init__(
        self,
        *,
        rate: Dict[str, Any],
        results: List[Result],
        met: bool,
        text: str,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.rate = rate
        self.results = results
        self.met = met
        self.text = text
        self.user_properties.append(("toolspec_rate", rate["rate"]))

    def report_text(self) -> str:
        failing = [r for r in self.results if not r.passed]
        lines = [self.text]
        if failing:
            lines.append(f"failing transcripts ({len(failing)} of {len(self.results)}):")
            lines.extend(
                f"  {r.transcript}" + (f":{r.record}" if r.record is not None else "")
                for r in failing
            )
            lines.append("")
            lines.extend(r.explain() for r in failing)
        return "\n".join(lines)

    def runtest(self) -> None:
        if any(not r.passed for r in self.results):
            self.add_report_section("call", "toolspec", self.report_text())
        if not self.met:
            raise ToolspecFailure(self.report_text())


class NothingCheckedItem(ToolspecItem):
    """A run that checked no spec × transcript pair: skipped, saying why, as the command passes
    it with a warning (`--strict` fails it)."""

    def __init__(self, *, text: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.text = text

    def runtest(self) -> None:
        pytest.skip(f"toolspec: {self.text}")


class ProblemItem(ToolspecItem):
    """What kept part of the run from being checked."""

    def __init__(self, *, text: str, errors: List[Dict[str, Any]], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.text = text
        self.errors = errors

    def runtest(self) -> None:
        raise ToolspecFailure(self.text)

"""The pytest plugin of toolspec (registered by the package; nothing to configure).

`pytest --toolspec [PATHS]` collects every `.toolspec` file under the paths and makes each
(spec, transcript) pair its `transcripts` globs name a test item, which fails with the human
report (each finding at the transcript and spec lines) when the run does not meet the spec.
A spec that does not compile, or a transcript that cannot be read, is a failing item of its own.
"""

from __future__ import annotations

from typing import Any, Dict, Iterator, List, Optional

import pytest

from . import Result, TEXT_WIDTH, _check_project


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("toolspec")
    group.addoption(
        "--toolspec",
        action="store_true",
        default=False,
        help="check the agent transcripts under the given paths against their .toolspec specs, "
        "one test item per (spec, transcript) pair",
    )


def pytest_collect_file(file_path: Any, parent: Any) -> Optional["SpecFile"]:
    if parent.config.getoption("toolspec") and file_path.suffix == ".toolspec":
        return SpecFile.from_parent(parent, path=file_path)
    return None


class ToolspecFailure(Exception):
    """A pair that did not pass, or something that could not be checked."""


class SpecFile(pytest.File):
    """A `.toolspec` file: one item per (spec, transcript) pair its globs name."""

    def collect(self) -> Iterator[pytest.Item]:
        report, checked = _check_project([str(self.path)])
        errors = report.raw["errors"]
        if errors:
            yield ProblemItem.from_parent(
                self,
                name="errors",
                text=checked.problems(TEXT_WIDTH),
                errors=errors,
            )
        seen: Dict[str, int] = {}
        for result in report.results:
            name = f"{result.spec}::{result.transcript}"
            if result.record is not None:
                name += f":{result.record}"
            seen[name] = seen.get(name, 0) + 1
            if seen[name] > 1:
                name += f"#{seen[name]}"
            yield PairItem.from_parent(self, name=name, result=result)


class ToolspecItem(pytest.Item):
    """What the toolspec items share: a failure shows toolspec's text, not a traceback."""

    def repr_failure(self, excinfo: Any, style: Any = None) -> str:
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


class ProblemItem(ToolspecItem):
    """What kept part of a spec file from being checked."""

    def __init__(self, *, text: str, errors: List[Dict[str, Any]], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.text = text
        self.errors = errors

    def runtest(self) -> None:
        raise ToolspecFailure(self.text)

"""Helpers for tests that produce an agent run and check it on the spot::

    from toolspec.testing import assert_passes

    def test_refund_agent():
        messages = run_refund_agent("I want my money back for ORD-1001")
        assert_passes("prompts/refund.toolspec", messages)
"""

from __future__ import annotations

from typing import Optional

from . import PathLike, Report, Transcript, check


def assert_passes(
    spec: "PathLike | str",
    transcript: Transcript,
    *,
    spec_name: Optional[str] = None,
    input_format: Optional[str] = None,
    allow_outside_root: bool = False,
    root: "PathLike | None" = None,
) -> Report:
    """Check `transcript` against `spec` as `toolspec.check` does and fail the test with the
    human report (each finding at the transcript and spec lines) unless the report passes
    (`Report.passed`: the verdict `toolspec check` exits 0 on, rates included). Returns the
    report when it passes: a dataset file of no records passes, as the command passes it, with
    a `nothing-checked` warning in `report.warnings`.

    A spec that does not compile or a transcript that cannot be read raises
    `toolspec.ToolspecError` (an error in the test, not a failed expectation)."""
    __tracebackhide__ = True
    report = check(
        spec,
        transcript,
        spec_name=spec_name,
        input_format=input_format,
        allow_outside_root=allow_outside_root,
        root=root,
    )
    if not report.passed:
        raise AssertionError("toolspec: the run does not meet its spec\n\n" + report.explain())
    return report

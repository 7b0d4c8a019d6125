"""`pytest --toolspec examples`: one item per (spec, transcript) pair, the failing one showing
the human report."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT


def test_the_plugin_collects_every_pair_of_the_examples() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "--toolspec", "examples", "-p", "no:cacheprovider", "-rf"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 1, out.stdout + out.stderr
    assert "1 failed, 11 passed" in out.stdout, out.stdout
    assert "refund_flow::examples/runs/refund/2025-06-07-openai-skipped-check.request.json" in out.stdout
    assert "missing-call" in out.stdout and "check_refund_eligibility" in out.stdout


def test_without_the_option_nothing_is_collected() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "examples", "-p", "no:cacheprovider"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 5, out.stdout  # no tests collected

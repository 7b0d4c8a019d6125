"""Shared fixtures: the repository root (the tests run from it) and the CLI to compare with."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any, List

import pytest

ROOT = Path(__file__).resolve().parents[2]


def cli_command() -> str:
    """The command line the API is compared with: `TOOLSPEC_BIN` (the binary built with cargo),
    else the `toolspec` command of the installed package."""
    found = os.environ.get("TOOLSPEC_BIN") or shutil.which("toolspec")
    assert found, "set TOOLSPEC_BIN to the toolspec binary, or install the package"
    return found


def run_cli(args: List[str], stdin: bytes = b"") -> "subprocess.CompletedProcess[bytes]":
    return subprocess.run(
        [cli_command(), *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        env={**os.environ, "NO_COLOR": "1"},
    )


def cli_json(args: List[str], stdin: bytes = b"") -> Any:
    out = run_cli(args, stdin)
    assert out.returncode in (0, 1), out.stderr.decode()
    return json.loads(out.stdout)


@pytest.fixture(autouse=True)
def at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


@pytest.fixture(scope="session")
def example_report() -> Any:
    """`toolspec check examples --format json` from the command line."""
    return cli_json(["check", "examples", "--format", "json"])

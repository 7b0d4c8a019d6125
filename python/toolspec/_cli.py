"""The `toolspec` command of the Python package: the command line of toolspec, run in this
process (the same code as the `toolspec` binary built with cargo)."""

from __future__ import annotations

import signal
import sys
from typing import List, Optional

from . import _toolspec


def main(argv: Optional[List[str]] = None) -> int:
    """Run `toolspec` with `argv` (default: this process's arguments) and exit with its code."""
    args = ["toolspec", *(sys.argv[1:] if argv is None else argv)]
    # Ctrl-C ends the command as it ends the binary: Python's handler would only set a flag that
    # nothing reads while `toolspec watch` runs.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.stdout.flush()
    sys.stderr.flush()
    sys.exit(_toolspec.main(args))


if __name__ == "__main__":
    main()

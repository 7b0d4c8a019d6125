"""`python -m toolspec`: the `toolspec` command."""

from ._cli import main

main()

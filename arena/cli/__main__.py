"""`python -m arena.cli`: the `arena` command without the console script."""

from arena.cli.main import main

main()

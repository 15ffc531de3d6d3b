"""`python -m arena.cli`: the `arena` command without the console script."""

from arena.cli.entry import main

main()

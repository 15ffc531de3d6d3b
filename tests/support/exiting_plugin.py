"""A plugin whose import ends the process (tests/arena/tournament/run/test_runner.py: workers that cannot start).

A plugin that fails to import is skipped (arena/registry/plugins.py), but one that exits cannot be.
"""

raise SystemExit(1)

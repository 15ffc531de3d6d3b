"""Did cutting a test's work (fewer seeds, games, playouts) lose any line or branch it reached?

Compares two ``coverage json`` reports, one of the test before the cut and one after, by path
from ``engine/`` or ``plugins/`` (so the two may come from different checkouts), and prints
what the first reached that the second does not. Exit status 1 if anything was lost.
docs/testing.md ("Cutting a sweep") gives the commands around it.

    python -m tests.support.coverage_diff before.json after.json
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

Reached = tuple[set[tuple[str, int]], set[tuple[str, int, int]]]


def reached(report: Path) -> Reached:
    """The (file, line) and (file, from, to) branch sets a ``coverage json`` report says ran."""
    files = json.loads(report.read_text())["files"]
    lines: set[tuple[str, int]] = set()
    branches: set[tuple[str, int, int]] = set()
    for path, data in files.items():
        found = re.search(r"(engine|plugins)/.*", path)
        name = found.group(0) if found else path
        lines |= {(name, line) for line in data["executed_lines"]}
        branches |= {(name, start, end) for start, end in data.get("executed_branches", [])}
    return lines, branches


def main(argv: list[str]) -> int:
    """Print the lines and branches ``argv[0]`` reached and ``argv[1]`` did not."""
    if len(argv) != 2:
        print("error: give two reports: python -m tests.support.coverage_diff BEFORE.json AFTER.json")
        return 2
    try:
        (lines_before, branches_before), (lines_after, branches_after) = (reached(Path(a)) for a in argv)
    except (OSError, ValueError, KeyError) as problem:
        print(f"error: not a `coverage json` report ({problem}): make them with `coverage json -o FILE`")
        return 2
    lost_lines, lost_branches = lines_before - lines_after, branches_before - branches_after
    print(f"lines: {len(lines_before)} before, {len(lines_after)} after, {len(lost_lines)} lost")
    print(f"branches: {len(branches_before)} before, {len(branches_after)} after, {len(lost_branches)} lost")
    for name, line in sorted(lost_lines):
        print(f"  lost line {name}:{line}")
    for name, start, end in sorted(lost_branches):
        print(f"  lost branch {name}:{start}->{end}")
    return 1 if lost_lines or lost_branches else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Where the suite's CPU goes, per test and per file (opt-in: docs/testing.md, "Where the time goes").

As a pytest plugin (``-p tests.support.cpu_report``, with ``TLACHTLI_CPU_REPORT=FOLDER``), each test
process appends one JSON line per test to FOLDER/cpu-PID.jsonl: the node id, the CPU seconds of the
process itself and of its children reaped during the test (RUSAGE_SELF, RUSAGE_CHILDREN deltas),
and its start and end (wall clock, seconds since the epoch).
The kernel charges a child's CPU when it is reaped, so a process kept across tests (a zygote, a
module fixture's server) is counted in the test that ends it. Then
``python -m tests.support.cpu_report FOLDER`` prints the totals, by file and the costliest tests.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

FOLDER_ENV = "TLACHTLI_CPU_REPORT"


def _cpu() -> tuple[float, float]:
    """CPU seconds (user + system) of this process, and of its reaped children."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Record the CPU of ``item`` (set-up, call and tear-down) when FOLDER_ENV names a folder."""
    folder = os.environ.get(FOLDER_ENV)
    before, start = _cpu(), time.time()
    yield
    if folder:
        after, end = _cpu(), time.time()
        line = [item.nodeid, round(after[0] - before[0], 3), round(after[1] - before[1], 3), start, end]
        with open(Path(folder) / f"cpu-{os.getpid()}.jsonl", "a") as out:
            out.write(json.dumps(line) + "\n")


def summary(folder: Path, top: int = 30) -> str:
    """The recorded CPU: in all, by file (costliest first) and the ``top`` costliest tests; then the
    ``top`` longest tests by wall time, with their CPU: one that waits more than it computes holds a
    worker while the cores idle."""
    by_file: Counter[str] = Counter()
    tests = []
    walls = []
    for path in folder.glob("cpu-*.jsonl"):
        for line in path.read_text().splitlines():
            nodeid, own, children, start, end = json.loads(line)
            by_file[nodeid.split("::")[0]] += own + children
            tests.append((own + children, own, children, nodeid))
            walls.append((end - start, own + children, nodeid, start, end))
    run = max(end for *_, end in walls) - min(start for *_, start, _ in walls) if walls else 0.0
    lines = [
        f"{sum(by_file.values()):.1f} s CPU in {len(tests)} tests (own + reaped children); "
        f"{run:.1f} s from the first test's start to the last one's end",
        "",
        "by file:",
    ]
    lines += [f"{seconds:7.1f}  {name}" for name, seconds in by_file.most_common()]
    lines += ["", "costliest tests (all, own, children):"]
    lines += [
        f"{t:7.1f} {o:6.1f} {c:6.1f}  {nodeid}" for t, o, c, nodeid in sorted(tests, reverse=True)[:top]
    ]
    lines += ["", "longest tests (wall, CPU):"]
    lines += [f"{w:7.1f} {c:6.1f}  {nodeid}" for w, c, nodeid, *_ in sorted(walls, reverse=True)[:top]]
    return "\n".join(lines)


if __name__ == "__main__":
    if len(sys.argv) != 2 or not Path(sys.argv[1]).is_dir():
        sys.exit(
            "error: give the folder TLACHTLI_CPU_REPORT named: python -m tests.support.cpu_report FOLDER"
        )
    print(summary(Path(sys.argv[1])))

"""The opt-in per-test CPU report (tests/support/cpu_report.py): what it records and sums up."""

from __future__ import annotations

import json
import subprocess
import sys
from types import SimpleNamespace

from tests.support import cpu_report


def test_a_tests_cpu_counts_the_children_it_reaped(tmp_path, monkeypatch):
    monkeypatch.setenv(cpu_report.FOLDER_ENV, str(tmp_path))
    item = SimpleNamespace(nodeid="tests/test_x.py::test_burn")
    hook = cpu_report.pytest_runtest_protocol(item, None)
    next(hook)  # the test runs here: a child that burns ~0.3 s of CPU, reaped before the end
    subprocess.run(
        [
            sys.executable,
            "-c",
            "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.3: pass",
        ],
        check=True,
    )
    for _ in hook:
        pass
    [line] = [
        json.loads(text) for path in tmp_path.glob("cpu-*.jsonl") for text in path.read_text().splitlines()
    ]
    nodeid, own, children, start, end = line
    assert nodeid == "tests/test_x.py::test_burn"
    assert children >= 0.3 and own < children
    assert end - start >= children - 0.05  # the child ran inside the test's wall time


def test_the_summary_totals_by_file_costliest_first(tmp_path):
    (tmp_path / "cpu-1.jsonl").write_text(
        '["a.py::t1", 1.0, 2.0, 100, 104]\n["b.py::t2", 0.5, 0.0, 104, 105]\n'
    )
    (tmp_path / "cpu-2.jsonl").write_text(
        '["a.py::t3", 0.0, 0.25, 101, 111]\n["b.py::t4", 4.0, 0.0, 111, 115]\n'
    )
    text = cpu_report.summary(tmp_path, top=1)
    assert text.splitlines()[0] == (
        "7.8 s CPU in 4 tests (own + reaped children); 15.0 s from the first test's start to the last one's end"
    )
    files = text.split("by file:\n")[1].split("\n\n")[0].split()
    assert files == ["4.5", "b.py", "3.2", "a.py"]  # 4.5 > 3.25
    costliest = text.split("costliest tests (all, own, children):\n")[1].split("\n\n")[0]
    assert costliest == "    4.0    4.0    0.0  b.py::t4"  # top=1: the costliest test only
    # the longest by wall: a.py::t3 waited 10 s for 0.25 s of CPU
    assert text.rstrip().endswith("   10.0    0.2  a.py::t3")

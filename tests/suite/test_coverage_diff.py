"""tests/support/coverage_diff.py: what a cut test no longer reaches, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.coverage_diff import main


def report(path: Path, root: str, lines: list[int], branches: list[list[int]]) -> str:
    files = {f"{root}/engine/zapotec/turn.py": {"executed_lines": lines, "executed_branches": branches}}
    path.write_text(json.dumps({"files": files}))
    return str(path)


def test_names_what_the_cut_lost_across_checkouts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = report(tmp_path / "b.json", "/tmp/old", [1, 2, 5], [[2, 5], [2, -1]])
    same = report(tmp_path / "s.json", "/work/new", [1, 2, 5], [[2, -1], [2, 5]])
    cut = report(tmp_path / "c.json", "/work/new", [1, 2], [[2, -1]])
    assert main([before, same]) == 0
    assert main([before, cut]) == 1
    out = capsys.readouterr().out
    assert "lost line engine/zapotec/turn.py:5" in out and "lost branch engine/zapotec/turn.py:2->5" in out
    assert "lines: 3 before, 2 after, 1 lost" in out


def test_a_file_that_is_no_report_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("not json")
    assert main([str(bad), str(bad)]) == 2
    assert main([str(bad)]) == 2
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 and all(line.startswith("error: ") for line in out)

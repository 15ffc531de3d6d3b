"""`make test` (what CI runs) leaves out the tests marked slow; docs/testing.md lists each one with
the test in `make test` that runs its code. A slow mark without its line there, or a line naming
no slow test, fails here: no test drops out of CI unnoticed."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SECTION = "## What `make test` leaves to `make test-all`"


def documented() -> set[str]:
    """The node ids docs/testing.md's section lists (its lines of the form "- `tests/...`:")."""
    text = (ROOT / "docs" / "testing.md").read_text()
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^- `(tests/[^`]+)`", section, re.MULTILINE))


def marked() -> set[str]:
    """The node ids pytest collects with ``-m slow``, from every test file that uses the mark."""
    files = [
        str(path.relative_to(ROOT))
        for path in sorted((ROOT / "tests").rglob("test_*.py"))
        if "mark.slow" in path.read_text() and path.name != Path(__file__).name
    ]
    assert files, "no test is marked slow: the section and this test can go"
    collected = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", "slow",
         "-p", "no:cacheprovider", *files],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert collected.returncode == 0, collected.stdout + collected.stderr
    return {line for line in collected.stdout.splitlines() if line.startswith("tests/") and "::" in line}


def test_every_slow_test_is_listed_in_the_testing_doc_with_what_covers_it():
    assert marked() == documented()


def test_make_test_leaves_out_the_slow_marks_and_make_test_all_does_not():
    recipes = dict(re.findall(r"^([\w-]+): setup\n\t(.+)$", (ROOT / "Makefile").read_text(), re.MULTILINE))
    assert recipes["test"].endswith('-m "not slow"')
    assert "-m" not in recipes["test-all"].replace("$(PYTEST)", "")

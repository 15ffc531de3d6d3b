"""`arena check` tells an author what to fix: what it saw, what the protocol expected, where the docs say so."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from arena.cli.main import app
from arena.match.conformance import EXPECTED
from arena.wire.faults import FAULTS

ROOT = Path(__file__).resolve().parents[3]
runner = CliRunner()


def anchors(markdown: str) -> set[str]:
    """GitHub's anchors for the headings of a markdown file."""
    found = set()
    for line in markdown.splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            found.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return found


def test_every_fault_has_advice_pointing_at_a_real_docs_section():
    assert set(EXPECTED) == set(FAULTS)
    for fault, (expected, docs) in EXPECTED.items():
        path, _, anchor = docs.partition("#")
        assert expected and anchor in anchors((ROOT / path).read_text()), (fault, docs)


def test_check_says_what_was_seen_what_was_expected_and_where_to_read(no_leftovers):  # noqa: F811
    out = runner.invoke(app, ["check", "fault-illegal", "--game", "goofspiel"])
    assert out.exit_code == 1
    lines = out.stdout.splitlines()
    first = lines.index("FORFEIT goofspiel 2p seat 0: illegal-choice: choice 9 is not in 0..3")
    assert lines[first + 1].startswith("    seen:     choice 9 is not in 0..3 (at move ")
    assert (
        lines[first + 2]
        == "    expected: `choice` is an index into the decision's `options`: 0 .. len(options) - 1"
    )
    assert lines[first + 3] == "    docs:     docs/protocol.md#bot--referee"
    # The advice comes once per fault; every forfeit still says what was seen.
    assert out.stdout.count("    expected: ") == 1
    assert out.stdout.count("    seen:     ") == out.stdout.count("FORFEIT ") == 9


def test_a_handshake_fault_is_placed_before_ready(no_leftovers):  # noqa: F811
    out = runner.invoke(app, ["check", "fault-handshake-exit", "--game", "goofspiel"])
    assert out.exit_code == 1
    assert "(before `ready`)" in out.stdout
    assert "    docs:     docs/protocol.md#messages" in out.stdout

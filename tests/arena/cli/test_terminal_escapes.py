"""Nothing a bot (or a record file) writes reaches the operator's terminal raw.

tests/support/terminal_bot.py puts a clear-screen, a fake result table, OSC 52 (set the clipboard),
BEL, CR, C1 controls and bidi overrides in its ready name, stderr and fault detail. Every command
that prints them must show them as visible escapes.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from arena.text.safe import printable

ROOT = Path(__file__).resolve().parents[3]
# one worker under xdist: the match of ``played`` is played once
pytestmark = pytest.mark.xdist_group("terminal-escapes")
BOT = ROOT / "tests" / "support" / "terminal_bot.py"
# Anything a terminal acts on: C0 controls but newline, DEL, C1, and the bidi/zero-width formats.
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]")


def arena(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args],
        capture_output=True,
        text=True,
        errors="surrogateescape",
        cwd=ROOT,
        timeout=240,
    )


def assert_no_raw_controls(result: subprocess.CompletedProcess) -> None:
    for stream in (result.stdout, result.stderr):
        found = RAW.search(stream)
        assert found is None, (
            f"raw {found.group()!r} in output: {stream[max(0, found.start() - 80) :][:200]!r}"
        )


def test_printable_escapes_controls_and_keeps_text():
    assert printable("a\x1b[2Jb\x07\r\x9b\u202ec\u200b") == "a\\x1b[2Jb\\x07\\r\\x9b\\u202ec\\u200b"
    assert printable("line 1\nline 2\tx") == "line 1\nline 2\\tx"
    assert printable("a\nb", newlines=False) == "a\\nb"
    assert printable("Cocijo ñ 日本 ü") == "Cocijo ñ 日本 ü"  # letters of every script stay
    assert printable("\U000e0041\ud800") == "\\U000e0041\\ud800"  # a tag character, a lone surrogate


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> tuple[subprocess.CompletedProcess, Path]:
    """One match of the terminal bot, played once for the module (the tests only read it)."""
    record = tmp_path_factory.mktemp("played") / "m.json"
    with pytest.MonkeyPatch.context() as patch:  # conftest's plugin setting is per test
        patch.setenv("TLACHTLI_PLUGINS", "examples.games.goofspiel.game")
        patch.setenv("PYTHONPATH", str(ROOT))
        result = arena(
            "play", "-g", "goofspiel", "-a", str(BOT), "-a", "random", "--seed", "5", "--record", str(record)
        )
    return result, record


def test_play_prints_the_fault_detail_escaped(played):
    result, _ = played
    assert result.returncode == 0, result.stderr
    assert_no_raw_controls(result)
    assert "forfeited (error, move)" in result.stdout and "\\x1b]52;c;" in result.stdout


def test_replay_prints_the_fault_detail_escaped(played):
    _, record = played
    data = json.loads(record.read_text())
    assert "\x1b]52" in data["agents"][0]["stderr"]  # the record keeps the text as written
    result = arena("replay", str(record), "--final")
    assert result.returncode == 0, result.stderr
    assert_no_raw_controls(result)
    assert "\\x1b[2J" in result.stdout


def test_replay_escapes_names_and_errors_from_a_forged_record(played, tmp_path):
    _, record = played
    data = json.loads(record.read_text())
    data["agents"][0]["display"] = "\x1b[2J\x1b]52;c;eA==\x07"
    data["spec"]["display_names"] = [data["agents"][0]["display"], "random"]
    data["faults"][0]["fault"] = "\x1b[32mnone\x1b[0m"
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(data))
    listing = arena("replay", str(forged))
    assert_no_raw_controls(listing)
    data["moves"][0]["choice"] = "\x1b[2J"  # refused: the error line quotes it
    forged.write_text(json.dumps(data))
    refused = arena("replay", str(forged))
    assert refused.returncode == 2 and refused.stderr.startswith("error: ")
    assert_no_raw_controls(refused)


def test_check_prints_detail_and_stderr_escaped():
    result = arena("check", str(BOT), "--game", "goofspiel")  # seat 0: an error message; seat 1: a crash
    assert result.returncode == 1, result.stderr
    assert_no_raw_controls(result)
    assert "stderr| " in result.stdout and "\\x1b]52;c;" in result.stdout
    assert "FORFEIT goofspiel 2p seat 0: error: \\x1b[2J" in result.stdout
    assert "RuntimeError: \\x1b[2J" in result.stdout  # the crash's traceback, in the stderr tail


LADDER = """\
name = "evil\\u001b[2J ladder"
game = "goofspiel"
seed = 3

[[agents]]
name = "\\u001b[2J\\u001b]52;c;eA==\\u0007\\u202erandom"
agent = "random"
options = {{ seed = 1 }}

[[agents]]
name = "bot"
agent = "{bot}"
"""


def test_tournament_tables_escape_names(tmp_path):
    ladder = tmp_path / "l.toml"
    ladder.write_text(LADDER.format(bot=BOT))
    db = str(tmp_path / "t.db")
    ran = arena("run", str(ladder), "--db", db, "--quiet")
    assert ran.returncode == 0, ran.stderr
    assert_no_raw_controls(ran)
    for command in (
        ("leaderboard",),
        ("leaderboard", "--format", "csv"),
        ("leaderboard", "--format", "json"),
        ("matches",),
        ("head-to-head", "bot", "\x1b[2J\x1b]52;c;eA==\x07\u202erandom"),
        ("export",),
        ("export", "--format", "json"),
        ("record", "0"),
    ):
        result = arena(*command, "--db", db)
        assert result.returncode == 0, (command, result.stderr)
        assert_no_raw_controls(result)
        assert "bot" in result.stdout

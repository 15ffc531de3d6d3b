"""Every bad input gets one clear line, no traceback, and a played match is never lost."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from arena.match.inprocess import play_in_process
from arena.match.record import ReplayError, load_record, replay
from arena.match.referee import run_match
from arena.match.spec import MatchSpec
from arena.wire.protocol import ProtocolError
from examples.games.goofspiel.game import GAME
from plugins.random_agent import RandomAgent
from tests.support.agent_processes import ROUNDS, check_replays
from tests.support.cli import arena_in_process
from tests.support.faulty_agents import HostedFault

ROOT = Path(__file__).resolve().parents[3]


def arena(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """``arena ARGS`` in this process (what it prints is the subject here); ``run``, which plays in
    worker processes of its own, as a real process."""
    if args[0] != "run":
        return arena_in_process(*args, cwd=cwd)
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, cwd=cwd, timeout=240
    )


def one_error_line(result: subprocess.CompletedProcess, code: int = 2) -> str:
    """The single ``error:`` line of a refused command (asserting there is nothing else)."""
    assert result.returncode == code, (result.returncode, result.stderr)
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.stderr
    return result.stderr


# -- 1. a solo game names its automaton, or is refused ---------------------------------------


def test_one_agent_without_automaton_is_refused_before_any_process():
    result = arena("play", "--game", "zapotec", "--agent", "random", "--seed", "1")
    assert "zapotec needs 2-4 agents, or 1 with --automaton cocijobot" in one_error_line(result)
    result = arena("play", "--game", "zapotec", "--agent", "random", "--option", "automaton=cocijobot")
    assert "1 with --automaton cocijobot" in one_error_line(result)


def test_the_automaton_is_named_as_its_seat_in_table_and_json():
    result = arena(
        "play", "-g", "zapotec", "-a", "random", "--automaton", "cocijobot", "--seed", "2", "--json"
    )
    assert result.returncode == 0, result.stderr
    seats = json.loads(result.stdout)["seats"]
    assert [seat["agent"] for seat in seats] == ["random", "cocijobot"]


# -- 2. --record: checked before the match; a played match is never lost ---------------------


@pytest.mark.parametrize(
    ("where", "message"),
    [("{tmp}", "is a folder"), ("{tmp}/missing/m.json", "does not exist")],
)
def test_record_path_is_checked_before_the_match(tmp_path, where, message):
    result = arena(
        "play", "-g", "goofspiel", "-a", "random", "-a", "random", "--record", where.format(tmp=tmp_path)
    )
    assert message in one_error_line(result)
    assert result.stdout == ""  # refused up front: nothing was played


def test_a_record_that_cannot_be_written_after_the_match_is_rescued(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from arena.cli import main as cli

    target = tmp_path / "m.json"
    real_write = Path.write_text

    def failing_write(self, *args, **kwargs):
        if self == target:
            raise OSError(28, "No space left on device")
        return real_write(self, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", failing_write)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    result = CliRunner().invoke(
        cli.app,
        ["play", "-g", "goofspiel", "-a", "random", "-a", "random", "--seed", "4", "--record", str(target)],
    )
    assert result.exit_code == 1 and "seat" in result.stdout  # the table is still shown
    assert "No space left on device" in result.stderr and "it was saved to" in result.stderr
    (rescued,) = tmp_path.glob("tlachtli-*.json")
    record = load_record(str(rescued))
    assert record["seed"] == 4 and replay(record, GAME).terminal()


# -- 3. files that are not UTF-8 --------------------------------------------------------------


def test_non_utf8_ladder_and_record_get_one_line(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_bytes(b'name = "caf\xe9"\n')
    assert "not UTF-8 text (byte 0xe9 at offset 11)" in one_error_line(
        arena("run", str(bad), "--db", str(tmp_path / "t.db"))
    )
    bad_record = tmp_path / "bad.json"
    bad_record.write_bytes(b'{"format": "tlachtli-match\xff"}')
    assert "not UTF-8 text" in one_error_line(arena("replay", str(bad_record)))


# -- 4. a damaged store -----------------------------------------------------------------------

LADDER = """\
name = "g"
game = "goofspiel"
[[agents]]
name = "r1"
agent = "random"
options = { seed = 1 }
[[agents]]
name = "r2"
agent = "random"
"""


@pytest.fixture(scope="module")
def test_plugins():
    """The test plugins for module-scoped fixtures (conftest's autouse fixture is per test)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TLACHTLI_PLUGINS", "examples.games.goofspiel.game,tests.support.faulty_agents")
        patch.setenv("PYTHONPATH", str(ROOT))
        yield


@pytest.fixture(scope="module")
def played_store(tmp_path_factory, test_plugins) -> Path:
    """A store holding one finished two-match ladder (copied by each test before damaging it)."""
    folder = tmp_path_factory.mktemp("store")
    (folder / "l.toml").write_text(LADDER)
    result = arena("run", str(folder / "l.toml"), "--db", str(folder / "t.db"), "--quiet")
    assert result.returncode == 0, result.stderr
    return folder / "t.db"


def damaged_copy(played_store: Path, tmp_path: Path, damage) -> Path:
    db = tmp_path / "d.db"
    db.write_bytes(played_store.read_bytes())
    damage(db)
    return db


def _sql(statement: str):
    def damage(db: Path) -> None:
        with sqlite3.connect(db) as connection:
            connection.execute(statement)
        connection.close()

    return damage


def _overwrite_pages(db: Path) -> None:
    with open(db, "r+b") as handle:
        handle.seek(16)
        size = int.from_bytes(handle.read(2), "big")  # the page size, from the file's header
        handle.seek(size)  # the second and third pages: the first tables' roots
        handle.write(b"\xff" * 2 * size)


@pytest.mark.parametrize(
    ("damage", "command", "doctor_says"),
    [
        (_overwrite_pages, ("leaderboard",), "malformed"),
        (_sql("DROP TABLE seats"), ("matches",), "table 'seats' is missing"),
        (_sql("UPDATE records SET data = x'00112233'"), ("record", "0"), "does not decode"),
        (_sql("UPDATE matches SET spec = '{bad'"), ("matches",), "stored spec is damaged"),
        # a hand-edited store: each once a traceback of the commands that read it
        (
            _sql("UPDATE seats SET rank = 'first' WHERE seat = 0"),
            ("leaderboard",),
            "table seats, match 1 seat 0",
        ),
        (
            _sql("UPDATE seats SET rank = 'first' WHERE seat = 0"),
            ("head-to-head", "r1", "r2"),
            "its rank is 'first'",
        ),
        (_sql("UPDATE matches SET entrants = 'r1 r2'"), ("export",), "table matches, row 1"),
        (_sql("UPDATE matches SET entrants = '{}'"), ("matches",), "entrants are not a list of names"),
    ],
)
def test_damaged_store_one_line_and_doctor_names_it(played_store, tmp_path, damage, command, doctor_says):
    db = damaged_copy(played_store, tmp_path, damage)
    line = one_error_line(arena(*command, "--db", str(db)))
    assert "arena doctor" in line and "restore" in line
    doctor = arena("doctor", str(db))
    assert doctor.returncode == 1 and doctor.stderr == ""
    assert doctor_says in doctor.stdout
    assert all(row.startswith("problem: ") for row in doctor.stdout.splitlines())


def test_doctor_passes_a_sound_store(played_store):
    result = arena("doctor", str(played_store))
    assert result.returncode == 0 and result.stdout.startswith("OK: ") and "2 records" in result.stdout


# -- 5 and 14. records that are malformed or edited ------------------------------------------


@pytest.fixture(scope="module")
def good_record(test_plugins) -> dict:
    outcome = run_match(MatchSpec(game="goofspiel", agents=("fault-crash", "random"), seed=3))
    return outcome.record


def edited(record: dict, edit) -> dict:
    copy = json.loads(json.dumps(record))
    edit(copy)
    return copy


def _set(path: tuple, value):
    def edit(record: dict) -> None:
        target = record
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return edit


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (_set(("moves", 0, "choice"), "1"), "move 1 must have int 'seat' and 'choice'"),
        (_set(("moves", 0, "choice"), True), "move 1 must have int 'seat' and 'choice'"),
        (_set(("result",), None), "field 'result' must be dict"),
        (_set(("result", "ranks"), [1, 1]), "with the recorded faults the final ranks are [2, 1]"),
        (_set(("faults",), []), "move 3: seat 0 played by 'random', but the record lists no fault"),
        (_set(("faults", 0, "seat"), 1), "move 3: seat 0 played by 'random', but the record lists no fault"),
        (
            _set(("faults", 0, "move"), 0),
            "move 1: seat 0 played by 'agent', but the record lists it forfeited",
        ),
        (_set(("moves", 0, "choice"), 99), "move 1: choice 99 out of range"),
    ],
)
def test_replay_refuses_a_malformed_or_edited_record(tmp_path, good_record, edit, message):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(edited(good_record, edit)))
    line = one_error_line(arena("replay", str(path)), code=2 if "must" in message else 1)
    assert message in line


def test_replay_numbers_moves_from_one_in_listing_and_errors(tmp_path, good_record):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(good_record))
    listing = arena("replay", str(path))
    assert listing.returncode == 0, listing.stderr
    assert "--- move 1: seat" in listing.stdout and "--- move 0:" not in listing.stdout
    with pytest.raises(ReplayError, match="^move 1: choice 99"):
        replay(edited(good_record, _set(("moves", 0, "choice"), 99)), GAME)


def test_non_json_record_is_one_line(tmp_path):
    path = tmp_path / "r.json"
    path.write_bytes(b"\x00\x01 not json")
    assert "is not JSON" in one_error_line(arena("replay", str(path)))


# -- 6 and 7. one rule for a bot's answer, wire or Python -------------------------------------


@pytest.mark.parametrize(("value", "shown"), [("1", "'1'"), (1.9, "1.9"), (True, "True")])
def test_python_bot_answer_that_is_no_int_faults_like_a_wire_bot(value, shown, no_leftovers):  # noqa: F811
    options = ({"mode": "returns", "value": value, "at": 2}, {})
    outcome = run_match(
        MatchSpec(game="goofspiel", agents=("hosted-fault", "random"), seed=3, agent_options=options)
    )
    (fault,) = outcome.record["faults"]
    assert fault["fault"] == "bad-frame" and f"'choice' must be int, got {shown}" in fault["detail"]
    check_replays(outcome)


@pytest.mark.parametrize(
    ("value", "kind"), [("1", "bad-frame"), (1.9, "bad-frame"), (True, "bad-frame"), (9, "illegal-choice")]
)
def test_in_process_play_applies_the_same_rule(value, kind):
    bot = HostedFault()
    bot_options = {"mode": "returns", "value": value, "at": 1}
    with pytest.raises(ProtocolError) as caught:
        play_in_process(GAME, [bot, RandomAgent()], 3, agent_options=[bot_options, {}])
    assert caught.value.kind == kind


def test_an_answer_sent_before_its_decide_is_refused(no_leftovers):  # noqa: F811
    spec = MatchSpec(
        game="goofspiel", agents=("fault-early", "random"), seed=3, agent_options=({"at": 2}, {})
    )
    outcome = run_match(spec)
    (fault,) = outcome.record["faults"]
    assert fault["fault"] == "unknown-type"
    assert "sent a 'act' message with id" in fault["detail"] and "before it was asked" in fault["detail"]
    mine = [move["by"] for move in outcome.record["moves"] if move["seat"] == 0]
    assert mine == ["agent", "agent"] + ["random"] * (ROUNDS - 2)  # the guess was never applied
    check_replays(outcome)


def test_closing_stdin_is_named_as_stdin(no_leftovers):  # noqa: F811
    # Without a sandbox: under bwrap the sandbox's own process still holds the agent's stdin, so
    # the referee cannot see it closed, and a bot that then stays silent is a timeout instead.
    spec = MatchSpec(
        game="goofspiel",
        agents=("fault-close-stdin", "random"),
        seed=3,
        agent_options=({"at": 2}, {}),
        sandbox="none",
    )
    outcome = run_match(spec)
    (fault,) = outcome.record["faults"]
    assert fault["fault"] == "exit" and "closed its stdin but is still running" in fault["detail"]


# -- 8. head-to-head of one agent with itself ------------------------------------------------


def test_head_to_head_refuses_an_agent_against_itself(played_store):
    line = one_error_line(arena("head-to-head", "r1", "r1", "--db", str(played_store)))
    assert "compare two different agents" in line


# -- 15. a record says exactly who played ------------------------------------------------------


def test_record_carries_display_names_and_agent_options(played_store, tmp_path):
    result = arena("record", "0", "--db", str(played_store))
    assert result.returncode == 0, result.stderr
    agents = json.loads(result.stdout)["agents"]
    assert [(a["display"], a["agent"], a["options"]) for a in agents] == [
        ("r1", "random", {"seed": 1}),
        ("r2", "random", {}),
    ]


def test_a_record_without_the_new_fields_still_replays(tmp_path, good_record):
    old = edited(
        good_record, lambda r: [entry.pop(key) for entry in r["agents"] for key in ("display", "options")]
    )
    del old["spec"]["display_names"]
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old))
    result = arena("replay", str(path), "--final")
    assert result.returncode == 0 and "replay OK" in result.stdout, result.stderr

"""`arena replay` refuses a record edited to give another result, each in one line.

Each forged record is made from a real one: the seats swapped (another winner), a fault invented
after the last move (ranks flipped), and a spec that disagrees with the record.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.match.record import ReplayError, replay
from arena.match.referee import run_match
from arena.match.spec import MatchSpec
from examples.games.goofspiel.game import GAME

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def real_record() -> dict:
    with pytest.MonkeyPatch.context() as patch:  # conftest's plugin setting is per test
        patch.setenv("TLACHTLI_PLUGINS", "examples.games.goofspiel.game,examples.games.goofspiel.agents")
        patch.setenv("PYTHONPATH", str(ROOT))
        spec = MatchSpec(
            game="goofspiel", agents=("random", "prize-bidder"), seed=8, agent_options=({"seed": 1}, {})
        )
        outcome = run_match(spec)
    record = outcome.record
    assert record["result"]["ranks"] in ([1, 2], [2, 1]) and not record["faults"]
    return record


def forged(record: dict, edit) -> dict:
    copy = json.loads(json.dumps(record))
    edit(copy)
    return copy


def winner(record: dict) -> str:
    return record["agents"][record["result"]["ranks"].index(1)]["agent"]


def swap_agents(record: dict) -> None:
    """The two seats' agents traded: the same game, now won by the other agent."""
    first, second = record["agents"]
    for key in ("agent", "display", "name", "version", "options"):
        first[key], second[key] = second.get(key), first.get(key)


def swap_entries(record: dict) -> None:
    """The agents entries traded whole, seat numbers and all."""
    record["agents"].reverse()


def swap_everything(record: dict) -> None:
    """The seats' moves, scores and ranks traded: the game replayed with the other agent winning."""
    for move in record["moves"]:
        move["seat"] = 1 - move["seat"]
    for key in ("scores", "ranks", "engine_ranks"):
        record["result"][key].reverse()


def invent_fault_after_the_end(record: dict) -> None:
    """The winner 'forfeits' after the last move: it drops to last place."""
    seat = record["result"]["ranks"].index(1)
    moves = len(record["moves"])
    record["faults"].append({"seat": seat, "fault": "timeout", "detail": "x", "phase": "move", "move": moves})
    record["result"]["ranks"].reverse()


def invent_fault_in_handshake_later(record: dict) -> None:
    seat = record["result"]["ranks"].index(1)
    record["faults"].append(
        {"seat": seat, "fault": "handshake", "detail": "x", "phase": "handshake", "move": 5}
    )
    record["result"]["ranks"].reverse()


def spec_field(key: str, value):
    def edit(record: dict) -> None:
        record["spec"][key] = value

    return edit


def drop_spec(record: dict) -> None:
    del record["spec"]


def long_info(record: dict) -> None:
    """8 MiB of a bot's 'info' beside its first move: the referee keeps at most 2,048 characters."""
    record["moves"][0]["info"] = "x" * (8 << 20)


def info_not_text(record: dict) -> None:
    record["moves"][0]["info"] = {"nested": ["x"]}


FORGERIES = [
    (swap_agents, "seat 0 is 'prize-bidder' ('prize-bidder') in the record, 'random' ('random') in its spec"),
    (swap_entries, "the agents entries must be seats 0-1 in order, got [1, 0]"),
    (swap_everything, "move 1: seat 1 is recorded before seat 0, who acts first"),
    (invent_fault_after_the_end, "seat {winner} is recorded as forfeiting after move {moves} while deciding"),
    (invent_fault_in_handshake_later, "failed its handshake after move 5"),
    (spec_field("seed", 9), "the spec says seed 9, the record 8"),
    (spec_field("agents", ["prize-bidder", "random"]), "seat 0 is 'random' ('random') in the record"),
    (spec_field("game", "zapotec"), "the spec says game 'zapotec', the record 'goofspiel'"),
    (spec_field("options", {"cards": 3}), "the spec sets option 'cards' to 3"),
    (drop_spec, "it has no 'spec'"),
    (long_info, "move 1: its info is 8,388,608 characters, the referee keeps at most 2,048"),
    (info_not_text, "move 1: its info must be text"),
]


@pytest.mark.parametrize(("edit", "message"), FORGERIES, ids=[edit.__name__ for edit, _ in FORGERIES])
def test_replay_refuses_a_forged_record_in_one_line(real_record, tmp_path: Path, edit, message):
    record = forged(real_record, edit)
    message = message.format(winner=real_record["result"]["ranks"].index(1), moves=len(real_record["moves"]))
    with pytest.raises(ReplayError) as refused:
        replay(record, GAME)
    assert message in str(refused.value)
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(record))
    result = CliRunner().invoke(app, ["replay", str(path)])
    assert (
        result.exit_code in (1, 2) and "replay OK" not in result.stdout
    )  # steps may be listed before the error
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.stderr
    assert message in result.stderr and "Traceback" not in result.stderr


def test_the_real_record_replays_and_the_forgeries_would_change_the_winner(real_record, tmp_path):
    path = tmp_path / "real.json"
    path.write_text(json.dumps(real_record))
    result = CliRunner().invoke(app, ["replay", str(path), "--final"])
    assert result.exit_code == 0 and "replay OK" in result.stdout, result.stderr
    assert winner(forged(real_record, swap_agents)) != winner(real_record)
    assert (
        forged(real_record, invent_fault_after_the_end)["result"]["ranks"] != real_record["result"]["ranks"]
    )

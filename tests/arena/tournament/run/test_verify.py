"""A cluster worker's result is plain data, checked against the match scheduled before it is stored."""

from __future__ import annotations

import copy
import json
import os
import pickle
from pathlib import Path

import pytest

from arena.match.referee import run_match
from arena.match.spec import MatchSpec
from arena.registry.plugins import discover
from arena.tournament.run.replies import Cancelled, Done, Failed, Lost, Refused, Unchecked
from arena.tournament.run.verify import ResultRejected, checked_outcome, decode_reply, encode_reply

SPEC = MatchSpec(
    game="goofspiel",
    agents=("prize-bidder", "random"),
    seed=4,
    options={"cards": 4},
    display_names=("b", "r"),
)


@pytest.fixture(scope="module")
def played():
    """One real match (played once for the module), and the registry that knows its game."""
    root = str(Path(__file__).resolve().parents[4])
    with pytest.MonkeyPatch.context() as patch:  # the conftest's plugins, for a module-wide fixture
        patch.setenv("TLACHTLI_PLUGINS", "examples.games.goofspiel.game,examples.games.goofspiel.agents")
        patch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])))
        registry = discover()
        yield run_match(SPEC, registry), registry


def test_an_honest_reply_round_trips_to_the_same_outcome(played):
    outcome, registry = played
    reply = decode_reply(encode_reply(Done(outcome, 1.5)))
    assert isinstance(reply, Unchecked) and reply.seconds == 1.5
    assert checked_outcome(SPEC, reply.record, registry) == outcome


def _forged(record: dict, change) -> dict:
    forged = copy.deepcopy(record)
    change(forged)
    return forged


def _win_for_seat_0(record: dict) -> None:
    result = record["result"]
    result["scores"][0] = max(result["scores"]) + 1
    result["ranks"], result["engine_ranks"] = [1, 2], [1, 2]


def _swap_seats(record: dict) -> None:
    record["agents"][0]["agent"], record["agents"][1]["agent"] = "random", "prize-bidder"


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (_win_for_seat_0, "does not replay"),
        (lambda r: r["moves"].pop(), "does not replay"),
        (lambda r: r.update(seed=5), "record's seed is 5"),
        (lambda r: r["spec"].update(seed=5), "record's spec"),
        (lambda r: r["options"].update(cards=5), "record's options"),
        (lambda r: r["clock"].update(move_ms=1), "record's clock"),
        (_swap_seats, "its record seats"),
        (lambda r: r["faults"].append({"seat": 1, "move": 0}), "faults are malformed"),
        (lambda r: r["faults"].append({"seat": 1, "move": 0, "fault": "crash"}), "does not replay"),
    ],
)
def test_a_forged_or_mismatched_record_is_rejected(played, change, why):
    outcome, registry = played
    with pytest.raises(ResultRejected, match=why):
        checked_outcome(SPEC, _forged(outcome.record, change), registry)


def test_a_record_of_another_match_is_rejected(played):
    outcome, registry = played
    other = MatchSpec(
        **{**SPEC.to_dict(), "agents": ("random", "prize-bidder"), "agent_options": (), "display_names": ()}
    )
    with pytest.raises(ResultRejected):
        checked_outcome(other, outcome.record, registry)


class _RunsCode:
    def __reduce__(self):
        return (print, ("a pickle ran",))


@pytest.mark.parametrize(
    "data",
    [
        pickle.dumps(_RunsCode()),  # bytes, but a pickle: never loaded
        _RunsCode(),  # an object, not bytes
        b"\xff\xfe",
        b"[1, 2]",
        json.dumps({"reply": "done", "record": {}, "seconds": float("nan")}).encode(),
        json.dumps({"reply": "lost", "details": ["x", "yes", 1]}).encode(),
        json.dumps({"reply": "anything"}).encode(),
    ],
)
def test_a_reply_that_is_not_plain_data_of_a_known_shape_is_rejected(data, capsys):
    with pytest.raises(ResultRejected):
        decode_reply(data)
    assert "a pickle ran" not in capsys.readouterr().out


def test_every_reply_a_worker_sends_decodes():
    for reply in [
        Failed("boom"),
        Refused("other plugins"),
        Cancelled(),
        Lost("killed", True, 1),
    ]:
        assert decode_reply(encode_reply(reply)) == reply


def test_the_replies_keep_their_json_names():
    # Workers and submitters of different versions read each other's bytes: the names are the format.
    assert json.loads(encode_reply(Lost("killed", True, 2))) == {
        "reply": "lost",
        "details": ["killed", True, 2],
    }
    assert json.loads(encode_reply(Failed("boom"))) == {"reply": "error", "details": ["boom"]}
    assert json.loads(encode_reply(Cancelled())) == {"reply": "cancelled", "details": []}

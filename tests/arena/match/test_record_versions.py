"""Records of an older engine version are refused with one line naming both versions (rules
corrections changed Teotihuacan 0.4.0 and Zapotec 1.2.0, so a 0.3.0 / 1.1.0 game cannot replay)."""

from __future__ import annotations

import json
from random import Random

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.match.record import RECORD_FORMAT, RECORD_VERSION, ReplayError, replay
from arena.match.spec import MatchSpec
from engine.playout import random_choice
from engine.teotihuacan import GAME as TEOTIHUACAN
from engine.zapotec import GAME as ZAPOTEC

# The last versions before the rules corrections.
BEFORE_FIXES = [(TEOTIHUACAN, "0.3.0", {}), (ZAPOTEC, "1.1.0", {})]
# New readings of the Late Preclassic changed its games in Teotihuacan 0.5.0.
BEFORE_READINGS = [(TEOTIHUACAN, "0.4.0", {"modules": "priests,height"})]


def played_record(game, seed: int, options: dict) -> dict:
    """A record of a random 2-player game on the installed engine, with the fields replay reads."""
    state = game.setup(2, seed, options)
    rng = Random(seed)
    moves = []
    while not state.terminal():
        seat = state.to_act()[0]
        choice = random_choice(state, seat, rng)
        moves.append({"seat": seat, "choice": choice, "ms": 0.0, "by": "agent"})
        state.apply(seat, choice)
    result = state.result()
    return {
        "format": RECORD_FORMAT,
        "record_version": RECORD_VERSION,
        "game": game.id,
        "game_version": game.version,
        "seed": seed,
        "players": 2,
        "options": options,
        "agents": [{"seat": s, "agent": "random"} for s in range(2)],
        "spec": MatchSpec(game.id, ("random", "random"), seed, options).to_dict(),
        "moves": moves,
        "faults": [],
        "result": {
            "scores": list(result.scores),
            "ranks": list(result.ranks),
            "engine_ranks": list(result.ranks),
        },
    }


@pytest.mark.parametrize(
    "game,old,options", BEFORE_FIXES + BEFORE_READINGS, ids=["teotihuacan", "zapotec", "teotihuacan-0.4.0"]
)
def test_a_record_of_the_version_before_the_rules_corrections_is_refused(game, old, options):
    record = played_record(game, 5, options)
    assert replay(record, game).terminal()  # the installed version replays its own record
    with pytest.raises(ReplayError) as refused:
        replay(dict(record, game_version=old), game)
    message = str(refused.value)
    assert f"{game.id} version {old}" in message and game.version in message and "\n" not in message


def test_arena_replay_refuses_an_old_record_in_one_line(tmp_path):
    path = tmp_path / "old.json"
    path.write_text(json.dumps(dict(played_record(TEOTIHUACAN, 3, {}), game_version="0.3.0")))
    out = CliRunner().invoke(app, ["replay", str(path)])
    assert out.exit_code != 0
    lines = [line for line in out.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "version 0.3.0" in lines[0] and TEOTIHUACAN.version in lines[0]
    assert "Traceback" not in out.output

"""The ``flatmc`` agent: legal complete games in process, determinism, strength, and one real match."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from arena.match.inprocess import decide_message, hello_message, play_in_process
from arena.registry.plugins import discover
from engine.api import Game, Result
from engine.teotihuacan import GAME as TEOTIHUACAN
from engine.zapotec import GAME as ZAPOTEC
from plugins.flat_mc_agent import FlatMonteCarloAgent, outcome_value
from plugins.random_agent import RandomAgent

# One playout per option (fewer than the options count as one each): these tests check
# legality and behaviour, not strength.
QUICK = {"playouts": 1}


def flatmc_vs_random(game: Game, seed: int, flatmc_seat: int, playouts: int) -> tuple[int, int, int]:
    """(flatmc's rank, its score, random's score) after one 2-player game in process."""
    agents = [RandomAgent(), RandomAgent()]
    options = [{"seed": 100 + seed}, {"seed": 100 + seed}]
    flatmc = FlatMonteCarloAgent()
    agents[flatmc_seat] = flatmc
    options[flatmc_seat] = {"seed": seed, "playouts": playouts}
    result = play_in_process(game, agents, seed, agent_options=options).result()
    assert flatmc.fallbacks == 0  # the engines rebuild the exact decision from the observation
    return result.ranks[flatmc_seat], result.scores[flatmc_seat], result.scores[1 - flatmc_seat]


def test_registered_through_the_entry_point_group():
    spec = discover().agent("flatmc")
    assert spec.factory is FlatMonteCarloAgent and spec.plays("zapotec")


@pytest.mark.parametrize("game", [ZAPOTEC, TEOTIHUACAN], ids=lambda g: g.id)
def test_plays_complete_two_player_games(game):
    # play_in_process raises ProtocolError on any choice that is not an option's index.
    state = play_in_process(game, [FlatMonteCarloAgent(), RandomAgent()], 5, agent_options=[QUICK, {}])
    assert state.terminal() and len(state.result().scores) == 2


def test_plays_solo_zapotec_against_cocijobot():
    agent = FlatMonteCarloAgent()
    state = play_in_process(ZAPOTEC, [agent], 3, agent_options=[QUICK], automaton="cocijobot")
    result = state.result()
    assert state.terminal() and len(result.scores) == 2  # the automaton holds seat 1
    assert agent.fallbacks == 0


def test_same_seed_same_game_other_seed_other_choices():
    def choices(seed: int) -> list[int]:
        state = ZAPOTEC.setup(2, 7, {})
        agents = [FlatMonteCarloAgent(), FlatMonteCarloAgent()]
        for seat, agent in enumerate(agents):
            agent.setup(hello_message(ZAPOTEC, seat, 2, {}, {"seed": seed + seat, "playouts": 2}))
        picked, step = [], 0
        while state.to_act() and step < 30:
            seat = state.to_act()[0]
            step += 1
            message = decide_message(state, seat, step)
            picked.append(agents[seat].act(message["obs"], message))
            state.apply(seat, picked[-1])
        return picked

    assert choices(1) == choices(1)
    assert choices(1) != choices(50)


def test_a_single_option_is_answered_without_search():
    agent = FlatMonteCarloAgent()  # no setup: a forced move must not need the game
    assert agent.act({}, {"options": [{"label": "pass"}]}) == 0


def test_a_sampled_state_that_disagrees_falls_back_to_a_random_option():
    state = ZAPOTEC.setup(2, 2, {})
    seat = state.to_act()[0]
    agent = FlatMonteCarloAgent()
    agent.setup(hello_message(ZAPOTEC, seat, 2, {}, {"seed": 4}))
    message = decide_message(state, seat, 1)
    message["options"] = message["options"] + [{"label": "not in the engine"}]
    assert 0 <= agent.act(message["obs"], message) < len(message["options"])
    assert agent.fallbacks == 1


def test_bad_playouts_option_is_refused_with_its_name():
    with pytest.raises(ValueError, match="playouts"):
        FlatMonteCarloAgent().setup(hello_message(ZAPOTEC, 0, 2, {}, {"playouts": 0}))


def test_outcome_value_is_the_margin_over_the_best_other_seat():
    result = Result(scores=(30, 20, 25), ranks=(1, 3, 2))
    assert [outcome_value(result, seat) for seat in range(3)] == [5.0, -10.0, -5.0]
    assert outcome_value(Result(scores=(12,), ranks=(1,)), 0) == 12.0  # nobody else to beat


def test_beats_random_on_zapotec():
    # 4 playouts a decision win all 10 (by 2 to 32 points); 16 cost 4x as much
    outcomes = [flatmc_vs_random(ZAPOTEC, seed, seed % 2, playouts=4) for seed in range(10)]
    wins = sum(1 for rank, mine, theirs in outcomes if rank == 1 and mine > theirs)
    assert wins >= 8, outcomes


def test_real_subprocess_match():
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "arena.cli",
            "play",
            "--game",
            "zapotec",
            "--agent",
            "flatmc",
            "--agent",
            "random",
        ]
        + ["--seed", "3", "--json", "--agent-option", "0:playouts=16"],  # wins 31-10 (160: 3x the time)
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    seats = json.loads(result.stdout)["seats"]
    assert [s["agent"] for s in seats] == ["flatmc", "random"]
    assert all(s["fault"] is None for s in seats)
    assert seats[0]["rank"] == 1 and seats[0]["score"] > seats[1]["score"]

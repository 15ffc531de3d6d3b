"""``GAME.from_observation`` parses an observation once and re-deals a copy for an equal one
(a pure speed-up for search bots): the states and the generator's draws must be exactly
those of parsing afresh, so seeded bots make the same choices."""

from __future__ import annotations

from random import Random

import pytest

from arena.match.inprocess import play_in_process
from engine.zapotec import GAME
from engine.zapotec.core import LIST_FIELDS, NESTED_FIELDS, SCALAR_FIELDS
from engine.zapotec.game import ZapotecGame
from engine.zapotec.setup import from_observation
from engine.zapotec.state import ZapotecState
from plugins.bots.ismcts import ISMCTSAgent


def fields(state: ZapotecState) -> dict:
    """Every field of ``state`` and where its generator stands."""
    names = [n for n in SCALAR_FIELDS + LIST_FIELDS + NESTED_FIELDS if n != "data"]
    return {**{n: getattr(state, n) for n in names}, "rng": state.rng.getstate()}


@pytest.mark.parametrize("players", [1, 2, 4])
def test_a_repeated_observation_gives_the_state_parsing_gives(players):
    game = ZapotecGame()
    state = game.setup(players, 11, {})
    rng = Random(5)
    checked = 0
    while state.to_act():
        for seat in range(players):
            obs = state.observation(seat)
            for k in range(3):  # the first call parses, the next two re-deal the copy
                fresh_rng, cached_rng = Random(100 * k + seat), Random(100 * k + seat)
                assert fields(game.from_observation(obs, cached_rng)) == fields(
                    from_observation(obs, fresh_rng)
                )
                assert cached_rng.getstate() == fresh_rng.getstate()
                checked += 1
        seat = state.to_act()[0]
        state.apply(seat, rng.randrange(len(state.decision(seat).options)))
    assert checked > 30  # a whole game, every seat's view at every decision


def test_a_changed_observation_is_parsed_again():
    game = ZapotecGame()
    state = game.setup(2, 3, {})
    obs = state.observation(0)
    game.from_observation(obs, Random(1))
    obs["seats"][0]["score"] = 7  # the same dict, changed in place after the call
    assert game.from_observation(obs, Random(1)).score[0] == 7


def test_a_seeded_ismcts_game_replays_without_the_copy(monkeypatch):
    def play() -> tuple:
        agent = ISMCTSAgent()
        state = play_in_process(
            GAME, [agent], 9, agent_options=[{"seed": 2, "iterations": 40}], automaton="cocijobot"
        )
        return state.result().scores, [e["text"] for e in state.log()]

    with_copy = play()
    monkeypatch.setattr(ZapotecGame, "from_observation", lambda self, obs, rng: from_observation(obs, rng))
    assert play() == with_copy


def without_log(state: ZapotecState) -> dict:
    """``fields`` less the log (a search's sample keeps none)."""
    return {k: v for k, v in fields(state).items() if k not in ("events", "keep_log")}


@pytest.mark.parametrize("players", [1, 2, 3])
def test_observation_sampler_makes_what_from_observation_makes_without_a_log(players):
    # The sampler parses once and re-deals the parse for each sample: the states, the draws and
    # the play from them must be from_observation's; only the log is not kept.
    state = GAME.setup(players, 4, {})
    rng = Random(8)
    steps = 0
    while state.to_act():
        if steps % 7 == 0:
            seat = state.to_act()[0]
            obs = state.observation(seat)
            sample = GAME.capabilities.observation_sampler(obs)
            for k in range(2):
                fast_rng, full_rng = Random(k), Random(k)
                fast, full = sample(fast_rng), from_observation(obs, full_rng)
                assert without_log(fast) == without_log(full)
                assert fast_rng.getstate() == full_rng.getstate()
                for played in (fast, full):
                    moves = Random(steps)
                    while played.to_act():
                        who = played.to_act()[0]
                        played.apply(who, moves.randrange(played.option_count(who)))
                assert without_log(fast) == without_log(full) and fast.result() == full.result()
                assert fast.log() == [] and len(full.log()) > 0
        seat = state.to_act()[0]
        state.apply(seat, rng.randrange(state.option_count(seat)))
        steps += 1
    assert steps > 25  # a whole game (solo: ~30 decisions)

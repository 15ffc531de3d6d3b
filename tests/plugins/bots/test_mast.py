"""``ismcts``'s ``mast`` playout policy (plugins/bots/mast.py) and the options that tune it."""

from __future__ import annotations

from random import Random

import pytest

from arena.match.inprocess import hello_message, play_in_process
from engine.zapotec import GAME as ZAPOTEC
from plugins.bots.ismcts import ISMCTSAgent
from plugins.bots.mast import UNSEEN, MoveAverages


def test_the_best_mean_is_chosen_and_an_unseen_move_first():
    averages = MoveAverages()
    averages.add((0, "a", 0), 0.2)
    averages.add((0, "b", 0), 0.9)
    averages.add((0, "b", 0), 0.5)
    assert averages.mean((0, "b", 0)) == pytest.approx(0.7)
    rng = Random(1)
    assert averages.choose([(0, "a", 0), (0, "b", 0)], rng, epsilon=0.0) == 1
    assert averages.mean((0, "c", 0)) == UNSEEN
    assert averages.choose([(0, "a", 0), (0, "b", 0), (0, "c", 0)], rng, epsilon=0.0) == 2


def test_epsilon_one_is_uniformly_random():
    averages = MoveAverages()
    averages.add((0, "a", 0), 1.0)  # the best by far, yet never preferred at epsilon 1
    keys = [(0, "a", 0), (0, "b", 0), (0, "c", 0)]
    rng = Random(3)
    picks = [averages.choose(keys, rng, epsilon=1.0) for _ in range(3000)]
    assert all(800 < picks.count(i) < 1200 for i in range(3))


def test_decay_keeps_the_means_and_shrinks_their_weight():
    averages = MoveAverages()
    for reward in (1.0, 1.0, 1.0, 0.0):
        averages.add((0, "a", 0), reward)
    averages.decay(0.5)
    assert averages.mean((0, "a", 0)) == pytest.approx(0.75)
    averages.add((0, "a", 0), 0.0)  # weighs as much as half of the four earlier plays
    assert averages.mean((0, "a", 0)) == pytest.approx(1.5 / 3)
    averages.decay(0.0)
    assert averages.mean((0, "a", 0)) == UNSEEN


def solo_game(options: dict) -> tuple[list[float], ISMCTSAgent]:
    """A seeded Zapotec game of ``ismcts`` with ``options`` against Cocijobot: scores and the agent."""
    agent = ISMCTSAgent()
    state = play_in_process(
        ZAPOTEC, [agent], 5, options={"difficulty": "normal"}, agent_options=[options], automaton="cocijobot"
    )
    return list(state.result().scores), agent


def game_choices(options: dict) -> tuple[list[float], int]:
    scores, agent = solo_game(options)
    return scores, len(agent.averages.table)


def averaged_plays(options: dict) -> float:
    """The plays a game's MAST table holds at its end, earlier decisions' weighed by ``decay``."""
    _, agent = solo_game(options)
    return sum(count for _, count in agent.averages.table.values())


def test_decay_carries_the_move_averages_over_the_decisions_of_a_game():
    options = {"iterations": 12, "policy": "mast", "seed": 4}
    fresh = averaged_plays(options)  # the last decision's 12 iterations alone
    kept = averaged_plays({**options, "decay": 1.0})  # every decision's
    assert kept > 10 * fresh
    assert game_choices({**options, "decay": 0.0}) == game_choices(options)  # 0 is the default


def test_a_mast_game_replays_for_a_seed_and_budget_and_learns_moves():
    options = {"iterations": 12, "policy": "mast", "seed": 4}
    scores, learned = game_choices(options)
    assert game_choices(options) == (scores, learned)
    assert learned > 0  # the last decision's moves were averaged


@pytest.mark.parametrize(
    "options, word",
    [({"epsilon": 1.5}, "epsilon"), ({"epsilon": "some"}, "epsilon"), ({"scale": 0}, "scale"),
     ({"decay": -0.1}, "decay"), ({"decay": 2}, "decay"),
     ({"scale": True}, "scale")],
)  # fmt: skip
def test_bad_mast_and_scale_options_are_refused_with_their_name(options, word):
    with pytest.raises(ValueError, match=word):
        ISMCTSAgent().setup(dict(hello_message(ZAPOTEC, 0, 2, {}, options)))

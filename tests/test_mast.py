"""``ismcts``'s ``mast`` playout policy (plugins/bots/mast.py) and the options that tune it."""

from __future__ import annotations

from random import Random

import pytest

from arena.inprocess import hello_message, play_in_process
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


def game_choices(options: dict) -> tuple[list[float], int]:
    agent = ISMCTSAgent()
    state = play_in_process(
        ZAPOTEC, [agent], 5, options={"difficulty": "normal"}, agent_options=[options], automaton="cocijobot"
    )
    return list(state.result().scores), len(agent.averages.table)


def test_a_mast_game_replays_for_a_seed_and_budget_and_learns_moves():
    options = {"iterations": 12, "policy": "mast", "seed": 4}
    scores, learned = game_choices(options)
    assert game_choices(options) == (scores, learned)
    assert learned > 0  # the last decision's moves were averaged


@pytest.mark.parametrize(
    "options, word",
    [({"epsilon": 1.5}, "epsilon"), ({"epsilon": "some"}, "epsilon"), ({"scale": 0}, "scale"),
     ({"scale": True}, "scale")],
)  # fmt: skip
def test_bad_mast_and_scale_options_are_refused_with_their_name(options, word):
    with pytest.raises(ValueError, match=word):
        ISMCTSAgent().setup(dict(hello_message(ZAPOTEC, 0, 2, {}, options)))

from random import Random

import pytest

from engine.api import BadOptions, Decision, IllegalAction, Result, State, competition_ranks, validate_options
from engine.playout import play_random
from examples.games.goofspiel.game import GAME

SCHEMA = {
    "first_game": {"type": "bool", "default": False, "help": ""},
    "level": {"type": "int", "default": 0, "min": -2, "max": 3, "help": ""},
    "layout": {"type": "str", "default": "random", "choices": ["random", "fixed"], "help": ""},
}


def test_validate_options_fills_defaults():
    assert validate_options(SCHEMA, {"level": 2}) == {"first_game": False, "level": 2, "layout": "random"}


@pytest.mark.parametrize(
    "options, fragment",
    [
        ({"colour": 1}, "unknown option 'colour'"),
        ({"level": "2"}, "'level' must be int"),
        ({"level": True}, "'level' must be int"),
        ({"level": 9}, "within -2..3"),
        ({"layout": "spiral"}, "one of ['random', 'fixed']"),
        ({"first_game": 1}, "'first_game' must be bool"),
    ],
)
def test_validate_options_rejects_with_a_clear_message(options, fragment):
    with pytest.raises(BadOptions, match=None) as info:
        validate_options(SCHEMA, options)
    assert fragment in str(info.value)


def test_competition_ranks_share_ties_and_skip():
    assert competition_ranks([(10,), (30,), (10,), (5,)]) == (2, 1, 2, 4)
    assert competition_ranks([(10, 3), (10, 4)]) == (2, 1)


def test_decision_and_result_are_frozen():
    decision = Decision("turn", "Pick", ({"label": "a"},))
    with pytest.raises(AttributeError):
        decision.kind = "x"
    assert Result((1, 2), (2, 1)).details == {}


def test_play_random_finishes_and_replays_bit_for_bit():
    def run(seed):
        state = GAME.setup(3, seed, {"cards": 6})
        assert isinstance(state, State)
        play_random(state, Random(seed))
        return state.result(), state.log()

    assert run(7) == run(7)
    result, _ = run(7)
    assert sorted(result.ranks)[0] == 1


def test_illegal_choice_raises():
    state = GAME.setup(2, 1, {})
    with pytest.raises(IllegalAction):
        state.apply(0, 99)

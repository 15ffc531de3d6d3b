"""Setup by player count, options, and the simultaneous hidden card pick."""

from __future__ import annotations

import pytest

from engine.api import BadOptions, IllegalAction
from engine.zapotec import GAME
from tests.engine.zapotec.util import DATA, choose, new


@pytest.mark.parametrize(
    "players, spaces, offer, deck, hand, scoring",
    [(1, 27, 2, 6, 6, 2), (2, 27, 3, 4, 6, 3), (3, 36, 4, 4, 5, 4), (4, 45, 5, 4, 4, 5)],
)
def test_setup_by_player_count(players, spaces, offer, deck, hand, scoring):
    state = new(players, seed=3)
    in_play = [i for i, used in enumerate(state.in_play) if used]
    assert len(in_play) == spaces
    # Every space in play holds a tile of its own type; spaces out of play stay empty.
    for i, s in enumerate(DATA.spaces):
        tile = state.space_tile[i]
        if i in in_play:
            assert DATA.building_tiles[tile].type == s.type
        else:
            assert tile == -1
    assert len({state.space_tile[i] for i in in_play}) == spaces
    assert len(state.bonus) == 1 and len(state.offer) == offer and len(state.deck) == deck
    assert [len(state.hands[s]) for s in range(players)] == [hand] * players
    cards = state.bonus + state.offer + state.deck + state.removed + [c for h in state.hands for c in h]
    assert sorted(cards) == list(range(1, 28))
    assert len(state.scoring_avail) == scoring and len(set(state.scoring_avail)) == scoring
    assert [len(row) for row in state.display] == [3, 3, 3]
    assert [len(stack) for stack in state.stacks] == ([0, 0, 0] if players == 1 else [9, 9, 9])
    for level, row in enumerate(state.display, start=1):
        assert all(DATA.trade_tiles[t].level == level for t in row)
    assert len(state.ritual_cards) == 3
    assert state.res[0] == [1, 1, 1, 0, 0, 0]
    assert state.pieces[0] == [1, 2, 3] and state.houses_left[0] == 9
    assert state.sac == [0] * state.seats and state.score == [0] * state.seats


def test_solo_has_cocijobot_in_seat_one_and_never_to_act():
    state = new(1, seed=1)
    assert state.seats == 2 and state.solo
    assert state.to_act() == (0,)
    assert len(state.cj_deck) == 27
    assert state.res[1] == [0] * 6


def test_option_schema_and_errors():
    assert GAME.setup(1, 0, {"automaton": "cocijobot", "difficulty": "harder"}).difficulty == "harder"
    with pytest.raises(BadOptions, match="solo games only"):
        GAME.setup(2, 0, {"automaton": "cocijobot"})
    with pytest.raises(BadOptions, match="difficulty"):
        GAME.setup(1, 0, {"difficulty": "nightmare"})
    with pytest.raises(BadOptions, match="'difficulty' adjusts Cocijobot: use players=1"):
        GAME.setup(3, 0, {"difficulty": "easier"})
    assert GAME.setup(3, 0, {"difficulty": "normal"}).difficulty == "normal"
    with pytest.raises(BadOptions, match="1 .solo against Cocijobot. to 4"):
        GAME.setup(5, 0, {})
    assert GAME.id == "zapotec" and GAME.min_players == 1 and GAME.max_players == 4
    assert GAME.automata == ("cocijobot",)


def test_all_seats_pick_simultaneously_and_hidden_then_order_by_number():
    state = new(3, seed=5)
    assert state.to_act() == (0, 1, 2)
    low = min(state.hands[2])
    choose(state, 2, card=low)
    assert state.to_act() == (0, 1)
    # Seat 0 cannot see seat 2's pick before the reveal, only that it picked.
    view = state.observation(0)
    assert view["seats"][2]["picked"] and view["seats"][2]["pick"] == -1
    assert state.observation(2)["seats"][2]["pick"] == low
    assert all(low not in e.values() for e in state.log() if e.get("kind") == "pick")
    choose(state, 0, card=max(state.hands[0]))
    choose(state, 1, card=max(state.hands[1]))
    picks = state.picks
    assert state.order == sorted(range(3), key=lambda s: picks[s])
    assert state.current == state.order[0] and state.step == "income"
    assert state.observation(0)["seats"][2]["pick"] == low  # revealed


def test_illegal_choices_and_seats_are_refused():
    state = new(2, seed=1)
    with pytest.raises(IllegalAction, match="option index"):
        state.apply(0, 99)
    with pytest.raises(IllegalAction, match="option index"):
        state.apply(0, True)
    choose(state, 0, card=state.hands[0][0])
    with pytest.raises(IllegalAction, match="does not act now"):
        state.decision(0)
    with pytest.raises(IllegalAction, match="does not act now"):
        state.apply(0, 0)
    with pytest.raises(ValueError, match="not over"):
        state.result()

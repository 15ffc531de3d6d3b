"""Round flow checked against the rule book along random games: turn order from the revealed
numbers, the leftover Offer card becoming the bonus card, the next Offer, the draw step."""

from __future__ import annotations

from random import Random

import pytest

from engine.zapotec import GAME
from engine.zapotec.data import load

D = load()


def _play_round(state, rng: Random) -> dict:
    """Play one round at random; return what the rule book lets us predict from it."""
    seen = {"offer_start": list(state.offer), "deck_top": state.deck[-1] if state.deck else None}
    drawn = []
    while state.to_act() and state.step == "pick":
        seat = state.to_act()[0]
        state.apply(seat, rng.randrange(len(state.decision(seat).options)))
    seen["picks"] = [state.picks[s] for s in range(state.players)]
    seen["order"] = list(state.order)
    seen["cj_number"] = D.cocijobot_deck[state.cj_card].number if state.solo else None
    start = state.round
    while state.to_act() and state.round == start:
        seat = state.to_act()[0]
        options = state.decision(seat).options
        choice = rng.randrange(len(options))
        if state.step == "draw":
            drawn.append(options[choice]["card"])
        state.apply(seat, choice)
    seen["drawn"] = drawn
    return seen


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_rounds_follow_the_rule_book(players):
    for seed in range(30):
        state = GAME.setup(players, 300 + seed, {})
        rng = Random(seed)
        for round_no in range(1, 6):
            assert state.round == round_no and state.step == "pick"
            seen = _play_round(state, rng)
            picks = seen["picks"]
            if state.solo:
                first = seen["cj_number"] <= picks[0]  # equal or lower: Cocijobot first
                assert seen["order"] == ([1, 0] if first else [0, 1])
            else:
                assert seen["order"] == sorted(range(players), key=lambda s: picks[s])
            if round_no == 5:
                assert seen["drawn"] == [] and state.terminal()  # no draw step in the last round
                break
            assert len(seen["drawn"]) == players  # every agent seat drew one card
            leftover = [c for c in seen["offer_start"] if c not in seen["drawn"]]
            assert state.bonus[-1] == leftover[0] and len(leftover) == 1
            if state.solo:
                assert len(state.offer) == (2 if round_no <= 3 else 0)
            else:
                assert sorted(state.offer) == sorted(picks + [seen["deck_top"]])
            z35 = D.trade_by_id["Z35"].index
            for s in range(players):  # back to the starting size (Z35 discards aside)
                if z35 not in state.tiles_owned[s]:
                    assert len(state.hands[s]) == D.card_setup[players]["hand"]

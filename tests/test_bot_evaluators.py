"""What the bundled evaluators know: Zapotec's "if the game ended now" equals the engine's end
scoring; each prefers the clearly better of two positions that differ in one thing."""

from __future__ import annotations

from random import Random

import pytest

from engine.teotihuacan import GAME as TEOTIHUACAN
from engine.teotihuacan.calendar import salary_due
from engine.zapotec import GAME as ZAPOTEC
from engine.zapotec.scoring import end_game
from plugins.bots import teotihuacan_eval, zapotec_eval


def random_positions(game, players: int, seed: int, options: dict, every: int):
    """Positions along one seeded random game, one every ``every`` decisions."""
    state = game.setup(players, seed, options)
    rng = Random(seed)
    step = 0
    while state.to_act():
        if step % every == 0:
            yield state.clone()
        seat = state.to_act()[0]
        state.apply(seat, rng.randrange(len(state.decision(seat).options)))
        step += 1


@pytest.mark.parametrize("players", [1, 2, 3])
def test_zapotec_end_points_are_what_the_end_scoring_adds(players):
    checked = 0
    for seed in range(4):
        for state in random_positions(ZAPOTEC, players, seed, {}, 3):
            ended = state.clone()
            end_game(ended)
            added = [ended.score[s] - state.score[s] for s in range(state.seats)]
            assert zapotec_eval.end_points(state) == added
            checked += 1
    assert checked > 20


def late_zapotec_position(seed: int):
    """A solo position in the last round, where the end scoring is near."""
    for state in random_positions(ZAPOTEC, 1, seed, {}, 1):
        if state.round == 5:
            return state
    raise AssertionError("no last round")


def test_zapotec_values_a_ritual_disc_that_scores():
    state = late_zapotec_position(1)  # this deal shows the leftover-resources Ritual
    kinds = [state.data.rituals[card].kind for card in state.ritual_cards]
    slot = kinds.index("leftover_resources")
    # A disc on it is worth what the card pays for the seat's leftovers.
    richer = state.clone()
    richer.res[0] = [r + 2 for r in richer.res[0]]
    richer.ritual_discs[slot] = [s for s in richer.ritual_discs[slot] if s != 0]
    with_disc = richer.clone()
    with_disc.ritual_discs[slot].append(0)
    assert zapotec_eval.evaluate(with_disc)[0] > zapotec_eval.evaluate(richer)[0] + 5


def test_zapotec_values_a_complete_pyramid_over_an_unfinished_one():
    state = late_zapotec_position(1)
    # Seat 0 alone holds one Pyramid: large + medium + small (complete) versus large + medium.
    state.pyr_tile.append(state.scoring_avail[0] if state.scoring_avail else 0)
    state.pyr_pieces.append([0, 1])
    state.built_pieces[0] += 2
    complete = state.clone()
    complete.pyr_pieces[-1].append(2)
    complete.built_pieces[0] += 1
    mine = zapotec_eval.evaluate(complete)[0] - zapotec_eval.evaluate(state)[0]
    assert mine >= 3 * 5 - 2 * zapotec_eval.WEIGHTS["open_piece"]  # three completion bonuses, less the two expected


def test_teotihuacan_counts_the_salary_a_seat_cannot_pay():
    state = next(s for s in random_positions(TEOTIHUACAN, 1, 2, {"automaton": "teotibot"}, 1) if s.eclipses == 0 and s.turns > 4)
    due = salary_due(state, 0)
    paid, short = state.clone(), state.clone()
    paid.cocoa[0], short.cocoa[0] = due, 0
    gap = teotihuacan_eval.evaluate(paid)[0] - teotihuacan_eval.evaluate(short)[0]
    weights = teotihuacan_eval.WEIGHTS
    assert gap == pytest.approx(due * (weights["cocoa"] + weights["salary_short"]))
    assert teotihuacan_eval.evaluate(paid)[1] == teotihuacan_eval.evaluate(short)[1]  # Teotibot's unchanged


def test_teotihuacan_values_teotibot_by_its_own_final_scoring():
    state = next(s for s in random_positions(TEOTIHUACAN, 1, 5, {"automaton": "teotibot"}, 1) if s.turns > 6)
    bot = state.bot
    closer = state.clone()
    closer.temple[bot * closer.nt] = 10  # the blue temple's Bonus-tile step: a flat 15 VP for Teotibot
    before = state.temple[bot * state.nt]
    gained = teotihuacan_eval.evaluate(closer)[bot] - teotihuacan_eval.evaluate(state)[bot]
    steps = 10 - before
    assert gained == pytest.approx(15 * teotihuacan_eval.WEIGHTS["bonus"] + steps * teotihuacan_eval.WEIGHTS["temple_step"])

"""What the bundled evaluators know: Zapotec's "if the game ended now" equals the engine's end
scoring; each prefers the clearly better of two positions that differ in one thing."""

from __future__ import annotations

from random import Random

import pytest

from engine.teotihuacan import GAME as TEOTIHUACAN
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


def test_teotihuacan_values_an_avenue_step_at_what_the_eclipses_left_pay():
    positions = random_positions(TEOTIHUACAN, 1, 2, {"automaton": "teotibot"}, 1)
    state = next(s for s in positions if s.eclipses == 0 and s.turns > 4)
    further = state.clone()
    further.avenue[0] += 1
    pay = teotihuacan_eval.AVENUE_NUMBERS[state.buildings_taken]
    gained = teotihuacan_eval.evaluate(further)[0] - teotihuacan_eval.evaluate(state)[0]
    assert gained == pytest.approx(3 * pay)  # paid again at each of the three Eclipses
    assert teotihuacan_eval.evaluate(further)[1] == teotihuacan_eval.evaluate(state)[1]

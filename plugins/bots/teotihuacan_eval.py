"""A Teotihuacan position evaluator: each seat's VP plus what its holdings should still bring.

The final Eclipse's extras are read with the engine's own scoring, as if the game ended now
(engine.teotihuacan.calendar: the Temple Bonus tiles a player has reached; Teotibot's leftovers,
Technologies and flat Bonus-tile VP), and so is the mask score that every Eclipse left pays
again. On top, in VP: resources and cocoa at about their exchange value (Teotibot's leftovers
are already counted by its final scoring), less what the cocoa missing for the next salary
would cost, temple steps, Avenue steps at what the coming
Eclipses pay for them, Pyramid-track steps at the next Eclipse's rate, and worker power at what
better Main actions bring over the game time left. See ``WEIGHTS`` for how the numbers were
obtained.

Everything read is public (docs/teotihuacan.md), so any seat's observation gives the same value:
``evaluate_observation`` evaluates the state ``from_observation`` rebuilds.
"""

from __future__ import annotations

from random import Random

from engine.api import State
from engine.teotihuacan import GAME
from engine.teotihuacan.calendar import bonus_score, bonus_tiles_reached, salary_due
from engine.teotihuacan.effects import mask_score
from engine.teotihuacan.teotibot import final_score as teotibot_final_score

ECLIPSES = 3
# Avenue VP per step at an Eclipse falls from 5 to 1 as buildings are taken (components.toml).
AVENUE_NUMBERS = (5, 5, 4, 4, 3, 3, 3, 2, 2, 2, 1, 1)
# VP weights; hand estimates, then tuned (see docs/bots.md).
WEIGHTS = {
    "cocoa": 0.5,
    "wood": 1.0,
    "stone": 1.2,
    "gold": 1.6,
    "temple_step": 1.5,
    "pyramid_step": 3.0,  # paid and reset at the next Eclipse
    "power": 1.2,  # per power point above 1, over a whole game
    "bonus": 1.0,  # the Temple Bonus tiles (or Teotibot's final extras) as if the game ended now
    "salary_short": 3.0,  # per cocoa missing for the next salary (each unpaid cocoa costs 3 VP)
}


def evaluate(state: State) -> list[float]:
    """Estimated final score of every seat (Teotibot's included), from what every seat sees."""
    if state.over:
        return [float(v) for v in state.vp]
    w = WEIGHTS
    nt = state.nt
    eclipses_left = max(1, ECLIPSES - state.eclipses)
    time_left = eclipses_left / ECLIPSES
    avenue_pay = AVENUE_NUMBERS[min(state.buildings_taken, len(AVENUE_NUMBERS) - 1)]
    values = []
    for seat in range(state.n):
        if seat == state.bot:  # its final scoring counts its leftovers
            holdings = 0.0
            extras = teotibot_final_score(state, seat, len(bonus_tiles_reached(state, seat)))
        else:
            wood, stone, gold = state.res[3 * seat : 3 * seat + 3]
            cocoa = state.cocoa[seat]
            holdings = (
                w["cocoa"] * cocoa
                + w["wood"] * wood
                + w["stone"] * stone
                + w["gold"] * gold
                - w["salary_short"] * max(0, salary_due(state, seat) - cocoa)
            )
            extras = bonus_score(state, seat)
        value = (
            state.vp[seat]
            + holdings
            + w["bonus"] * extras
            + eclipses_left * mask_score(state, seat)
            + w["temple_step"] * sum(state.temple[nt * seat : nt * seat + nt])
            + avenue_pay * state.avenue[seat] * eclipses_left
            + w["pyramid_step"] * state.ptrack[seat]
            + w["power"] * time_left * sum(p - 1 for p in state.wp[4 * seat : 4 * seat + 4])
        )
        values.append(value)
    return values


def evaluate_observation(observation: dict) -> list[float]:
    """``evaluate`` from an observation (any seat's: only what every seat sees is read)."""
    return evaluate(GAME.from_observation(observation, Random(0)))

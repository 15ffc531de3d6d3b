"""A Teotihuacan position evaluator: each seat's VP plus what its holdings should still bring.

Read from the public part of an observation (the documented format of docs/teotihuacan.md):
``evaluate_public`` takes ``observation["public"]``; ``evaluate`` reads the same public fields
from a state in place (engine.teotihuacan.observation.PublicView), without building an
observation, as a search calls it at every playout cut-off. The weights are rough hand estimates in VP, not tuned rules:
resources and cocoa at about their exchange value; a temple step at about what the steps pay on
average; Avenue steps and Pyramid-track steps at what the coming Eclipses pay for them; worker
power at what better Main actions bring over the game time left.

A richer version (the Temple Bonus tiles and Teotibot's final scoring as if the game ended now,
masks times the Eclipses left, 3 VP per cocoa missing for the next salary) played worse inside
``ismcts`` (docs/bots.md, Figures), so it was not kept.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.api import State
from engine.teotihuacan.observation import PublicView

ECLIPSES = 3
COCOA = 0.5
RESOURCES = (1.0, 1.2, 1.6)  # wood, stone, gold
TEMPLE_STEP = 1.5
# Avenue VP per step at an Eclipse falls from 5 to 1 as buildings are taken (components.toml).
AVENUE_NUMBERS = (5, 5, 4, 4, 3, 3, 3, 2, 2, 2, 1, 1)
PYRAMID_STEP = 3.0
POWER = 1.2  # per power point above 1, over a whole game


def evaluate(state: State) -> list[float]:
    """Estimated final score of every seat (Teotibot's included), from what every seat sees."""
    return evaluate_public(PublicView(state))


def evaluate_public(public: Mapping) -> list[float]:
    """Estimated final score of every seat, from the public part of an observation."""
    players = public["n"]
    if public["over"]:
        return [float(v) for v in public["vp"]]
    eclipses_left = max(1, ECLIPSES - public["eclipses"])
    time_left = eclipses_left / ECLIPSES
    avenue_pay = AVENUE_NUMBERS[min(public["buildings_taken"], len(AVENUE_NUMBERS) - 1)]
    values = []
    for seat in range(players):
        res = public["res"][3 * seat : 3 * seat + 3]
        temples = public["temple"][3 * seat : 3 * seat + 3]
        powers = public["wp"][4 * seat : 4 * seat + 4]
        value = (
            public["vp"][seat]
            + COCOA * public["cocoa"][seat]
            + sum(w * r for w, r in zip(RESOURCES, res, strict=True))
            + TEMPLE_STEP * sum(temples)
            + avenue_pay * public["avenue"][seat] * eclipses_left
            + PYRAMID_STEP * public["ptrack"][seat]
            + POWER * time_left * sum(p - 1 for p in powers)
        )
        values.append(value)
    return values


def evaluate_observation(observation: dict) -> list[float]:
    """``evaluate`` from an observation (any seat's: only what every seat sees is read)."""
    return evaluate_public(observation["public"])

"""A Zapotec position evaluator: each seat's score plus what its holdings should still bring.

Read from what every seat sees (docs/zapotec.md): ``evaluate_observation`` takes an observation;
``evaluate`` reads the same public counts from a state in place, without building an
observation, as a search calls it at every playout cut-off. Rough hand weights in VP: resources
at about their conversion value, a House at the turn VP it may still score in the rounds left,
Sacrifice steps, built pyramid pieces and Trade tiles at about what the end scoring pays for them.
"""

from __future__ import annotations

from engine.api import State
from engine.zapotec.data import RESOURCES as RESOURCE_NAMES

ROUNDS = 5
RESOURCES = {"wood": 0.6, "brick": 0.6, "stone": 0.6, "corn": 0.6, "gold": 1.2, "priest": 1.5}
WEIGHTS = tuple(RESOURCES.get(name, 0.0) for name in RESOURCE_NAMES)  # in the state's order
HOUSE_PER_ROUND = 1.0  # 2 VP per matching House when a scoring tile fits it, about half the time
SACRIFICE_STEP = 1.0
PYRAMID_PIECE = 2.0
TRADE_TILE = 2.0


def evaluate(state: State) -> list[float]:
    """Estimated final score of every seat (Cocijobot's included), from its public counts."""
    rounds_left = max(0, ROUNDS - state.round)
    if state.final is not None:
        return [float(state.score[s]) for s in range(state.seats)]
    return [
        value(
            state.score[s],
            sum(w * n for w, n in zip(WEIGHTS, state.res[s], strict=True)),
            rounds_left,
            len(state.houses[s]),
            state.sac[s],
            state.built_pieces[s],
            len(state.tiles_owned[s]),
        )
        for s in range(state.seats)
    ]


def evaluate_observation(observation: dict) -> list[float]:
    """``evaluate`` from an observation (any seat's: it reads only what every seat sees)."""
    rounds_left = max(0, ROUNDS - observation["round"])
    values = []
    for seat in observation["seats"]:
        if observation.get("final"):
            values.append(float(seat["score"]))
            continue
        resources = sum(RESOURCES.get(name, 0.0) * count for name, count in seat["resources"].items())
        values.append(
            value(
                seat["score"],
                resources,
                rounds_left,
                len(seat["houses"]),
                seat["sacrifice_step"],
                seat["pieces_built"],
                len(seat["trade_tiles"]),
            )
        )
    return values


def value(score, resources, rounds_left, houses, sacrifice, pieces, trade_tiles) -> float:
    """One seat's estimate from its public counts."""
    return (
        score
        + resources
        + HOUSE_PER_ROUND * rounds_left * houses
        + SACRIFICE_STEP * sacrifice
        + PYRAMID_PIECE * pieces
        + TRADE_TILE * trade_tiles
    )

"""A Zapotec position evaluator: each seat's score plus what its holdings should still bring.

Read from the observation (docs/zapotec.md). Rough hand weights in VP: resources at about their
conversion value, a House at the turn VP it may still score in the rounds left, Sacrifice steps,
built pyramid pieces and Trade tiles at about what the end scoring pays for them.
"""

from __future__ import annotations

from engine.api import State

ROUNDS = 5
RESOURCES = {"wood": 0.6, "brick": 0.6, "stone": 0.6, "corn": 0.6, "gold": 1.2, "priest": 1.5}
HOUSE_PER_ROUND = 1.0  # 2 VP per matching House when a scoring tile fits it, about half the time
SACRIFICE_STEP = 1.0
PYRAMID_PIECE = 2.0
TRADE_TILE = 2.0


def evaluate(state: State) -> list[float]:
    """Estimated final score of every seat (Cocijobot's included)."""
    observation = state.observation(0)
    rounds_left = max(0, ROUNDS - observation["round"])
    values = []
    for seat in observation["seats"]:
        if observation.get("final"):
            values.append(float(seat["score"]))
            continue
        resources = sum(RESOURCES.get(name, 0.0) * count for name, count in seat["resources"].items())
        value = (
            seat["score"]
            + resources
            + HOUSE_PER_ROUND * rounds_left * len(seat["houses"])
            + SACRIFICE_STEP * seat["sacrifice_step"]
            + PYRAMID_PIECE * seat["pieces_built"]
            + TRADE_TILE * len(seat["trade_tiles"])
        )
        values.append(value)
    return values

"""A Zapotec position evaluator: each seat's final score if the game ended now, plus what its
holdings should still bring in the rounds left.

"If it ended now" is the engine's own end scoring (engine.zapotec.scoring.end_scoring, which
end_game adds up), read without a clone or a log: the Sacrifice-track awards, the Ritual cards as they
would score, the Pyramids (matching Houses per piece, the completion bonus), Cocijobot's own
scoring in solo. Most of a Zapotec
score comes from there, so reading it exactly is what lets search see a Pyramid or a Ritual
coming. On top, in VP: resources at about what they convert to, each House at the turn VP it may
still score in the rounds left, a piece in an unfinished Pyramid at part of the completion bonus
it waits for, and each Sacrifice step at what it adds beyond the award.

Everything read is public (docs/zapotec.md), so any seat's observation gives the same value:
``evaluate_observation`` evaluates the state ``from_observation`` rebuilds.
"""

from __future__ import annotations

from random import Random

from engine.api import State
from engine.zapotec import GAME
from engine.zapotec.data import RESOURCES as RESOURCE_NAMES
from engine.zapotec.rules import pyramid_complete
from engine.zapotec.scoring import end_scoring

ROUNDS = 5
# VP weights on top of the end scoring: hand estimates, not tuned (docs/bots.md says what was measured).
WEIGHTS = {
    "basic": 0.6,  # wood, brick, stone: half of a building
    "corn": 0.6,
    "gold": 1.2,
    "priest": 1.5,
    "house_round": 1.0,  # 2 VP per matching House when the bonus card fits it, about half the time
    "open_piece": 2.5,  # a piece in an unfinished Pyramid: half the 5-VP completion bonus
    "sacrifice_step": 0.5,
}


def resource_weights() -> tuple[float, ...]:
    """``WEIGHTS`` per resource, in the state's order."""
    by_name = {
        "wood": "basic",
        "brick": "basic",
        "stone": "basic",
        "corn": "corn",
        "gold": "gold",
        "priest": "priest",
    }
    return tuple(WEIGHTS[by_name[name]] for name in RESOURCE_NAMES)


def evaluate(state: State) -> list[float]:
    """Estimated final score of every seat (Cocijobot's included), from what every seat sees."""
    if state.final is not None:
        return [float(state.score[s]) for s in range(state.seats)]
    ended = end_points(state)
    rounds_left = max(0, ROUNDS - state.round)
    per_resource = resource_weights()
    open_pieces = [0] * state.seats
    for pyramid, pieces in enumerate(state.pyr_pieces):
        if not pyramid_complete(state, pyramid):
            for piece in pieces:
                open_pieces[piece // 3] += 1
    return [
        state.score[s]
        + ended[s]
        + sum(w * n for w, n in zip(per_resource, state.res[s], strict=True))
        + WEIGHTS["house_round"] * rounds_left * len(state.houses[s])
        + WEIGHTS["open_piece"] * open_pieces[s]
        + WEIGHTS["sacrifice_step"] * state.sac[s]
        for s in range(state.seats)
    ]


def end_points(state: State) -> list[int]:
    """The VP each seat's end scoring would add if the game ended now (what end_game adds)."""
    return [sum(parts.values()) for parts in end_scoring(state)]


def evaluate_observation(observation: dict) -> list[float]:
    """``evaluate`` from an observation (any seat's: only what every seat sees is read)."""
    return evaluate(GAME.from_observation(observation, Random(0)))

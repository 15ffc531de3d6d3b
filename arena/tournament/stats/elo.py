"""Small statistical helpers shared by the ratings and the SPRT: the Elo scale, Wilson intervals.

The Elo scale is the logistic one: an Elo difference ``d`` means an expected score (win = 1,
draw = 1/2, loss = 0) of ``1 / (1 + 10 ** (-d / 400))`` for the stronger side.
"""

from __future__ import annotations

import math
from statistics import NormalDist

Z95 = NormalDist().inv_cdf(0.975)  # 1.959...: two-sided 95%
ELO_PER_NAT = 400 / math.log(10)  # Elo points per unit of natural-log strength (173.7...)


def score_from_elo(elo: float) -> float:
    """The expected score of a side ``elo`` points stronger than its opponent."""
    return 1 / (1 + 10 ** (-elo / 400))


def elo_from_score(score: float) -> float:
    """The Elo difference that gives expected ``score``; +-inf for a score of 1 or 0."""
    if score >= 1:
        return math.inf
    if score <= 0:
        return -math.inf
    return -400 * math.log10(1 / score - 1)


def wilson_interval(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (Wilson 1927); (0, 1) when there are no trials.

    ``successes`` may be fractional (a draw counted as half a win): the interval is then the
    usual approximation for a score rate.
    """
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)

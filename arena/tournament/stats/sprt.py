"""The sequential probability ratio test of ``arena compare``: is NEW at least ``elo1`` better than OLD?

The unit is the deal. A deal is ``games`` matches on one seed whose outcomes for NEW are each a
win (1), level (1/2) or loss (0) against OLD; the deal's score is their mean, one of the
``2 * games + 1`` points 0, 1/(2 games), ..., 1. With two seats (NEW and OLD on both seatings of
a deal) this is the pentanomial model that fishtest and fastchess use.

The test is the generalised SPRT (GSPRT) of Michel Van den Bergh, as in fishtest's LLRcalc:
the deal scores follow an unknown distribution over those points; H0 says its mean is
``score(elo0)``, H1 says ``score(elo1)`` (logistic Elo). The log-likelihood ratio is the ratio of
the two maximum-likelihood distributions with those means, given the counts seen:

    LLR = N * sum_i p_i * log(q1_i / q0_i),   q_i = p_i / (1 + x * (a_i - s))

where p is the observed distribution (an empty point counts 1e-3, as in fishtest), a_i the
points, and x solves sum_i p_i (a_i - s) / (1 + x (a_i - s)) = 0. Stop with H1 once
LLR >= log((1 - beta) / alpha), with H0 once LLR <= log(beta / (1 - alpha)) (Wald's bounds).
docs/ratings.md has the references.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from arena.tournament.stats.elo import Z95, elo_from_score, score_from_elo

EMPTY_POINT = 1e-3  # the weight of a point never seen yet (fishtest's regularisation)


class SprtError(ValueError):
    """Test settings that cannot work (elo1 not above elo0, alpha outside (0, 1), ...)."""


@dataclass(frozen=True)
class SprtSettings:
    """H0: NEW - OLD = elo0; H1: NEW - OLD = elo1; alpha and beta: the two error rates."""

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not self.elo1 > self.elo0:
            raise SprtError(f"elo1 ({self.elo1}) must be greater than elo0 ({self.elo0})")
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not 0 < value < 0.5:
                raise SprtError(f"{name} must be between 0 and 0.5, got {value}")

    @property
    def lower(self) -> float:
        """Accept H0 at or below this LLR."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 at or above this LLR."""
        return math.log((1 - self.beta) / self.alpha)


@dataclass(frozen=True)
class SprtState:
    """Where the test stands after ``deals`` deals."""

    deals: int
    counts: tuple[int, ...]  # deals per point j / (len - 1)
    llr: float
    lower: float
    upper: float
    elo: float | None  # NEW - OLD, logistic Elo; None before the first deal
    elo_low: float | None  # 95% interval; None before two deals
    elo_high: float | None

    @property
    def verdict(self) -> str | None:
        """ "H1" (NEW is better by elo1), "H0" (not better than elo0), or None (not decided)."""
        if self.llr >= self.upper:
            return "H1"
        if self.llr <= self.lower:
            return "H0"
        return None

    def as_dict(self) -> dict[str, object]:
        """The JSON form."""
        return {
            "deals": self.deals,
            "counts": list(self.counts),
            "llr": round(self.llr, 4),
            "lower": round(self.lower, 4),
            "upper": round(self.upper, 4),
            "elo": _finite(self.elo),
            "elo_low": _finite(self.elo_low),
            "elo_high": _finite(self.elo_high),
            "verdict": self.verdict,
        }


def _finite(value: float | None) -> float | str | None:
    if value is None:
        return None
    return round(value, 2) if math.isfinite(value) else ("inf" if value > 0 else "-inf")


def state(counts: Sequence[int], settings: SprtSettings) -> SprtState:
    """The test's state for these counts of deal scores (point j is the score j / (len - 1))."""
    total = sum(counts)
    elo = low = high = None
    if total:
        points = [j / (len(counts) - 1) for j in range(len(counts))]
        mean = sum(c * a for c, a in zip(counts, points, strict=True)) / total
        elo = elo_from_score(mean)
        if total >= 2:
            variance = sum(c * (a - mean) ** 2 for c, a in zip(counts, points, strict=True)) / (total - 1)
            half = Z95 * math.sqrt(variance / total)
            low, high = elo_from_score(mean - half), elo_from_score(mean + half)
    return SprtState(
        deals=total,
        counts=tuple(counts),
        llr=log_likelihood_ratio(counts, settings.elo0, settings.elo1),
        lower=settings.lower,
        upper=settings.upper,
        elo=elo,
        elo_low=low,
        elo_high=high,
    )


def log_likelihood_ratio(counts: Sequence[int], elo0: float, elo1: float) -> float:
    """The GSPRT log-likelihood ratio of H1 (mean score(elo1)) over H0 (score(elo0)); 0 with no deals."""
    return _llr(tuple(counts), elo0, elo1)


@functools.lru_cache(maxsize=1 << 16)
def _llr(counts: tuple[int, ...], elo0: float, elo1: float) -> float:
    # Remembered (a few milliseconds each): the web view of a growing comparison walks the same
    # deals again after every batch, and draws the path of the walk it has just made.
    if not sum(counts):
        return 0.0
    weights = [count if count > 0 else EMPTY_POINT for count in counts]
    total = sum(weights)
    probabilities = [weight / total for weight in weights]
    points = [j / (len(counts) - 1) for j in range(len(counts))]
    q0 = _closest_with_mean(points, probabilities, score_from_elo(elo0))
    q1 = _closest_with_mean(points, probabilities, score_from_elo(elo1))
    return total * sum(p * math.log(b / a) for p, a, b in zip(probabilities, q0, q1, strict=True))


def _closest_with_mean(points: list[float], probabilities: list[float], mean: float) -> list[float]:
    """The most likely distribution on ``points`` with this mean, given the observed ``probabilities``.

    Lagrange: q_i = p_i / (1 + x (a_i - mean)) with x the root of the secular equation below,
    which falls from +inf to -inf between the poles (points[0] < mean < points[-1]).
    """
    from scipy.optimize import brentq  # here, not at the top: every `arena` command imports this module

    shifted = [a - mean for a in points]

    def secular(x: float) -> float:
        return sum(p * d / (1 + x * d) for p, d in zip(probabilities, shifted, strict=True))

    pole_low, pole_high = -1 / shifted[-1], -1 / shifted[0]
    margin = 1e-12 * (pole_high - pole_low)
    x = brentq(secular, pole_low + margin, pole_high - margin, xtol=1e-15, rtol=1e-13)
    return [p / (1 + x * d) for p, d in zip(probabilities, shifted, strict=True)]


def sequential(outcomes: Iterable[int], games: int, settings: SprtSettings, checked: int = 0) -> SprtState:
    """Run the test over deal outcomes in deal order; stop at the first deal that decides.

    Each outcome is NEW's deal score times ``2 * games`` (an integer 0 .. 2 games). Deals after
    the deciding one are not counted, so the verdict does not depend on how many were played
    at once. The first ``checked`` deals are known not to decide (an earlier call looked at
    them) and are only counted.
    """
    counts = [0] * (2 * games + 1)
    for deal, outcome in enumerate(outcomes):
        counts[outcome] += 1
        if deal < checked:
            continue
        llr = log_likelihood_ratio(counts, settings.elo0, settings.elo1)
        if not settings.lower < llr < settings.upper:
            break
    return state(counts, settings)


def llr_path(
    outcomes: Sequence[int], games: int, settings: SprtSettings, most: int = 300
) -> list[tuple[int, float]]:
    """(deals, LLR) along the test as ``sequential`` runs it, from (0, 0.0) to the deal where it
    stopped (or the last one), at most ``most`` points after the first, evenly spaced: a chart's line."""
    end = sequential(outcomes, games, settings).deals
    stride = max(1, math.ceil(end / most))
    counts = [0] * (2 * games + 1)
    path = [(0, 0.0)]
    for deal, outcome in enumerate(outcomes[:end], start=1):
        counts[outcome] += 1
        if deal % stride == 0 or deal == end:
            path.append((deal, log_likelihood_ratio(counts, settings.elo0, settings.elo1)))
    return path

"""TrueSkill for free-for-all matches of one-player teams, with plain floats and no factor graph.

It computes exactly what ``trueskill.TrueSkill(...).rate(groups, ranks=ranks)`` computes when every
team is one player (the only case a match here has): the same Gaussian messages in precision form,
updated in the same order with the same arithmetic, the same truncation functions built on the
library's own ``erfc`` approximation, the same draw margin, the same stopping rule. The numbers
are therefore the library's to the last bit, about thirty times faster: replaying a season's
ratings is a loop of float arithmetic instead of thousands of small objects a match.

Ratings are ``Skill`` pairs holding what a ``trueskill.Rating``'s ``mu`` and ``sigma`` read;
``skill(mu, sigma)`` gives the pair that ``trueskill.Rating(mu, sigma)`` would read back (the
library stores precision and precision-adjusted mean, so a value may move in its last bit).
The rare match where a message's precision reaches zero or infinity, or where the library raises
(a result too unlikely for float precision), is handed to the library itself: its numbers, its
error.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import trueskill

MU = 25.0
SIGMA = MU / 3
BETA = SIGMA / 2
TAU = SIGMA / 100
DRAW_PROBABILITY = 0.10
MIN_DELTA = trueskill.DELTA  # the library's stopping threshold for the message passing
ITERATIONS = 10  # the library's cap on passes over the chain of rank differences

_SQRT2 = math.sqrt(2)
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)
_exp, _sqrt = math.exp, math.sqrt
_INF = math.inf


class Skill(NamedTuple):
    """A rating as the library's ``Rating`` reads it: mean and standard deviation."""

    mu: float
    sigma: float


def skill(mu: float, sigma: float) -> Skill:
    """The pair ``trueskill.Rating(mu, sigma)`` reads back (it keeps 1/sigma^2 and mu/sigma^2)."""
    pi = sigma**-2
    tau = pi * mu
    return Skill(tau / pi, _sqrt(1 / pi))


def _erfc(x: float) -> float:
    # the library's erfc (a Chebyshev fit, ~1e-7), term for term: math.erfc gives other numbers
    z = abs(x)
    t = 1.0 / (1.0 + z / 2.0)
    # fmt: off
    r = t * _exp(-z * z - 1.26551223 + t * (1.00002368 + t * (
        0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (
            0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (
                -0.82215223 + t * 0.17087277
            )))
        )))
    )))
    # fmt: on
    return 2.0 - r if x < 0 else r


def _cdf(x: float) -> float:
    return 0.5 * _erfc(-x / _SQRT2)


def _pdf(x: float) -> float:
    return _INV_SQRT_2PI * _exp(-(x**2 / 2))


class _Unrated(Exception):
    """The library raises here: let it, with its own message."""


def _truncate(div_pi: float, div_tau: float, margin: float, tie: bool) -> tuple[float, float]:
    """The truncation factor's message (library: TruncateFactor.up with v/w win or draw)."""
    sqrt_pi = _sqrt(div_pi)
    diff = div_tau / sqrt_pi
    draw_margin = margin * sqrt_pi
    if tie:
        abs_diff = abs(diff)
        a, b = draw_margin - abs_diff, -draw_margin - abs_diff
        denom = _cdf(a) - _cdf(b)
        if not denom:
            raise _Unrated
        pdf_a, pdf_b = _pdf(a), _pdf(b)
        v = (pdf_b - pdf_a) / denom
        w = v**2 + (a * pdf_a - b * pdf_b) / denom
        if diff < 0:
            v = v * -1
    else:
        x = diff - draw_margin
        denom = _cdf(x)
        v = (_pdf(x) / denom) if denom else -x
        w = v * (v + x)
        if not 0 < w < 1:
            raise _Unrated
    scale = 1.0 - w
    return div_pi / scale, (div_tau + sqrt_pi * v) / scale


class FfaRater:
    """A TrueSkill environment for free-for-all matches of one-player teams."""

    def __init__(
        self,
        mu: float = MU,
        sigma: float = SIGMA,
        beta: float = BETA,
        tau: float = TAU,
        draw_probability: float = DRAW_PROBABILITY,
    ) -> None:
        self.mu, self.sigma, self.beta, self.tau = mu, sigma, beta, tau
        self.draw_probability = draw_probability
        self.env = trueskill.TrueSkill(mu, sigma, beta, tau, draw_probability, backend=None)
        self.variance = beta**2
        self.dynamic2 = tau**2
        # every difference compares two one-player teams: one margin for every pair
        self.margin = trueskill.calc_draw_margin(draw_probability, 2, self.env)

    def create(self, mu: float | None = None) -> Skill:
        """A new player's rating (``env.create_rating(mu)``): the given or default mean."""
        return skill(self.mu if mu is None else mu, self.sigma)

    def rate(self, ratings: Sequence[Skill], ranks: Sequence[int]) -> list[Skill]:
        """The ratings after one match: ``ranks[i]`` is player i's place (lower is better, equal
        ties). The same as ``env.rate([(r,) for r in ratings], ranks=ranks)``."""
        try:
            return self._rate(ratings, ranks)
        except (_Unrated, ZeroDivisionError):
            # the library reads only a rating's mu and sigma: a Skill serves as one, unrounded
            rated = self.env.rate([(rating,) for rating in ratings], ranks=list(ranks))
            return [Skill(r.mu, r.sigma) for (r,) in rated]

    def _rate(self, ratings: Sequence[Skill], ranks: Sequence[int]) -> list[Skill]:
        n = len(ratings)
        if n < 2 or len(ranks) != n:
            raise ValueError("a match needs two or more players and one rank each")
        order = sorted(range(n), key=ranks.__getitem__)  # stable, as the library sorts
        variance, dynamic2, margin = self.variance, self.dynamic2, self.margin
        # the downward pass: prior (skill plus dynamics), performance, team performance
        prior_pi, prior_tau, perf_pi, perf_tau, team_pi, team_tau = [], [], [], [], [], []
        for i in order:
            mu, sigma = ratings[i]
            pi0 = _sqrt(sigma**2 + dynamic2) ** -2
            tau0 = pi0 * mu
            a = 1.0 / (1.0 + variance * pi0)
            p, t = a * pi0, a * tau0
            big_p = 1.0 / (1 / p)  # SumFactor of one term: pi = 1 / (1 / pi)
            prior_pi.append(pi0)
            prior_tau.append(tau0)
            perf_pi.append(p)
            perf_tau.append(t)
            team_pi.append(big_p)
            team_tau.append(big_p * (t / p))
        # the team-performance variables as the schedule updates them (values, not products)
        tp_pi, tp_tau = list(team_pi), list(team_tau)
        k = n - 1
        ties = [ranks[order[j]] == ranks[order[j + 1]] for j in range(k)]
        # messages: from difference j to its left (team j) and right (team j+1) term
        left_pi, left_tau = [0.0] * k, [0.0] * k
        right_pi, right_tau = [0.0] * k, [0.0] * k
        # each difference variable: its value, the message from its sum and from its truncation
        d_pi, d_tau = [0.0] * k, [0.0] * k
        sum_pi, sum_tau = [0.0] * k, [0.0] * k
        cut_pi, cut_tau = [0.0] * k, [0.0] * k

        def down(j: int) -> None:
            # difference j = team j - team j+1, from the messages the two teams send it
            p1, t1 = tp_pi[j] - left_pi[j], tp_tau[j] - left_tau[j]
            p2, t2 = tp_pi[j + 1] - right_pi[j], tp_tau[j + 1] - right_tau[j]
            mu = (t1 / p1 if p1 else p1) - (t2 / p2 if p2 else p2)
            pi = 1.0 / (1 / p1 + 1 / p2)
            tau = pi * mu
            d_pi[j] = (d_pi[j] - sum_pi[j]) + pi
            d_tau[j] = (d_tau[j] - sum_tau[j]) + tau
            sum_pi[j], sum_tau[j] = pi, tau

        def up(j: int) -> float:
            # the truncation's message to difference j; returns how far the variable moved
            dp, dt = d_pi[j], d_tau[j]
            pi, tau = _truncate(dp - cut_pi[j], dt - cut_tau[j], margin, ties[j])
            cut_pi[j] = (pi + cut_pi[j]) - dp
            cut_tau[j] = (tau + cut_tau[j]) - dt
            d_pi[j], d_tau[j] = pi, tau
            pi_delta = abs(dp - pi)
            return 0.0 if pi_delta == _INF else max(abs(dt - tau), _sqrt(pi_delta))

        def to_left(j: int) -> None:
            # team j = difference j + team j+1
            p1, t1 = d_pi[j] - sum_pi[j], d_tau[j] - sum_tau[j]
            p2, t2 = tp_pi[j + 1] - right_pi[j], tp_tau[j + 1] - right_tau[j]
            mu = 1.0 * (t1 / p1 if p1 else p1) + 1.0 * (t2 / p2 if p2 else p2)
            pi = 1.0 / (1.0 / p1 + 1.0 / p2)
            tau = pi * mu
            tp_pi[j] = (tp_pi[j] - left_pi[j]) + pi
            tp_tau[j] = (tp_tau[j] - left_tau[j]) + tau
            left_pi[j], left_tau[j] = pi, tau

        def to_right(j: int) -> None:
            # team j+1 = team j - difference j
            p1, t1 = tp_pi[j] - left_pi[j], tp_tau[j] - left_tau[j]
            p2, t2 = d_pi[j] - sum_pi[j], d_tau[j] - sum_tau[j]
            mu = 1.0 * (t1 / p1 if p1 else p1) + -1.0 * (t2 / p2 if p2 else p2)
            pi = 1.0 / (1.0 / p1 + 1.0 / p2)
            tau = pi * mu
            i = j + 1
            tp_pi[i] = (tp_pi[i] - right_pi[j]) + pi
            tp_tau[i] = (tp_tau[i] - right_tau[j]) + tau
            right_pi[j], right_tau[j] = pi, tau

        for _ in range(ITERATIONS):
            if k == 1:
                down(0)
                delta = up(0)
            else:
                delta = 0.0
                for j in range(k - 1):
                    down(j)
                    delta = max(delta, up(j))
                    to_right(j)
                for j in range(k - 1, 0, -1):
                    down(j)
                    delta = max(delta, up(j))
                    to_left(j)
            if delta <= MIN_DELTA:
                break
        to_left(0)
        to_right(k - 1)
        # the upward pass: team performance -> performance -> skill
        result: list[Skill] = [Skill(0.0, 0.0)] * n
        for s, i in enumerate(order):
            p1, t1 = tp_pi[s] - team_pi[s], tp_tau[s] - team_tau[s]
            mu = 1.0 * (t1 / p1 if p1 else p1)
            pi = 1.0 / (1.0 / p1)
            tau = pi * mu
            m_pi = (perf_pi[s] + pi) - perf_pi[s]
            m_tau = (perf_tau[s] + tau) - perf_tau[s]
            a = 1.0 / (1.0 + variance * m_pi)
            r_pi = prior_pi[s] + a * m_pi
            r_tau = prior_tau[s] + a * m_tau
            result[i] = skill(r_tau / r_pi, _sqrt(1 / r_pi))
        return result

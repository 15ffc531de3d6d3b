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

import functools
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


def _cdf(x: float) -> float:
    """The library's cdf: 0.5 * erfc(-x / sqrt 2) with its own erfc, a Chebyshev fit (~1e-7)
    that math.erfc does not reproduce; written out term for term, in its order."""
    y = -x / _SQRT2
    z = abs(y)
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
    return 0.5 * (2.0 - r if y < 0 else r)


def _pdf(x: float) -> float:
    return _INV_SQRT_2PI * _exp(-(x**2 / 2))


class _Unrated(Exception):
    """The library raises here: let it, with its own message."""


def _draw_vw(diff: float, draw_margin: float) -> tuple[float, float]:
    """The library's v_draw and w_draw of a tied pair (w first raises where the library does)."""
    abs_diff = abs(diff)
    a, b = draw_margin - abs_diff, -draw_margin - abs_diff
    denom = _cdf(a) - _cdf(b)
    if not denom:
        raise _Unrated
    pdf_a, pdf_b = _pdf(a), _pdf(b)
    v = (pdf_b - pdf_a) / denom
    w = v**2 + (a * pdf_a - b * pdf_b) / denom
    return (v * -1 if diff < 0 else v), w


Step = tuple[int, int, bool, int, int, int, int]


@functools.cache
def _chain(differences: int) -> tuple[list[Step], list[Step]]:
    """The library's schedule over the chain of rank differences, as steps: one pass, then the
    ends' pass. A step is (difference j, the side it then sends to: 1 the team ranked below it, 0
    the one above, -1 none; whether j is recomputed and cut first; the other team and the index
    of j's message to it; the team sent to and the index of j's message to it). Difference j's
    messages to its teams sit at 2j (team j) and 2j+1 (team j+1)."""

    def step(j: int, side: int, cut: bool) -> Step:
        return (j, side, cut, j + 1 - side, 2 * j + 1 - side, j + side, 2 * j + side)

    ends = [step(0, 0, False), step(differences - 1, 1, False)]
    if differences == 1:
        return [step(0, -1, True)], ends
    forth = [step(j, 1, True) for j in range(differences - 1)]
    return forth + [step(j, 0, True) for j in range(differences - 1, 0, -1)], ends


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
        # One-player teams make the factor graph a chain: each player's skill, performance and
        # team performance, and between neighbours in rank order a difference with its
        # truncation. Every variable is kept as the library keeps it, a value updated by
        # dividing out a factor's old message and multiplying in its new one (pi, tau added
        # and subtracted in that order), so the rounding is the library's too. A precision of
        # zero divides by zero here: rate() then asks the library.
        n = len(ratings)
        if n < 2 or len(ranks) != n:
            raise ValueError("a match needs two or more players and one rank each")
        order = sorted(range(n), key=ranks.__getitem__)  # stable, as the library sorts
        variance, dynamic2, margin = self.variance, self.dynamic2, self.margin
        sqrt, exp, cdf = _sqrt, _exp, _cdf
        # downward: skill prior (with the dynamics), performance, team performance
        prior_pi, prior_tau, perf_pi, perf_tau, team_pi, team_tau = [], [], [], [], [], []
        for i in order:
            mu, sigma = ratings[i]
            pi0 = sqrt(sigma**2 + dynamic2) ** -2
            tau0 = pi0 * mu
            a = 1.0 / (1.0 + variance * pi0)
            p, t = a * pi0, a * tau0
            big_p = 1.0 / (1 / p)  # a sum factor of one term: pi = 1 / (1 / pi)
            prior_pi.append(pi0)
            prior_tau.append(tau0)
            perf_pi.append(p)
            perf_tau.append(t)
            team_pi.append(big_p)
            team_tau.append(big_p * (t / p))
        tp_pi, tp_tau = list(team_pi), list(team_tau)  # the team-performance variables' values
        k = n - 1
        ties = [ranks[order[j]] == ranks[order[j + 1]] for j in range(k)]
        # difference j's messages to team j (at 2j) and to team j+1 (at 2j+1)
        m_pi, m_tau = [0.0] * (2 * k), [0.0] * (2 * k)
        # each difference's value, its sum factor's message, its truncation's message
        d_pi, d_tau, s_pi, s_tau, c_pi, c_tau = ([0.0] * k for _ in range(6))
        # passes over the chain until it settles (at most ITERATIONS), then one last pass that
        # only sends both ends' messages to their teams
        chain, ends = _chain(k)
        steps, passes, lone = chain, 0, k == 1
        inv_sqrt_2pi = _INV_SQRT_2PI
        while True:
            delta = 0.0
            for j, side, cut, other, o, team, at in steps:
                if cut:
                    # down: difference j = team j - team j+1
                    p1, t1 = tp_pi[j] - m_pi[2 * j], tp_tau[j] - m_tau[2 * j]
                    p2, t2 = tp_pi[j + 1] - m_pi[2 * j + 1], tp_tau[j + 1] - m_tau[2 * j + 1]
                    pi = 1.0 / (1 / p1 + 1 / p2)
                    tau = pi * (t1 / p1 - t2 / p2)
                    dp = (d_pi[j] - s_pi[j]) + pi
                    dt = (d_tau[j] - s_tau[j]) + tau
                    s_pi[j], s_tau[j] = pi, tau
                    # up from the truncation: the outcome (a win or a tie) cuts the difference
                    div_pi, div_tau = dp - c_pi[j], dt - c_tau[j]
                    sqrt_pi = sqrt(div_pi)
                    diff, draw_margin = div_tau / sqrt_pi, margin * sqrt_pi
                    if ties[j]:
                        v, w = _draw_vw(diff, draw_margin)
                    else:
                        x = diff - draw_margin
                        denom = cdf(x)
                        v = (inv_sqrt_2pi * exp(-(x**2 / 2)) / denom) if denom else -x
                        w = v * (v + x)
                        if not 0 < w < 1:
                            raise _Unrated
                    scale = 1.0 - w
                    pi, tau = div_pi / scale, (div_tau + sqrt_pi * v) / scale
                    c_pi[j] = (pi + c_pi[j]) - dp
                    c_tau[j] = (tau + c_tau[j]) - dt
                    d_pi[j], d_tau[j] = pi, tau
                    # how far the difference moved; the pass's largest (max() semantics)
                    pi_delta = abs(dp - pi)
                    if pi_delta == _INF:
                        moved = 0.0
                    else:
                        moved, root = abs(dt - tau), sqrt(pi_delta)
                        if root > moved:
                            moved = root
                    if moved > delta or lone:  # a lone difference's move counts as it is
                        delta = moved
                    if side < 0:
                        continue
                # send: difference j's message to a team, from its own and the other team's:
                # side 0, team j = difference + team j+1; side 1, team j+1 = team j - difference
                pd, td = d_pi[j] - s_pi[j], d_tau[j] - s_tau[j]
                po, to = tp_pi[other] - m_pi[o], tp_tau[other] - m_tau[o]
                pi = 1.0 / (1.0 / po + 1.0 / pd)  # in either order: float addition commutes
                md = td / pd
                tau = pi * (to / po + md if side == 0 else to / po - md)
                tp_pi[team] = (tp_pi[team] - m_pi[at]) + pi
                tp_tau[team] = (tp_tau[team] - m_tau[at]) + tau
                m_pi[at], m_tau[at] = pi, tau
            if steps is ends:
                break
            passes += 1
            if delta <= MIN_DELTA or passes == ITERATIONS:
                steps = ends
        # upward: team performance -> performance -> skill
        result: list[Skill] = [Skill(0.0, 0.0)] * n
        for at, i in enumerate(order):
            p1, t1 = tp_pi[at] - team_pi[at], tp_tau[at] - team_tau[at]
            pi = 1.0 / (1.0 / p1)
            tau = pi * (1.0 * (t1 / p1))
            m_pi_, m_tau_ = (perf_pi[at] + pi) - perf_pi[at], (perf_tau[at] + tau) - perf_tau[at]
            a = 1.0 / (1.0 + variance * m_pi_)
            r_pi = prior_pi[at] + a * m_pi_
            # read back as the library's Rating(mu, sigma) holds it
            pi = sqrt(1 / r_pi) ** -2
            tau = pi * ((prior_tau[at] + a * m_tau_) / r_pi)
            result[i] = Skill(tau / pi, sqrt(1 / pi))
        return result

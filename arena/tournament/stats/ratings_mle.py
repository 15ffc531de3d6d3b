"""Order-free ratings: one Plackett-Luce maximum-likelihood fit over all of a ladder's results.

TrueSkill (arena/tournament/stats/ratings.py) is an online filter, so the order of the results moves its table.
This fit sees every result at once: the same results in any order give the same table. Each
match is a ranking of its seats (Bradley-Terry when there are two); an agent of strength theta
finishes ahead of the seats still unplaced with probability exp(theta) / sum(exp(their theta)).
Strengths are reported on the Elo scale (400 / ln 10 per unit), centred on the field's mean.

- Forfeits tie for last, as in TrueSkill (``effective_ranks``).
- A tie is averaged over its orders: seats tied on a rank enter as every order of the tied seats,
  each with an equal share of the match's weight, so a two-seat draw counts as half a win each
  (the chess convention).
- A weak prior of ``PRIOR_DRAWS`` virtual draws per agent against a rating-0 opponent (as in
  BayesElo) keeps an agent that won or lost everything finite.
- 95% intervals: the fit's own (normal approximation), with a variance clustered by deal (a
  deal is one seed and group of agents with all its seat rotations: its matches share the
  deal's luck, so they are not independent observations).

docs/ratings.md explains the numbers and when to trust them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import permutations, product
from typing import Any

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from scipy.sparse import coo_matrix, csr_matrix
from scipy.special import expit, logsumexp

from arena.tournament.stats.elo import ELO_PER_NAT, Z95
from arena.tournament.stats.ratings import SeatLine, effective_ranks

PRIOR_DRAWS = 2.0
NEWTON_STEPS = 100  # the fit stops here at the latest (it converges in about ten)
GRADIENT_TOLERANCE = 1e-9
MIN_DEALS_FOR_INTERVAL = 2  # one deal resampled is always itself: no spread to report


@dataclass(frozen=True)
class MleRating:
    """One agent's order-free rating: Elo relative to the field's mean, its 95% interval."""

    agent: str
    elo: float
    low: float | None  # None: too few deals for an interval
    high: float | None
    matches: int  # matches that entered the fit

    def as_dict(self) -> dict[str, object]:
        """The JSON form: keys mle, mle_low, mle_high (Elo, rounded to 0.1)."""

        def rounded(value: float | None) -> float | None:
            return None if value is None else round(value, 1)

        return {"mle": rounded(self.elo), "mle_low": rounded(self.low), "mle_high": rounded(self.high)}


@dataclass(frozen=True)
class _Block:
    """Every ranking of one seat count: ``orders[m]`` lists agent indices best first."""

    orders: np.ndarray  # (m, k) int
    weights: np.ndarray  # (m,) share of its match (1 unless the match had ties)
    deals: np.ndarray  # (m,) index of its deal


def mle_ratings(matches: Iterable[tuple[Any, Sequence[SeatLine]]]) -> dict[str, MleRating]:
    """Fit ``(deal, seats)`` results; the ratings by agent. Lone seats and self-play are skipped.

    ``deal`` names the deal a match was played on (e.g. its seed; any sortable value): the
    matches of one deal share its luck, and the intervals take that into account.

    The results are sorted into a canonical order first, so the input order cannot change
    the table, not even in the last bit of a float.
    """
    results = _Results.collect(matches)
    if not results.agents:
        return {}
    blocks = results.blocks()
    agents, deals = results.agents, len(results.deals)
    played = np.bincount(results.agent_column, minlength=len(agents))
    index = {agent: i for i, agent in enumerate(agents)}

    theta = _fit(blocks, deals)
    elo = ELO_PER_NAT * (theta - theta.mean())
    low = high = [None] * len(agents)
    if deals >= MIN_DEALS_FOR_INTERVAL:
        spread = Z95 * ELO_PER_NAT * _centred_standard_errors(theta, blocks, deals)
        low, high = (elo - spread).tolist(), (elo + spread).tolist()
    return {
        agent: MleRating(agent, float(elo[i]), low[i], high[i], int(played[i])) for agent, i in index.items()
    }


def _ratable(seats: Sequence[SeatLine]) -> bool:
    return len(seats) >= 2 and len({seat.agent for seat in seats}) == len(seats)


def _orders(ranking: Sequence[tuple[int, int]]) -> list[tuple[int, ...]]:
    """Every strict order consistent with ``ranking`` ((rank, agent) pairs, best first): tied
    seats in each of their orders."""
    groups: dict[int, list[int]] = {}
    for rank, agent in ranking:
        groups.setdefault(rank, []).append(agent)
    choices = [list(permutations(groups[rank])) for rank in sorted(groups)]
    return [tuple(agent for part in parts for agent in part) for parts in product(*choices)]


@dataclass
class _Results:
    """The ratable results as arrays, in a canonical order (by deal, then by the ranking read as
    (agent, rank) pairs best first), so that no input order can change a sum's last bit.

    A season's million results are read in one Python pass and ordered and grouped by numpy.
    """

    agents: list[str]  # sorted: an agent's index orders as its name
    deals: list[Any]  # sorted
    deal_of: np.ndarray  # (matches,) deal index, canonical order
    size_of: np.ndarray  # (matches,) seats
    agent_of: np.ndarray  # (matches, most seats) agent index best first, -1 past its seats
    rank_of: np.ndarray  # (matches, most seats) effective rank, -1 past its seats
    tied: np.ndarray  # (matches,) bool: two seats share a rank
    agent_column: np.ndarray  # every seat's agent index (for the counts)

    @classmethod
    def collect(cls, matches: Iterable[tuple[Any, Sequence[SeatLine]]]) -> _Results:
        deal_list: list[Any] = []
        names: list[str] = []
        ranks: list[int] = []
        sizes: list[int] = []
        for deal, seats in matches:
            if not _ratable(seats):
                continue
            pairs = sorted(zip(effective_ranks(seats), (seat.agent for seat in seats), strict=True))
            deal_list.append(deal)
            sizes.append(len(pairs))
            for rank, agent in pairs:
                ranks.append(rank)
                names.append(agent)
        agents = sorted(set(names))
        deals = sorted(set(deal_list))
        count, most = len(sizes), max(sizes, default=0)
        index = {agent: i for i, agent in enumerate(agents)}
        deal_index = {deal: i for i, deal in enumerate(deals)}
        size_of = np.array(sizes, dtype=np.int64)
        agent_column = np.array([index[name] for name in names], dtype=np.int64)
        # seats laid out in a (matches, most seats) grid, -1 where a match has fewer
        row = np.repeat(np.arange(count), size_of)
        col = np.arange(len(names)) - np.repeat(np.cumsum(size_of) - size_of, size_of)
        agent_of = np.full((count, most), -1, dtype=np.int64)
        rank_of = np.full((count, most), -1, dtype=np.int64)
        agent_of[row, col] = agent_column
        rank_of[row, col] = np.array(ranks, dtype=np.int64)
        deal_of = np.array([deal_index[deal] for deal in deal_list], dtype=np.int64)
        # canonical order: deal, then (agent, rank) place by place; a shorter ranking first (-1)
        keys = [deal_of]
        for place in range(most):
            keys += [agent_of[:, place], rank_of[:, place]]
        order = np.lexsort(keys[::-1]) if count else np.arange(0)
        agent_of, rank_of = agent_of[order], rank_of[order]
        tied = (
            np.any((rank_of[:, 1:] == rank_of[:, :-1]) & (rank_of[:, 1:] >= 0), axis=1)
            if most > 1
            else np.zeros(count, dtype=bool)
        )
        return cls(agents, deals, deal_of[order], size_of[order], agent_of, rank_of, tied, agent_column)

    def blocks(self) -> list[_Block]:
        """One block per seat count, its rows in the canonical order; a match with ties spread
        over each order of its tied seats, each weighing its share."""
        found = []
        for size in np.unique(self.size_of).tolist():
            chosen = np.flatnonzero(self.size_of == size)
            agents, tied = self.agent_of[chosen, :size], self.tied[chosen]
            spread: dict[int, list[tuple[int, ...]]] = {
                int(i): _orders(
                    list(zip(self.rank_of[chosen[i], :size].tolist(), agents[i].tolist(), strict=True))
                )
                for i in np.flatnonzero(tied)
            }
            counts = np.ones(len(chosen), dtype=np.int64)
            for i, orders in spread.items():
                counts[i] = len(orders)
            starts = np.cumsum(counts) - counts
            rows = np.empty((int(counts.sum()), size), dtype=int)
            rows[starts[~tied]] = agents[~tied]
            for i, orders in spread.items():
                rows[starts[i] : starts[i] + counts[i]] = orders
            weights = np.repeat(1 / counts, counts)
            found.append(_Block(rows, weights, np.repeat(self.deal_of[chosen], counts)))
        return found


def _fit(blocks: list[_Block], deals: int) -> np.ndarray:
    """The maximum a posteriori strengths, on the natural-log scale.

    Newton's method with a backtracking line search: the log-posterior is strictly concave (the
    prior makes its Hessian negative definite), so each step solves one Cholesky system, which a
    season's thousand agents afford where a trust region's eigendecompositions do not.
    """
    n = 1 + max(int(block.orders.max()) for block in blocks)
    theta = np.zeros(n)
    for _ in range(NEWTON_STEPS):
        value, gradient, hessian, _ = _log_likelihood(theta, blocks, deals, curvature=True)
        prior_value, prior_gradient, prior_hessian = _log_prior(theta)
        gradient = gradient + prior_gradient
        if np.linalg.norm(gradient) < GRADIENT_TOLERANCE:
            break
        step = cho_solve(cho_factor(-(hessian + prior_hessian)), gradient)
        rise = float(gradient @ step)  # the ascent the step promises (> 0)
        size = 1.0
        while size > 1e-10:
            trial = theta + size * step
            if _log_posterior(trial, blocks, deals) >= value + prior_value + 1e-4 * size * rise:
                break
            size /= 2
        theta = trial
        if np.max(np.abs(size * step)) < 1e-13:
            break
    return theta


def _log_posterior(theta: np.ndarray, blocks: list[_Block], deals: int) -> float:
    return _log_likelihood(theta, blocks, deals)[0] + _log_prior(theta)[0]


def _log_likelihood(
    theta: np.ndarray, blocks: list[_Block], deals: int, curvature: bool = False, by_deal: bool = False
) -> tuple[float, np.ndarray, np.ndarray, csr_matrix | None]:
    """The Plackett-Luce log-likelihood, its gradient, its Hessian and (``by_deal``) the gradient
    split by deal (deals x agents, sparse: a deal involves a few agents of a season's thousand).

    A ranking's log-likelihood is the sum over its places of theta(placed) - log sum exp(theta)
    over the seats not yet placed; the last seat is placed with certainty.
    """
    n = len(theta)
    value = 0.0
    gradient = np.zeros(n)
    hessian = np.zeros(n * n)
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    parts: list[np.ndarray] = []
    for block in blocks:
        strengths = theta[block.orders]
        for place in range(block.orders.shape[1] - 1):
            rest = block.orders[:, place:]
            norm = logsumexp(strengths[:, place:], axis=1)
            value += block.weights @ (strengths[:, place] - norm)
            chance = np.exp(strengths[:, place:] - norm[:, None])  # who would be placed here
            weighted = chance * block.weights[:, None]
            gradient += np.bincount(block.orders[:, place], block.weights, n)
            gradient -= np.bincount(rest.ravel(), weighted.ravel(), n)
            if by_deal:
                rows += [block.deals, np.repeat(block.deals, rest.shape[1])]
                cols += [block.orders[:, place], rest.ravel()]
                parts += [block.weights, -weighted.ravel()]
            if curvature:  # minus the covariance of the placed seat's indicator
                pairs = (rest[:, :, None] * n + rest[:, None, :]).ravel()
                outer = chance[:, :, None] * weighted[:, None, :]
                hessian += np.bincount(pairs, outer.ravel(), n * n)
                hessian -= np.bincount(rest.ravel() * (n + 1), weighted.ravel(), n * n)
    scores = None
    if by_deal:  # duplicates (a deal's places and matches) are summed
        scores = coo_matrix(
            (np.concatenate(parts), (np.concatenate(rows), np.concatenate(cols))), shape=(deals, n)
        ).tocsr()
    return value, gradient, hessian.reshape(n, n), scores


def _log_prior(theta: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """PRIOR_DRAWS virtual draws against a rating-0 opponent: value, gradient, Hessian."""
    half = PRIOR_DRAWS / 2
    win = expit(theta)
    value = half * float(np.sum(-np.logaddexp(0, -theta) - np.logaddexp(0, theta)))
    return value, half * (1 - 2 * win), np.diag(-2 * half * win * (1 - win))


def _centred_standard_errors(theta: np.ndarray, blocks: list[_Block], deals: int) -> np.ndarray:
    """Standard errors of theta - mean(theta), clustered by deal (a sandwich estimator).

    Matches of one deal share its luck, so they are not independent: the deal, not the match,
    is the unit of the variance (Liang and Zeger 1986), with the small-sample factor D / (D - 1).
    """
    _, _, hessian, scores = _log_likelihood(theta, blocks, deals, curvature=True, by_deal=True)
    assert scores is not None  # asked for by_deal
    n = len(theta)
    bread = cho_solve(cho_factor(-(hessian + _log_prior(theta)[2])), np.eye(n))
    meat = (scores.T @ scores).toarray() * deals / (deals - 1)
    centred = bread - bread.mean(axis=0)  # (I - 1/n) @ bread: the strengths minus their mean
    variance = np.einsum("ij,ij->i", centred @ meat, centred)  # the diagonal of centred @ meat @ centred.T
    return np.sqrt(np.clip(variance, 0, None))

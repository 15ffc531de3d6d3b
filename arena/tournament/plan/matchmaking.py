"""Season matchmaking: who plays next, against whom, and when the final order is settled.

A season is a ladder that never stops: bots join, are replaced and withdraw while games are
played. This module is its policy, pure (no store, no engine, no clock: time is the number of
games scheduled so far), deterministic for a seed. The rules, each with its knob in
``MatchmakingPolicy``:

- **Placement.** A new bot plays its first ``placement_games`` games before anyone else, its
  opponents spread over the table's ranks (the table cut into equal strata, each met once, in
  a golden-ratio order), so it meets the top, the middle and the bottom early.
- **Who plays next** is drawn with weight ``(idle / mean idle) ** idle_weight * (mean games /
  games) ** games_weight``: a bot that has played few games, or not for long, is drawn more
  often. Uncertainty (TrueSkill sigma) plays no part, so a bot that keeps crashing, whose
  sigma would stay wide, cannot draw games to itself.
- **Opponents** are the group of highest TrueSkill match quality among the ``nearest`` bots
  nearest in rank, the quality discounted by how often the group's pairs met already
  (relative to the leader's usual meetings), so the same pairs do not repeat needlessly.
- **A cap**: past placement no bot sits in more than ``max_share`` times its fair share of
  the seats of the last ``share_window`` games.
- **Seats**: each game has one of ``seats`` (the counts the game allows), drawn uniformly.
- **Voided games**: a seat that crashed, timed out or broke the protocol loses, and only its
  rating moves; the others' results do not count (their ratings, games and meetings stay as
  they were, so the weights give them the lost game back).
- **Suspension**: a bot with ``suspend_errors`` errors in its last ``suspend_window`` games is
  suspended, with one line why.
- **Drift**: TrueSkill's ``tau`` widens every rating a little before each update while the
  season is open, so an improved bot can move; the final phase rates with no drift.
- **The final phase**: no more joins; games are spread evenly over the top ``final_top`` (the
  one with fewest final games leads, opponents by the same quality rule among the top K)
  until every adjacent pair of the top K is separated at ``final_confidence`` by the
  order-free MLE ratings (``separated``), or ``final_budget`` games are spent.

docs/ladders.md (*Season matchmaking*) describes the knobs; bench/bench_matchmaking.py measures
the policy against a round robin and the swiss format on simulated seasons.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from statistics import NormalDist
from typing import Any

import numpy as np
import trueskill

from arena.tournament.stats.elo import Z95
from arena.tournament.stats.ratings import SeatLine
from arena.tournament.stats.ratings_mle import MleRating
from arena.tournament.stats.trueskill_ffa import FfaRater, skill

GOLDEN = (math.sqrt(5) - 1) / 2  # the golden ratio's fraction: the most evenly spreading step


@dataclass(frozen=True)
class MatchmakingPolicy:
    """The knobs of a season's matchmaking (a ladder's ``[season]`` table)."""

    seats: tuple[int, ...] = (2,)  # seat counts the game allows, drawn uniformly per game
    placement_games: int = 10  # a new bot's first games, against opponents spread over the ranks
    nearest: int = 10  # opponents come from this many bots nearest in rank
    games_weight: float = 1.0  # how strongly few games played draws a bot
    idle_weight: float = 1.0  # how strongly a long time since its last game draws a bot
    max_share: float = 3.0  # past placement: at most this many times the fair share of seats...
    share_window: int = 1000  # ...of the last this many games
    suspend_errors: int = 3  # suspended after this many errors...
    suspend_window: int = 10  # ...in its last this many games
    tau: float = 25 / 300  # TrueSkill drift while the season is open (its default); none in the final
    draw_probability: float = 0.10  # as the leaderboard's TrueSkill
    final_top: int = 10  # the final phase settles the order of the top K
    final_confidence: float = 0.95  # one-sided confidence that each adjacent pair is in order
    final_budget: int = 10_000  # games the final phase may play at most

    def __post_init__(self) -> None:
        problems = []
        if not self.seats or any(not 2 <= n <= 4 for n in self.seats):
            problems.append(f"seats must be counts from 2 to 4, got {self.seats}")
        for name in ("placement_games", "share_window", "suspend_errors", "suspend_window", "final_budget"):
            if getattr(self, name) < 1:
                problems.append(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.nearest < max(self.seats, default=2) - 1:
            problems.append(f"nearest must be at least the largest seat count less one, got {self.nearest}")
        if self.final_top < 2:
            problems.append(f"final_top must be at least 2, got {self.final_top}")
        if self.suspend_errors > self.suspend_window:
            problems.append("suspend_errors cannot exceed suspend_window")
        if self.max_share <= 1 or self.games_weight < 0 or self.idle_weight < 0 or self.tau < 0:
            problems.append("max_share must exceed 1; games_weight, idle_weight and tau cannot be negative")
        if not 0.5 < self.final_confidence < 1:
            problems.append(f"final_confidence must lie between 0.5 and 1, got {self.final_confidence}")
        if problems:
            raise ValueError("; ".join(problems))


@dataclass(frozen=True)
class Recorded:
    """What recording one game did: whether it was voided, who was suspended and why."""

    voided: bool
    suspended: dict[str, str]


def counted(games: Iterable[tuple[Any, Sequence[SeatLine]]]) -> list[tuple[Any, Sequence[SeatLine]]]:
    """The ``(deal, seats)`` results that count in the published (MLE) table: a voided game,
    one with a faulted seat, is left out, so the other seats gain nothing from it (the
    offender's loss moves only its TrueSkill rating and its error count)."""
    return [(deal, seats) for deal, seats in games if all(seat.fault is None for seat in seats)]


def placement_quantiles(game: int, opponents: int, games: int) -> list[float]:
    """Rank quantiles (0 = top, 1 = bottom) of the opponents of a new bot's placement game
    ``game`` (0-based) of ``games``: the table cut into ``games * opponents`` equal strata, each
    met once, visited in the order of the golden-ratio sequence so that the first games
    already spread over the whole table."""
    strata = games * opponents
    visits = np.argsort(np.argsort((np.arange(strata) * GOLDEN) % 1.0))  # point -> its stratum
    start = game * opponents
    return [(int(visits[(start + k) % strata]) + 0.5) / strata for k in range(opponents)]


def draw_weights(games: np.ndarray, idle: np.ndarray, policy: MatchmakingPolicy) -> np.ndarray:
    """The weights of drawing each bot to play next from its ``games`` played and its ``idle``
    time (games scheduled since its last); relative to the field's means, never uncertainty."""
    games = np.asarray(games, dtype=float)
    idle = np.asarray(idle, dtype=float)
    by_games = ((1 + games.mean()) / (1 + games)) ** policy.games_weight
    by_idle = ((1 + idle) / (1 + idle.mean())) ** policy.idle_weight
    return by_games * by_idle


def match_quality(mu: np.ndarray, sigma: np.ndarray, beta: float) -> np.ndarray:
    """TrueSkill's match quality (the draw probability of the group, Herbrich et al. 2006) of
    each row of ``mu``/``sigma`` (groups x seats, one bot a team): ``trueskill.quality``,
    vectorised over the groups."""
    mu = np.atleast_2d(np.asarray(mu, dtype=float))
    sigma = np.atleast_2d(np.asarray(sigma, dtype=float))
    seats = mu.shape[1]
    a = np.zeros((seats, seats - 1))  # the differences of adjacent seats
    a[np.arange(seats - 1), np.arange(seats - 1)] = 1
    a[np.arange(1, seats), np.arange(seats - 1)] = -1
    ata = beta**2 * a.T @ a
    atsa = np.einsum("ji,gj,jk->gik", a, sigma**2, a)  # A^T diag(sigma^2) A for every group
    middle = ata + atsa
    diff = mu @ a  # (groups, seats - 1)
    solved = np.linalg.solve(middle, diff[..., None])[..., 0]
    exponent = -0.5 * np.einsum("gi,gi->g", diff, solved)
    return np.exp(exponent) * np.sqrt(np.linalg.det(ata) / np.linalg.det(middle))


def separated(order: Sequence[str], ratings: Mapping[str, MleRating], confidence: float) -> list[bool]:
    """For each adjacent pair of ``order`` (best first), whether the MLE ratings put the upper
    one above at ``confidence`` (one-sided): the difference over its standard error, each
    rating's from its 95% interval, combined as if independent (the centred ratings are
    slightly negatively correlated, so this errs towards "not separated")."""
    z = NormalDist().inv_cdf(confidence)
    result = []
    for upper, lower in zip(order, order[1:], strict=False):
        a, b = ratings.get(upper), ratings.get(lower)
        if a is None or b is None or None in (a.low, a.high, b.low, b.high):
            result.append(False)
            continue
        assert a.low is not None and a.high is not None and b.low is not None and b.high is not None
        spread = math.hypot((a.high - a.low) / (2 * Z95), (b.high - b.low) / (2 * Z95))
        result.append(spread > 0 and (a.elo - b.elo) / spread >= z)
    return result


class Matchmaker:
    """A season's matchmaking state in memory: ratings, games, meetings, suspensions.

    The season service feeds it its joins, withdrawals and results in order (replaying them
    after a restart gives the same state, and with the same seed the same next groups).
    """

    def __init__(self, policy: MatchmakingPolicy, seed: int = 0) -> None:
        self.policy = policy
        self.rng = np.random.default_rng(seed)
        self.open_env = FfaRater(draw_probability=policy.draw_probability, tau=policy.tau)
        self.final_env = FfaRater(draw_probability=policy.draw_probability, tau=0.0)
        self.env = self.open_env
        self.names: list[str] = []
        self.index: dict[str, int] = {}
        self.mu = np.zeros(0)
        self.sigma = np.zeros(0)
        self.games = np.zeros(0, dtype=np.int64)  # games that counted for the bot
        # games scheduled for it: placement counts these, so games still being played (a
        # service schedules many at once) are not scheduled again with the same opponents
        self.scheduled = np.zeros(0, dtype=np.int64)
        self.last = np.zeros(0, dtype=np.int64)  # tick of its last scheduled game
        self.active = np.zeros(0, dtype=bool)  # joined, not withdrawn, not suspended
        self.meetings = np.zeros((0, 0), dtype=np.int64)
        self.recent: deque[tuple[int, int]] = deque()  # (tick, bot) of seats past placement
        self.recent_seats = np.zeros(0, dtype=np.int64)  # each bot's seats among them (the cap)
        self.errors: list[deque[bool]] = []
        self.suspended: dict[str, str] = {}
        self.tick = 0  # games scheduled so far: the season's clock
        self.final_top: list[str] | None = None
        self.final_games = np.zeros(0, dtype=np.int64)
        self.final_played = 0  # games of the final phase recorded

    # -- the field ------------------------------------------------------------------------

    def join(self, name: str) -> None:
        """Add a bot (a new version is a new name); it starts its placement at once."""
        if self.final_top is not None:
            raise ValueError(f"the final phase has begun: {name!r} cannot join")
        if name in self.index:
            raise ValueError(f"{name!r} has joined already")
        self.index[name] = len(self.names)
        self.names.append(name)
        fresh = self.env.create()
        self.mu = np.append(self.mu, fresh.mu)
        self.sigma = np.append(self.sigma, fresh.sigma)
        self.games = np.append(self.games, 0)
        self.scheduled = np.append(self.scheduled, 0)
        self.last = np.append(self.last, self.tick)
        self.active = np.append(self.active, True)
        self.final_games = np.append(self.final_games, 0)
        grown = np.zeros((len(self.names), len(self.names)), dtype=np.int64)
        grown[:-1, :-1] = self.meetings
        self.meetings = grown
        self.recent_seats = np.append(self.recent_seats, 0)
        self.errors.append(deque(maxlen=self.policy.suspend_window))

    def withdraw(self, name: str) -> None:
        """Take a bot out of the draws (its games keep counting in the others' ratings)."""
        self.active[self.index[name]] = False

    def rating(self, name: str) -> trueskill.Rating:
        """The bot's TrueSkill rating now."""
        i = self.index[name]
        return trueskill.Rating(float(self.mu[i]), float(self.sigma[i]))

    def table(self) -> list[str]:
        """The active bots, highest TrueSkill mu first (the live order matchmaking uses)."""
        live = np.flatnonzero(self.active)
        return [self.names[i] for i in live[np.lexsort((live, -self.mu[live]))]]

    def in_placement(self, name: str) -> bool:
        """Whether the bot is still playing its placement games."""
        return bool(self.scheduled[self.index[name]] < self.policy.placement_games)

    # -- scheduling ---------------------------------------------------------------------

    def next_group(self) -> tuple[str, ...] | None:
        """The bots of the next game, the leader first; None when too few can play."""
        seats = int(self.rng.choice(self.policy.seats))
        if self.final_top is not None:
            group = self._final_group(seats)
        else:
            group = self._open_group(seats)
        if group is None:
            return None
        for i in group:
            self.last[i] = self.tick
            self.scheduled[i] += 1
            if self.scheduled[i] > self.policy.placement_games:
                self.recent.append((self.tick, i))
                self.recent_seats[i] += 1
        self.tick += 1
        return tuple(self.names[i] for i in group)

    def _open_group(self, seats: int) -> list[int] | None:
        live = np.flatnonzero(self.active)
        placing = live[self.scheduled[live] < self.policy.placement_games]
        settled = live[self.scheduled[live] >= self.policy.placement_games]
        under = settled[~self._capped(settled)]
        seats = min(seats, len(live))
        if seats < 2:
            return None
        if len(placing):  # placement first: the fewest games, then the earliest joined
            leader = int(placing[np.lexsort((placing, self.scheduled[placing]))[0]])
            return self._placement_group(leader, seats, under, live)
        if len(under) < seats:
            return None
        idle = self.tick - self.last[under]
        weights = draw_weights(self.games[under], idle, self.policy)
        leader = int(self.rng.choice(under, p=weights / weights.sum()))
        return [leader, *self._opponents(leader, seats - 1, under[under != leader], self.policy.nearest)]

    def _placement_group(self, leader: int, seats: int, under: np.ndarray, live: np.ndarray) -> list[int]:
        pool = under if len(under) >= seats - 1 else live[live != leader]
        ranked = pool[np.lexsort((pool, -self.mu[pool]))]
        chosen = [leader]
        for quantile in placement_quantiles(
            int(self.scheduled[leader]), seats - 1, self.policy.placement_games
        ):
            target = quantile * (len(ranked) - 1)
            # the free bot nearest the target rank (ties: the higher rank)
            for position in np.argsort(np.abs(np.arange(len(ranked)) - target), kind="stable"):
                if ranked[position] not in chosen:
                    chosen.append(int(ranked[position]))
                    break
        return chosen

    def _capped(self, bots: np.ndarray) -> np.ndarray:
        """Which of ``bots`` sat in more than max_share times their fair share of recent seats."""
        window = self.policy.share_window
        while self.recent and self.recent[0][0] < self.tick - window:
            self.recent_seats[self.recent.popleft()[1]] -= 1
        live = max(1, int(self.active.sum()))
        mean_seats = sum(self.policy.seats) / len(self.policy.seats)
        limit = max(1.0, self.policy.max_share * min(window, self.tick) * mean_seats / live)
        return self.recent_seats[bots] >= limit

    def _opponents(self, leader: int, count: int, pool: np.ndarray, nearest: int) -> list[int]:
        """The ``count`` bots of ``pool`` that, with ``leader``, make the best group among the
        ``nearest`` nearest in rank: highest match quality, discounted by earlier meetings."""
        ranked = np.concatenate(([leader], pool))
        ranked = ranked[np.lexsort((ranked, -self.mu[ranked]))]
        at = int(np.flatnonzero(ranked == leader)[0])
        others = np.delete(ranked, at)
        distance = np.abs(np.arange(len(others)) - (at - 0.5))  # rank distance to the leader
        near = others[np.sort(np.argsort(distance, kind="stable")[:nearest])]
        combos = np.array(list(combinations(range(len(near)), count)), dtype=np.int64)
        groups = np.concatenate((np.full((len(combos), 1), leader), near[combos]), axis=1)
        quality = match_quality(self.mu[groups], self.sigma[groups], self.env.beta)
        usual = 1 + self.meetings[leader, near].mean()
        pairs = list(combinations(range(groups.shape[1]), 2))
        met = np.mean([self.meetings[groups[:, a], groups[:, b]] for a, b in pairs], axis=0)
        best = int(np.argmax(quality / (1 + met / usual)))  # ties: the first (the higher ranks)
        return [int(i) for i in groups[best, 1:]]

    # -- results ------------------------------------------------------------------------

    def record(self, group: Sequence[str], places: Sequence[int], errors: Sequence[bool]) -> Recorded:
        """Rate a finished game: ``places`` (1 = first, ties share a place) and whether each seat
        crashed, timed out or broke the protocol. A game with an error is voided: the offenders
        lose and only their ratings move; the other seats' results do not count."""
        bots = [self.index[name] for name in group]
        if not len(bots) == len(places) == len(errors) or len(set(bots)) != len(bots):
            raise ValueError("a game needs one place and one error flag per seat, each bot once")
        voided = any(errors)
        ranks = [1 if error else 0 for error in errors] if voided else list(places)
        # as trueskill.Rating(mu, sigma) holds them: the same numbers as the library's, bit for bit
        skills = [skill(float(self.mu[i]), float(self.sigma[i])) for i in bots]
        updated = self.env.rate(skills, ranks)
        suspended = {}
        for i, error, rating in zip(bots, errors, updated, strict=True):
            self.errors[i].append(bool(error))
            if voided and not error:
                continue  # an innocent seat of a voided game: nothing counts
            self.mu[i], self.sigma[i] = rating.mu, rating.sigma
            self.games[i] += 1
            if self.final_top is not None:
                self.final_games[i] += 1
            count = sum(self.errors[i])
            if count >= self.policy.suspend_errors and self.names[i] not in self.suspended:
                reason = f"{count} errors in its last {len(self.errors[i])} games"
                self.suspended[self.names[i]] = reason
                self.active[i] = False
                suspended[self.names[i]] = reason
        if self.final_top is not None:
            self.final_played += 1
        if not voided:
            for a, b in combinations(bots, 2):
                self.meetings[a, b] += 1
                self.meetings[b, a] += 1
        return Recorded(voided, suspended)

    # -- the final phase ----------------------------------------------------------------

    def start_final(self, top: Sequence[str]) -> None:
        """Lock the field and settle the order of ``top`` (the published table's top K, best
        first): no more joins, no drift, games only among them."""
        self.final_top = [name for name in top if name in self.index][: self.policy.final_top]
        self.env = self.final_env

    def _final_group(self, seats: int) -> list[int] | None:
        assert self.final_top is not None
        top = np.array([self.index[name] for name in self.final_top if self.active[self.index[name]]])
        seats = min(seats, len(top))
        if seats < 2:
            return None
        leader = int(top[np.lexsort((np.arange(len(top)), self.final_games[top]))[0]])
        others = top[top != leader]
        # even spread: opponents only from those with the fewest final games (enough to seat)
        fewest = np.sort(self.final_games[others])[seats - 2]
        pool = others[self.final_games[others] <= fewest]
        return [leader, *self._opponents(leader, seats - 1, pool, len(top))]

    def final_over(self, ratings: Mapping[str, MleRating], order: Sequence[str]) -> bool:
        """Whether the final phase may stop: every adjacent pair of ``order`` (the top K by
        the MLE ratings, best first) separated, or the final budget spent."""
        return self.final_played >= self.policy.final_budget or all(
            separated(order, ratings, self.policy.final_confidence)
        )

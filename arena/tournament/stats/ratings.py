"""TrueSkill ratings, recomputed from stored results in schedule order.

Every match is a free-for-all of its seats (2 to 4, automaton included) with ties allowed. A
seat that forfeited ranks below every seat that did not. Replaying the same results in the same
(schedule) order always gives the same table, whatever order the matches finished in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import trueskill


@dataclass(frozen=True)
class SeatLine:
    """What the ratings need of one seat of a finished match."""

    agent: str
    score: int
    rank: int
    fault: str | None = None


@dataclass(frozen=True)
class Standing:
    """One line of the leaderboard. ``rating`` is the conservative estimate mu - 3 sigma."""

    rank: int
    agent: str
    rating: float
    mu: float
    sigma: float
    matches: int
    wins: int
    mean_score: float
    faults: int

    def as_dict(self) -> dict[str, object]:
        """The JSON form: keys rank, agent, rating, mu, sigma, matches, wins, mean_score, faults."""
        return {
            "rank": self.rank,
            "agent": self.agent,
            "rating": round(self.rating, 3),
            "mu": round(self.mu, 3),
            "sigma": round(self.sigma, 3),
            "matches": self.matches,
            "wins": self.wins,
            "mean_score": round(self.mean_score, 3),
            "faults": self.faults,
        }


def effective_ranks(seats: Sequence[SeatLine]) -> list[int]:
    """Ranks for rating: seats that did not forfeit keep their order; forfeits tie for last."""
    clean = sorted({seat.rank for seat in seats if seat.fault is None})
    dense = {rank: position for position, rank in enumerate(clean)}
    last = len(clean)
    return [last if seat.fault is not None else dense[seat.rank] for seat in seats]


class RateMemo:
    """TrueSkill updates remembered by their inputs (ratings in, ranks): recomputing a table after
    a few more results replays the unchanged prefix from memory, with identical numbers. The web
    arena keeps one per server, so a live leaderboard costs only the new matches."""

    LIMIT = 1_000_000  # entries kept before starting afresh (a few hundred bytes each)

    def __init__(self) -> None:
        self.updates: dict[tuple, list] = {}

    def rate(self, env: trueskill.TrueSkill, groups: list, ranks: list[int]) -> list:
        if len(self.updates) >= self.LIMIT:
            self.updates.clear()
        key = (env.draw_probability, tuple((g[0].mu, g[0].sigma) for g in groups), tuple(ranks))
        updated = self.updates.get(key)
        if updated is None:
            updated = self.updates[key] = env.rate(groups, ranks=ranks)
        return updated


def leaderboard(
    matches: Iterable[Sequence[SeatLine]],
    draw_probability: float = 0.10,
    after_match: Callable[[Mapping[str, trueskill.Rating]], None] | None = None,
    memo: RateMemo | None = None,
    inherits: Mapping[str, str] | None = None,
) -> list[Standing]:
    """The rated table from ``matches`` given in schedule order, best conservative rating first.

    ``after_match`` sees every agent's rating after each match (the web arena's rating chart);
    ``memo`` reuses earlier updates with the same inputs. ``inherits``: agent -> an earlier
    agent whose mean it starts from, with the uncertainty reset (a submitted bot's new version:
    Halite's rule); replayed in schedule order, so the same results give the same table.
    """
    env = trueskill.TrueSkill(draw_probability=draw_probability, backend=None)
    ratings: dict[str, trueskill.Rating] = {}
    inherits = inherits or {}
    played: dict[str, int] = {}
    wins: dict[str, int] = {}
    scores: dict[str, int] = {}
    faults: dict[str, int] = {}
    for seats in matches:
        for seat in seats:
            if seat.agent not in ratings:
                before = ratings.get(inherits.get(seat.agent, ""))
                ratings[seat.agent] = env.create_rating(mu=before.mu if before is not None else env.mu)
            played[seat.agent] = played.get(seat.agent, 0) + 1
            wins[seat.agent] = wins.get(seat.agent, 0) + (seat.rank == 1 and seat.fault is None)
            scores[seat.agent] = scores.get(seat.agent, 0) + seat.score
            faults[seat.agent] = faults.get(seat.agent, 0) + (seat.fault is not None)
        if len(seats) < 2 or len({seat.agent for seat in seats}) < len(seats):
            continue  # nothing to learn from a lone seat; an agent cannot be its own opponent
        groups = [(ratings[seat.agent],) for seat in seats]
        ranks = effective_ranks(seats)
        updated = memo.rate(env, groups, ranks) if memo is not None else env.rate(groups, ranks=ranks)
        for seat, (rating,) in zip(seats, updated, strict=True):
            ratings[seat.agent] = rating
        if after_match is not None:
            after_match(ratings)
    rows = sorted(ratings, key=lambda agent: (-(ratings[agent].mu - 3 * ratings[agent].sigma), agent))
    return [
        Standing(
            rank=position,
            agent=agent,
            rating=ratings[agent].mu - 3 * ratings[agent].sigma,
            mu=ratings[agent].mu,
            sigma=ratings[agent].sigma,
            matches=played[agent],
            wins=wins[agent],
            mean_score=scores[agent] / played[agent],
            faults=faults[agent],
        )
        for position, agent in enumerate(rows, start=1)
    ]


def inherited(config: Mapping[str, Any]) -> dict[str, str]:
    """Display name -> the display name whose rating mean it starts from (a submitted bot's new
    version), read from a stored run's roster (arena/tournament/plan/growth.py writes it)."""
    return {
        entry["name"]: entry["inherits"]
        for entry in config.get("roster", ())
        if isinstance(entry, Mapping) and entry.get("inherits")
    }

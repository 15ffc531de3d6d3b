"""TrueSkill ratings, recomputed from stored results in schedule order.

Every match is a free-for-all of its seats (2 to 4, automaton included) with ties allowed. A
seat that forfeited ranks below every seat that did not. Replaying the same results in the same
(schedule) order always gives the same table, whatever order the matches finished in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from arena.tournament.stats.trueskill_ffa import FfaRater, Skill


@dataclass(frozen=True)
class SeatLine:
    """What the ratings need of one seat of a finished match."""

    agent: str
    score: int
    rank: int
    fault: str | None = None


class RatedSeat(Protocol):
    """What the ratings read of a seat: a ``SeatLine``, or a seat as the store reads it back."""

    @property
    def agent(self) -> str: ...
    @property
    def score(self) -> int: ...
    @property
    def rank(self) -> int: ...
    @property
    def fault(self) -> str | None: ...


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


def effective_ranks(seats: Sequence[RatedSeat]) -> list[int]:
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
        self.updates: dict[tuple, list[Skill]] = {}

    def rate(self, rater: FfaRater, skills: list[Skill], ranks: list[int]) -> list[Skill]:
        """``rater.rate(skills, ranks)``, remembered."""
        if len(self.updates) >= self.LIMIT:
            self.updates.clear()
        key = (rater.draw_probability, tuple(skills), tuple(ranks))
        updated = self.updates.get(key)
        if updated is None:
            updated = self.updates[key] = rater.rate(skills, ranks)
        return updated


class TrueSkillTally:
    """TrueSkill ratings and per-agent counts, fed one finished match at a time in schedule order.

    ``leaderboard`` is one tally fed every match; a cache (arena/tournament/stats/ladder_tally.py)
    keeps one and feeds it only the matches rated since, instead of replaying a whole season.
    """

    def __init__(
        self,
        draw_probability: float = 0.10,
        memo: RateMemo | None = None,
        inherits: Mapping[str, str] | None = None,
    ) -> None:
        self.rater = FfaRater(draw_probability=draw_probability)
        self.memo = memo
        self.inherits = dict(inherits or {})
        self.ratings: dict[str, Skill] = {}
        self.played: dict[str, int] = {}
        self.wins: dict[str, int] = {}
        self.scores: dict[str, int] = {}
        self.faults: dict[str, int] = {}
        self.matches = 0  # matches fed

    def copy(self) -> TrueSkillTally:
        """An independent tally in the same state (its memo shared: it only remembers)."""
        twin = TrueSkillTally.__new__(TrueSkillTally)
        twin.rater, twin.memo, twin.inherits, twin.matches = (
            self.rater,
            self.memo,
            self.inherits,
            self.matches,
        )
        twin.ratings, twin.played, twin.wins = dict(self.ratings), dict(self.played), dict(self.wins)
        twin.scores, twin.faults = dict(self.scores), dict(self.faults)
        return twin

    def add(self, seats: Sequence[RatedSeat]) -> bool:
        """Count one finished match and rate it; False if it teaches the ratings nothing (a lone
        seat, an agent against itself)."""
        rater, ratings, inherits = self.rater, self.ratings, self.inherits
        played, wins, scores, faults = self.played, self.wins, self.scores, self.faults
        self.matches += 1
        forfeits = False
        for seat in seats:
            agent, fault = seat.agent, seat.fault
            if agent not in ratings:
                before = ratings.get(inherits.get(agent, ""))
                ratings[agent] = rater.create(before.mu if before is not None else None)
            played[agent] = played.get(agent, 0) + 1
            wins[agent] = wins.get(agent, 0) + (seat.rank == 1 and fault is None)
            scores[agent] = scores.get(agent, 0) + seat.score
            faults[agent] = faults.get(agent, 0) + (fault is not None)
            forfeits = forfeits or fault is not None
        if len(seats) < 2 or len({seat.agent for seat in seats}) < len(seats):
            return False  # nothing to learn from a lone seat; an agent cannot be its own opponent
        skills = [ratings[seat.agent] for seat in seats]
        # TrueSkill reads ranks only by their order and ties: the stored ranks give the same
        # update as the dense ones unless a forfeit must move a seat last
        ranks = effective_ranks(seats) if forfeits else [seat.rank for seat in seats]
        updated = self.memo.rate(rater, skills, ranks) if self.memo is not None else rater.rate(skills, ranks)
        for seat, rating in zip(seats, updated, strict=True):
            ratings[seat.agent] = rating
        return True

    def standings(self) -> list[Standing]:
        """The table so far, best conservative rating first."""
        ratings = self.ratings
        rows = sorted(ratings, key=lambda agent: (-(ratings[agent].mu - 3 * ratings[agent].sigma), agent))
        return [
            Standing(
                rank=position,
                agent=agent,
                rating=ratings[agent].mu - 3 * ratings[agent].sigma,
                mu=ratings[agent].mu,
                sigma=ratings[agent].sigma,
                matches=self.played[agent],
                wins=self.wins[agent],
                mean_score=self.scores[agent] / self.played[agent],
                faults=self.faults[agent],
            )
            for position, agent in enumerate(rows, start=1)
        ]


def leaderboard(
    matches: Iterable[Sequence[RatedSeat]],
    draw_probability: float = 0.10,
    after_match: Callable[[Mapping[str, Skill]], None] | None = None,
    memo: RateMemo | None = None,
    inherits: Mapping[str, str] | None = None,
) -> list[Standing]:
    """The rated table from ``matches`` given in schedule order, best conservative rating first.

    ``after_match`` sees every agent's rating after each match (the web arena's rating chart);
    ``memo`` reuses earlier updates with the same inputs. ``inherits``: agent -> an earlier
    agent whose mean it starts from, with the uncertainty reset (a submitted bot's new version:
    Halite's rule); replayed in schedule order, so the same results give the same table.
    """
    tally = TrueSkillTally(draw_probability, memo, inherits)
    for seats in matches:
        if tally.add(seats) and after_match is not None:
            after_match(tally.ratings)
    return tally.standings()


def inherited(config: Mapping[str, Any]) -> dict[str, str]:
    """Display name -> the display name whose rating mean it starts from (a submitted bot's new
    version), read from a stored run's roster (arena/tournament/plan/growth.py writes it)."""
    return {
        entry["name"]: entry["inherits"]
        for entry in config.get("roster", ())
        if isinstance(entry, Mapping) and entry.get("inherits")
    }

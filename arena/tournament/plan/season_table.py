"""A season's published table: the order-free MLE ratings, with intervals, over the games that count.

A voided game (a seat crashed, timed out or broke the protocol) does not count: it is left out of
the fit, and shown in its offenders' ``voided`` column. In the final phase the table marks, for
each adjacent pair of the top K, whether the upper one is ahead at the season's confidence.
Shared by `arena season status` and the web's season page.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.tournament.plan.matchmaking import counted, separated
from arena.tournament.plan.season import seat_lines
from arena.tournament.stats.ratings_mle import MleRating, mle_ratings
from arena.tournament.store.api import StoredMatch


@dataclass(frozen=True)
class SeasonRow:
    """One bot's line of the published table."""

    rank: int
    agent: str
    elo: float | None  # None: no game that counts yet
    low: float | None
    high: float | None
    games: int  # games that count
    voided: int  # games voided by its own fault
    status: str  # placement, active, suspended, withdrawn
    why: str = ""  # a suspension's reason
    separated: bool | None = None  # final phase: ahead of the next rank at the confidence (None: not asked)

    def as_dict(self) -> dict[str, Any]:
        """The JSON form (Elo rounded to 0.1)."""

        def rounded(value: float | None) -> float | None:
            return None if value is None else round(value, 1)

        return {
            "rank": self.rank,
            "agent": self.agent,
            "elo": rounded(self.elo),
            "low": rounded(self.low),
            "high": rounded(self.high),
            "games": self.games,
            "voided": self.voided,
            "status": self.status,
            "why": self.why,
            "separated": self.separated,
        }


def published_ratings(matches: Iterable[StoredMatch]) -> dict[str, MleRating]:
    """The MLE fit over the done matches that count (a deal per match: each has its own seed)."""
    done = [(match.spec.seed, seat_lines(match)) for match in matches if match.status == "done"]
    return mle_ratings(counted(done))


def season_table(
    matches: Sequence[StoredMatch],
    state: Mapping[str, Any],
    ratings: Mapping[str, MleRating] | None = None,
) -> list[SeasonRow]:
    """The table of a season from its stored matches and its live ``state`` (the service's:
    ``playing``, ``placing``, ``suspended``, ``final_top``, ``final_confidence``), best first."""
    fits = published_ratings(matches) if ratings is None else ratings
    games: dict[str, int] = {}
    voided: dict[str, int] = {}
    for match in matches:
        if match.status != "done":
            continue
        bad = any(seat.fault is not None for seat in match.seats)
        for seat in match.seats:
            if not bad:
                games[seat.agent] = games.get(seat.agent, 0) + 1
            elif seat.fault is not None:
                voided[seat.agent] = voided.get(seat.agent, 0) + 1
    playing = list(state.get("playing", ()))
    names = sorted(set(playing) | set(games) | set(voided))
    order = sorted(names, key=lambda name: (name not in fits, -fits[name].elo if name in fits else 0.0, name))
    suspended: Mapping[str, str] = state.get("suspended", {})
    placing = set(state.get("placing", ()))
    top = [name for name in order if name in set(state.get("final_top") or ())]
    marks = dict(zip(top, separated(top, fits, float(state.get("final_confidence", 0.95))), strict=False))
    rows = []
    for rank, name in enumerate(order, start=1):
        fit = fits.get(name)
        status = (
            "suspended"
            if name in suspended
            else "withdrawn"
            if name not in playing
            else "placement"
            if name in placing
            else "active"
        )
        rows.append(
            SeasonRow(
                rank,
                name,
                fit.elo if fit else None,
                fit.low if fit else None,
                fit.high if fit else None,
                games.get(name, 0),
                voided.get(name, 0),
                status,
                suspended.get(name, ""),
                marks.get(name),
            )
        )
    return rows

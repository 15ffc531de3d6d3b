"""A ladder page's tables kept up to date match by match: TrueSkill, the rating history, who met whom.

A season of a million matches cannot be replayed for every look at its leaderboard. A
``LadderTally`` is fed the done matches in schedule order and can be copied; ``SettledTally``
keeps one fed with the run's *settled* prefix (every match before the first one still pending or
running: those results can no longer move) and, for a view, copies it and feeds it only the done
matches after that prefix. Replaying in schedule order, the tables are those a full replay gives.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from arena.tournament.stats.ratings import RateMemo, SeatLine, Standing, TrueSkillTally, effective_ranks
from arena.tournament.store.api import DoneMatch, StoreReader

CHART_POINTS = 150  # points drawn per agent in the rating chart (between this and twice this)


def seat_lines(match: DoneMatch) -> list[SeatLine]:
    """A done match's seats as the ratings see them."""
    return [SeatLine(seat.agent, seat.score, seat.rank, seat.fault) for seat in match.seats]


@dataclass
class LadderTally:
    """TrueSkill, the sampled rating history and the head-to-head counts of matches fed so far."""

    ratings: TrueSkillTally
    history: dict[str, list[tuple[int, float]]] = field(default_factory=dict)
    stride: int = 1  # the history holds a point every ``stride`` rated matches
    rated: int = 0  # matches that moved the ratings
    last_idx: int = -1  # the schedule index of the last match fed
    met: Counter[tuple[str, str]] = field(default_factory=Counter)
    ahead: Counter[tuple[str, str]] = field(default_factory=Counter)
    # (agent, fault kind) -> (match id, schedule index, seat) of each forfeit, in schedule order
    faulted: dict[tuple[str, str], list[tuple[int, int, int]]] = field(default_factory=dict)

    @classmethod
    def empty(cls, memo: RateMemo | None, inherits: dict[str, str]) -> LadderTally:
        """A tally of no match."""
        return cls(TrueSkillTally(memo=memo, inherits=inherits))

    def copy(self) -> LadderTally:
        """An independent tally in the same state."""
        return LadderTally(
            self.ratings.copy(),
            {agent: list(points) for agent, points in self.history.items()},
            self.stride,
            self.rated,
            self.last_idx,
            self.met.copy(),
            self.ahead.copy(),
            {kind: list(seats) for kind, seats in self.faulted.items()},
        )

    def add(self, match: DoneMatch) -> None:
        """Feed one done match (after every match of a lower index)."""
        lines = match.seats
        self.last_idx = match.idx
        for number, line in enumerate(lines):
            if line.fault is not None:
                self.faulted.setdefault((line.agent, line.fault), []).append((match.id, match.idx, number))
        ranks = effective_ranks(lines)
        for i, a in enumerate(lines):
            for j, b in enumerate(lines):
                if i != j and a.agent != b.agent:
                    self.met[a.agent, b.agent] += 1
                    self.ahead[a.agent, b.agent] += ranks[i] < ranks[j]
        if not self.ratings.add(lines):
            return
        self.rated += 1
        if self.rated % self.stride == 0:
            self._sample()
            if len(next(iter(self.history.values()), ())) >= 2 * CHART_POINTS:
                self.stride *= 2  # keep every other point: the chart's resolution follows the season
                for agent, points in self.history.items():
                    self.history[agent] = [point for point in points if point[0] % self.stride == 0]

    def _sample(self) -> None:
        for agent, rating in self.ratings.ratings.items():
            self.history.setdefault(agent, []).append((self.rated, round(rating.mu - 3 * rating.sigma, 3)))

    def finished(self) -> tuple[list[Standing], dict[str, list[tuple[int, float]]]]:
        """The table and the history, its last point at the last rated match."""
        history = self.history
        if self.rated and self.rated % self.stride:
            final = self.copy()
            final._sample()
            history = final.history
        return self.ratings.standings(), history

    def matrix(self, agents: list[str]) -> dict[str, Any]:
        """For each ordered pair of ``agents``: matches both played, how often the row agent finished ahead."""
        cells: list[list[dict[str, Any]]] = [
            [
                {
                    "played": self.met[a, b],
                    "ahead": self.ahead[a, b],
                    "share": round(self.ahead[a, b] / self.met[a, b], 3) if self.met[a, b] else None,
                }
                for b in agents
            ]
            for a in agents
        ]
        # met: how often two of these agents sat at one table (never in a solo ladder of one seat)
        return {
            "agents": agents,
            "cells": cells,
            "met": sum(cell["played"] for row in cells for cell in row) // 2,
        }


class SettledTally:
    """One run's tally of its settled prefix, brought up to date on demand (see the module's docstring)."""

    def __init__(self, run_id: int, memo: RateMemo | None, inherits: dict[str, str]) -> None:
        self.run_id = run_id
        self.memo = memo
        self.inherits = inherits
        self.settled = LadderTally.empty(memo, inherits)
        self.bound = -1  # every match up to this index is settled and fed

    def current(self, store: StoreReader) -> LadderTally:
        """The tally of every done match of the run now, to be read only (call inside
        ``store.snapshot()``). A result taken back and played again between two calls goes
        unnoticed until the server restarts (a cluster's cheat, rare); any other change is seen."""
        first_open = store.unplayed_from(self.run_id)
        if first_open is not None and first_open <= self.bound:  # a result was taken back: start again
            self.settled, self.bound = LadderTally.empty(self.memo, self.inherits), -1
        upto = None if first_open is None else first_open - 1
        if upto is None or upto > self.bound:
            for match in store.done_matches(self.run_id, after=self.bound, upto=upto):
                self.settled.add(match)
            self.bound = self.settled.last_idx if upto is None else upto
        if first_open is None:
            return self.settled  # (the caller only reads it)
        view = self.settled.copy()
        for match in store.done_matches(self.run_id, after=self.bound):
            view.add(match)
        return view


MLE_EVERY_S = 60.0  # a slow fit (a season's) is redone at most this often; a fast one at every change
MLE_SLOW_S = 1.0  # a fit slower than this is a slow one
MLE_SHARE = 10  # ... and at most once per this many times its own duration: a server whose fit
# takes a minute (a million matches) spends at most a tenth of its time refitting


class RunTables:
    """What a server keeps of one run between views: its settled tally and its last MLE fit."""

    def __init__(self, run_id: int, memo: RateMemo | None, inherits: dict[str, str]) -> None:
        self.inherits = inherits
        self.tally = SettledTally(run_id, memo, inherits)
        self.fits: dict[str, Any] | None = None
        self.fitted_at = 0.0  # time.monotonic() of the last fit
        self.fit_seconds = 0.0
        self.fitted_done = -1  # done matches in the last fit
        self.fault_lines: dict[int, dict[int, tuple[str, str]]] = {}  # records' fault lines read, by match id

    def mle(self, store: StoreReader, run_id: int, done: int) -> dict[str, Any]:
        """The order-free fit of the run's done matches, redone when ``done`` changed, but a slow
        fit at most every MLE_EVERY_S seconds or MLE_SHARE times its duration, whichever is longer
        (its figures lag by at most that, plus the fit's own time)."""
        from arena.tournament.stats.ratings_mle import (
            mle_ratings,  # numpy and scipy load only when a ladder is shown
        )

        now = time.monotonic()
        due = self.fit_seconds < MLE_SLOW_S or now - self.fitted_at >= max(
            MLE_EVERY_S, MLE_SHARE * self.fit_seconds
        )
        if self.fits is None or (done != self.fitted_done and due):
            self.fits = mle_ratings((m.seed, seat_lines(m)) for m in store.done_matches(run_id))
            self.fitted_at, self.fitted_done = now, done
            self.fit_seconds = time.monotonic() - now
        return self.fits

"""The store's read queries for the pages and reports: every one in this module, as typed records.

``StoreReads`` is a mixin: a backend inherits it and supplies three primitives, ``_rows`` (every
row of a query, as tuples), ``_row`` (the first row or None) and ``snapshot`` (a context manager
holding one read transaction, so that several reads see the same results). The SQL here is
portable: ``?`` placeholders, no functions of one database, booleans counted with CASE, so the
same text runs on SQLite and PostgreSQL. Nothing outside arena/tournament/store/ runs SQL.

Lists that grow with a season (a ladder's matches, an agent's matches) are read one page at a
time; the queries are served by the indexes a migration of the schema adds (schema.py).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any

from arena.tournament.store.api import (
    DAMAGED_HINT,
    STATUSES,
    AgentSeatStats,
    DoneMatch,
    DoneSeat,
    FaultSeat,
    MatchFilter,
    RunProgress,
    StoreError,
)

# the statuses of a match not done yet, as SQL (few at any time: counted, unlike the done ones)
_OPEN = ", ".join(f"'{status}'" for status in STATUSES if status != "done")

DONE_CHUNK = 20_000  # schedule indexes read at once by ``done_matches``


def _seat(row: Sequence[Any], where: str) -> DoneSeat:
    """A seat read back, its types checked (a hand-edited store may hold a rank as text)."""
    agent, score, rank, fault = row
    for column, value, kind in (("agent", agent, str), ("score", score, int), ("rank", rank, int)):
        if not isinstance(value, kind) or isinstance(value, bool):
            expected = "text" if kind is str else "an integer"
            raise StoreError(
                f"table seats, {where}: its {column} is {str(value)[:40]!r}, not {expected}" + DAMAGED_HINT
            )
    if fault is not None and not isinstance(fault, str):
        raise StoreError(
            f"table seats, {where}: its fault is {str(fault)[:40]!r}, not text or NULL" + DAMAGED_HINT
        )
    return DoneSeat(agent, score, rank, fault)


# A submitted bot plays as ``bot`` and, from its second version on, as ``bot@version``
# (docs/submissions.md): ``bot`` itself, or a name from "bot@" up to (not including) "botA" ("A"
# follows "@"), a range the index on seats.agent answers (a LIKE would scan the table).
_BOT_SEATS = "(agent = ? OR (agent >= ? AND agent < ?))"


def bot_seat_names(bot: str) -> tuple[str, str, str]:
    """The parameters of ``_BOT_SEATS`` for ``bot``."""
    return bot, bot + "@", bot + "A"


def is_bot_entrant(bot: str, agent: str) -> bool:
    """Whether the seat's agent ``agent`` is a version of submitted bot ``bot``."""
    return agent == bot or agent.startswith(bot + "@")


class StoreReads:
    """Read queries shared by every backend (see the module's docstring)."""

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Every row of ``sql`` run with ``params``, as tuples (the backend's)."""
        raise NotImplementedError

    def _row(self, sql: str, params: Sequence[Any] = ()) -> tuple[Any, ...] | None:
        """The first row of ``sql`` run with ``params``, or None (the backend's)."""
        raise NotImplementedError

    def snapshot(self) -> AbstractContextManager[None]:
        """One read transaction: the reads inside it see one state of the store (the backend's)."""
        raise NotImplementedError

    # -- progress ----------------------------------------------------------------------------------

    def progress(self, run_id: int) -> RunProgress:
        """A run's matches per status and its last activity (index lookups, not a table scan)."""
        return RunProgress(self._status_counts(run_id), self._last_activity(run_id))

    def _status_counts(self, run_id: int) -> dict[str, int]:
        # Only the matches not done are counted (an index range each); the done ones are the rest
        # of the count the run keeps, read by the same statement, so of the same state.
        total, counts = 0, {}
        for status, n in self._rows(
            "SELECT 'all', match_count FROM ladders WHERE id = ?"
            " UNION ALL SELECT status, COUNT(*) FROM matches"
            f" WHERE ladder_id = ? AND status IN ({_OPEN}) GROUP BY status",
            (run_id, run_id),
        ):
            if status == "all":
                total = int(n)
            elif n:
                counts[str(status)] = int(n)
        if total > sum(counts.values()):
            counts["done"] = total - sum(counts.values())
        return counts

    def _last_activity(self, run_id: int) -> str | None:
        # The latest of COALESCE(finished, started), as two lookups in the (ladder_id, finished,
        # started) index: the latest finish, and the latest start of a match not finished.
        finished = self._row("SELECT MAX(finished) FROM matches WHERE ladder_id = ?", (run_id,))
        started = self._row(
            "SELECT MAX(started) FROM matches WHERE ladder_id = ? AND finished IS NULL", (run_id,)
        )
        found = [str(row[0]) for row in (finished, started) if row is not None and row[0] is not None]
        return max(found) if found else None

    def progress_by_run(self) -> dict[int, RunProgress]:
        """``progress`` of every run that holds a match."""
        held = [int(row[0]) for row in self._rows("SELECT id FROM ladders WHERE match_count > 0 ORDER BY id")]
        return {run_id: self.progress(run_id) for run_id in held}

    def running(self, run_id: int, limit: int) -> list[tuple[int, str]]:
        """The (id, key) of the run's first ``limit`` running matches, in schedule order."""
        return [
            (int(match_id), str(key))
            for match_id, key in self._rows(
                "SELECT id, key FROM matches WHERE ladder_id = ? AND status = 'running' ORDER BY idx LIMIT ?",
                (run_id, limit),
            )
        ]

    def unplayed_from(self, run_id: int) -> int | None:
        """The schedule index of the run's first match still pending or running (None: none is);
        every match before it is done or aborted, so its results can no longer move."""
        row = self._row(
            "SELECT MIN(idx) FROM matches WHERE ladder_id = ? AND status IN ('pending', 'running')", (run_id,)
        )
        return None if row is None or row[0] is None else int(row[0])

    # -- results -----------------------------------------------------------------------------------

    def done_matches(self, run_id: int, after: int = -1, upto: int | None = None) -> Iterator[DoneMatch]:
        """The run's done matches with ``after`` < index (<= ``upto``), in schedule order, each with
        its seats: the ratings' input, read without decoding a spec, DONE_CHUNK indexes at a time
        (a season is never held whole in memory)."""
        row = self._row("SELECT MAX(idx) FROM matches WHERE ladder_id = ? AND status = 'done'", (run_id,))
        last = None if row is None or row[0] is None else int(row[0])
        if last is None:
            return
        if upto is not None:
            last = min(last, upto)
        while after < last:
            end = min(after + DONE_CHUNK, last)
            yield from self._done_between(run_id, after, end)
            after = end

    def _done_between(self, run_id: int, after: int, upto: int) -> Iterator[DoneMatch]:
        current: list[Any] | None = None
        seats: list[DoneSeat] = []
        for match_id, idx, seed, seat, agent, score, rank, fault in self._rows(
            "SELECT m.id, m.idx, m.seed, s.seat, s.agent, s.score, s.rank, s.fault FROM matches m"
            " JOIN seats s ON s.match_id = m.id WHERE m.ladder_id = ? AND m.status = 'done'"
            " AND m.idx > ? AND m.idx <= ? ORDER BY m.idx, s.seat",
            (run_id, after, upto),
        ):
            if current is None or current[0] != match_id:
                if current is not None:
                    yield DoneMatch(current[0], current[1], current[2], tuple(seats))
                current, seats = [match_id, idx, seed], []
            if (
                type(agent) is str
                and type(score) is int
                and type(rank) is int
                and (fault is None or type(fault) is str)
            ):
                seats.append(DoneSeat(agent, score, rank, fault))  # the usual row: checked without a call
            else:
                seats.append(_seat((agent, score, rank, fault), f"match {match_id} seat {seat!r}"))
        if current is not None:
            yield DoneMatch(current[0], current[1], current[2], tuple(seats))

    def fault_seats(self, run_id: int) -> list[FaultSeat]:
        """Every seat that forfeited in the run's done matches, in schedule order."""
        return [
            FaultSeat(str(agent), str(fault), int(match_id), int(idx), int(seat))
            for agent, fault, match_id, idx, seat in self._rows(
                "SELECT s.agent, s.fault, m.id, m.idx, s.seat FROM seats s JOIN matches m ON m.id = s.match_id"
                " WHERE m.ladder_id = ? AND m.status = 'done' AND s.fault IS NOT NULL ORDER BY m.idx, s.seat",
                (run_id,),
            )
        ]

    def seats_played(self, run_id: int, agents: Sequence[str]) -> dict[str, int]:
        """How many seats each of ``agents`` had in the run's done matches."""
        found: dict[str, int] = {}
        for start in range(0, len(agents), 500):  # under SQLite's bound-parameter limit
            chunk = list(agents[start : start + 500])
            marks = ",".join("?" * len(chunk))
            for agent, n in self._rows(
                "SELECT s.agent, COUNT(*) FROM seats s JOIN matches m ON m.id = s.match_id"
                f" WHERE s.agent IN ({marks}) AND m.ladder_id = ? AND m.status = 'done' GROUP BY s.agent",
                [*chunk, run_id],
            ):
                found[str(agent)] = int(n)
        return found

    # -- lists -------------------------------------------------------------------------------------

    def _where(self, run_id: int, chosen: MatchFilter) -> tuple[str, list[Any]]:
        where = "ladder_id = ?"
        params: list[Any] = [run_id]
        if chosen.agent:
            where += " AND id IN (SELECT match_id FROM seats WHERE agent = ?)"
            params.append(chosen.agent)
        if chosen.fault == "any":
            where += " AND id IN (SELECT match_id FROM seats WHERE fault IS NOT NULL)"
        elif chosen.fault:
            where += " AND id IN (SELECT match_id FROM seats WHERE fault = ?)"
            params.append(chosen.fault)
        if chosen.seed is not None:
            where += " AND seed = ?"
            params.append(chosen.seed)
        return where, params

    def count_matches(self, run_id: int, chosen: MatchFilter = MatchFilter()) -> int:
        """How many of the run's matches ``chosen`` lets through."""
        if chosen == MatchFilter():  # every match: the count the run keeps
            return sum(self._status_counts(run_id).values())
        where, params = self._where(run_id, chosen)
        row = self._row(f"SELECT COUNT(*) FROM matches WHERE {where}", params)
        return int(row[0]) if row is not None else 0

    def match_ids(self, run_id: int, chosen: MatchFilter, limit: int, offset: int = 0) -> list[int]:
        """One page of the ids of the run's matches ``chosen`` lets through, in schedule order."""
        if chosen == MatchFilter() and offset:
            # every match of a run whose schedule has no gap: the page starts at a known index, found
            # in the index instead of skipping ``offset`` rows (a deep page of a season's million)
            row = self._row(
                "SELECT match_count, (SELECT MIN(idx) FROM matches WHERE ladder_id = ?),"
                " (SELECT MAX(idx) FROM matches WHERE ladder_id = ?) FROM ladders WHERE id = ?",
                (run_id, run_id, run_id),
            )
            if row is not None and row[1] is not None and row[2] - row[1] + 1 == row[0]:
                return [
                    int(found[0])
                    for found in self._rows(
                        "SELECT id FROM matches WHERE ladder_id = ? AND idx >= ? ORDER BY idx LIMIT ?",
                        (run_id, row[1] + offset, limit),
                    )
                ]
        where, params = self._where(run_id, chosen)
        return [
            int(row[0])
            for row in self._rows(
                f"SELECT id FROM matches WHERE {where} ORDER BY idx LIMIT ? OFFSET ?",
                [*params, limit, offset],
            )
        ]

    # -- agents ------------------------------------------------------------------------------------

    def agent_seats(self, name: str) -> list[AgentSeatStats]:
        """An agent's done matches by ladder run and seat."""
        return [
            AgentSeatStats(int(run_id), int(seat), int(n), int(wins or 0), float(mean), int(faults or 0))
            for run_id, seat, n, wins, mean, faults in self._rows(
                "SELECT m.ladder_id, s.seat, COUNT(*),"
                " SUM(CASE WHEN s.rank = 1 AND s.fault IS NULL THEN 1 ELSE 0 END),"
                " AVG(s.score), SUM(CASE WHEN s.fault IS NOT NULL THEN 1 ELSE 0 END)"
                " FROM seats s JOIN matches m ON m.id = s.match_id WHERE s.agent = ? AND m.status = 'done'"
                " GROUP BY m.ladder_id, s.seat ORDER BY m.ladder_id, s.seat",
                (name,),
            )
        ]

    def agent_match_count(self, name: str) -> int:
        """How many matches (any status, any run) seat ``name``."""
        row = self._row("SELECT COUNT(DISTINCT match_id) FROM seats WHERE agent = ?", (name,))
        return int(row[0]) if row is not None else 0

    def agent_match_ids(self, name: str, limit: int, offset: int = 0) -> list[int]:
        """One page of the ids of the matches seating ``name``, latest first."""
        return [
            int(row[0])
            for row in self._rows(
                "SELECT DISTINCT match_id FROM seats WHERE agent = ? ORDER BY match_id DESC LIMIT ? OFFSET ?",
                (name, limit, offset),
            )
        ]

    def bot_match_count(self, bot: str) -> int:
        """How many finished matches submitted bot ``bot`` played, any version (``bot``, ``bot@V``)."""
        row = self._row(f"SELECT COUNT(DISTINCT match_id) FROM seats WHERE {_BOT_SEATS}", bot_seat_names(bot))
        return int(row[0]) if row is not None else 0

    def bot_match_ids(self, bot: str, limit: int, offset: int = 0) -> list[int]:
        """One page of the ids of ``bot``'s finished matches (any version), latest first. Seats are
        stored with a result and dropped with it (``take_back``), so the seats alone name them."""
        return [
            int(row[0])
            for row in self._rows(
                f"SELECT DISTINCT match_id FROM seats WHERE {_BOT_SEATS} ORDER BY match_id DESC LIMIT ? OFFSET ?",
                (*bot_seat_names(bot), limit, offset),
            )
        ]

    def agent_plugins(self, name: str) -> list[str]:
        """What played the seats of ``name`` (plugin agents, executables), sorted."""
        return [
            str(row[0])
            for row in self._rows(
                "SELECT DISTINCT plugin FROM seats WHERE agent = ? ORDER BY plugin", (name,)
            )
        ]

    # -- figures -----------------------------------------------------------------------------------

    def done_seconds(self) -> list[float]:
        """How long each done match took to play (seconds), where it was measured."""
        return [
            float(row[0])
            for row in self._rows("SELECT seconds FROM matches WHERE status = 'done' AND seconds IS NOT NULL")
        ]

    def record_sizes(self) -> list[int]:
        """The stored (compressed) size of every match record, in bytes."""
        return [int(row[0]) for row in self._rows("SELECT LENGTH(data) FROM records")]

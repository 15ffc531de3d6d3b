"""Every query of the tournament store, written once for SQLite and PostgreSQL.

``SqlStore`` holds the SQL (``?`` placeholders, portable: arena/tournament/store/schema.py turns
it into each driver's form); a subclass only supplies connections, transactions and locking:
arena/tournament/store/sqlite.py (one file, one writer) and arena/tournament/store/postgres.py
(a server, several writers). It stores what it is handed and decides nothing.

Several writers: a runner claims a match (``mark_running``) only while it is pending, naming
itself as its owner with a lease it renews (``heartbeat``); a match whose lease ran out is put
back to pending by the next runner that looks (``reset_interrupted``), so a killed runner's
matches are played again and a live runner's never are.
"""

from __future__ import annotations

import json
import os
import socket
import time
import uuid
import zlib
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime
from typing import Any, Protocol, Self

from arena.match.spec import MatchOutcome, MatchSpec
from arena.tournament.store import schema
from arena.tournament.store.api import (
    DAMAGED_HINT,
    STATUSES,
    AlreadyStored,
    LadderRun,
    MatchToStore,
    NewRun,
    SeasonEvent,
    StoredMatch,
    StoredSeat,
    StoreError,
)
from arena.tournament.store.reads import StoreReads
from arena.tournament.store.schema import Dialect

# How long a runner's claim on its running matches holds without a heartbeat (renewed every
# third of it): a killed runner's matches wait this long before another runner plays them.
LEASE_S = 60.0
CHUNK = 500  # ids per IN (...) list: under SQLite's bound-parameter limit
POOL_SIZE = 8  # a PostgreSQL store's connections per process; the web's threads at once (either store)


def lease_seconds() -> float:
    """The lease in force: TLACHTLI_LEASE_S when set (tests shorten it), else LEASE_S."""
    try:
        return max(1.0, float(os.environ.get("TLACHTLI_LEASE_S", LEASE_S)))
    except ValueError:
        return LEASE_S


class Row(Protocol):
    """A result row: by column name or position (sqlite3.Row, or postgres.py's Row)."""

    def __getitem__(self, key: str | int, /) -> Any: ...

    def __iter__(self) -> Iterator[Any]: ...


class Cursor(Protocol):
    """The part of a DB-API cursor the store uses (sqlite3 and psycopg alike)."""

    @property
    def rowcount(self) -> int: ...

    def execute(self, query: Any, params: Any = ..., /) -> Any: ...

    def executemany(self, query: Any, params: Any, /) -> Any: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...


class Tx:
    """One open transaction (or one autocommitted read): shared SQL in, rows out."""

    def __init__(self, cursor: Cursor, dialect: Dialect) -> None:
        self.cursor = cursor
        self.dialect = dialect

    def run(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Execute a statement; how many rows it changed."""
        self.cursor.execute(self.dialect.sql(sql), tuple(params))
        return self.cursor.rowcount

    def many(self, sql: str, params: Iterable[Sequence[Any]]) -> int:
        """Execute a statement once per parameter row; how many rows it changed in all."""
        self.cursor.executemany(self.dialect.sql(sql), params)
        return self.cursor.rowcount

    def all(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        """Every row of a query."""
        self.cursor.execute(self.dialect.sql(sql), tuple(params))
        return self.cursor.fetchall()

    def one(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        """The first row of a query, if any."""
        self.cursor.execute(self.dialect.sql(sql), tuple(params))
        return self.cursor.fetchone()


def now_text() -> str:
    """The time a row records (UTC, ISO 8601, seconds)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def encode_record(record: dict[str, Any]) -> bytes:
    """Compress a match record (zlib of compact JSON)."""
    return zlib.compress(json.dumps(record, separators=(",", ":"), default=str).encode(), 6)


def decode_record(data: bytes | memoryview) -> dict[str, Any]:
    """The inverse of ``encode_record``; StoreError for a damaged blob."""
    try:
        record = json.loads(zlib.decompress(data))
    except (zlib.error, TypeError, ValueError) as error:  # ValueError: bad JSON or UTF-8
        raise StoreError(f"a stored match record is damaged ({error})" + DAMAGED_HINT) from None
    if not isinstance(record, dict):
        raise StoreError("a stored match record is not a JSON object" + DAMAGED_HINT)
    return record


def new_owner() -> str:
    """A runner's name in the matches it claims: host, process, and a random part (pids repeat)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class SqlStore(StoreReads):
    """The tournament store's queries over an abstract connection (see the module docstring).

    A subclass sets ``path``, ``dialect`` and ``exclusive`` (True: its single writer claim means no
    other runner can be live, so every running match is an interrupted one), and supplies
    ``transaction``, ``snapshot``, ``_reading``, ``schema_version``, ``close``, ``claim_writer``,
    ``planning`` and ``make_room``.
    """

    path: str
    dialect: Dialect
    exclusive: bool = True
    owner: str = ""
    _beat: float = 0.0

    # -- what a subclass supplies ------------------------------------------------------------

    def close(self) -> None:
        """Close the store (and give up the writer claim, if any)."""
        raise NotImplementedError

    def claim_writer(self) -> None:
        """Make this process a runner writing the store, until ``close``; StoreError if it cannot be."""
        raise NotImplementedError

    def make_room(self) -> None:
        """Give back the space held for the last writes once the disk is full."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def transaction(self) -> AbstractContextManager[Tx]:
        """One atomic write: committed on success, rolled back on any error."""
        raise NotImplementedError

    def snapshot(self) -> AbstractContextManager[None]:
        """Every read inside sees one consistent state of the store (one read transaction)."""
        raise NotImplementedError

    def _reading(self) -> AbstractContextManager[Tx]:
        """A Tx for reads: the open snapshot's, else an autocommitted one."""
        raise NotImplementedError

    def schema_version(self) -> int:
        """The schema version of the open database."""
        raise NotImplementedError

    def planning(self) -> AbstractContextManager[None]:
        """Hold other writers off while a run is settled (created, grown): by default the writer
        claim already does."""
        return _nothing()

    # -- reads for everyone (the web's and the CLI's queries use these too) --------------------

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        """Every row of a shared-SQL query, as tuples."""
        with self._reading() as tx:
            return [tuple(row) for row in tx.all(sql, params)]

    def _row(self, sql: str, params: Sequence[Any] = ()) -> tuple | None:
        """The first row of a shared-SQL query, as a tuple, if any."""
        with self._reading() as tx:
            row = tx.one(sql, params)
            return None if row is None else tuple(row)

    def _records(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        with self._reading() as tx:
            return tx.all(sql, params)

    def _record(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        with self._reading() as tx:
            return tx.one(sql, params)

    # -- ladder runs -------------------------------------------------------------------------

    def latest_run(self, name: str | None = None) -> LadderRun | None:
        """The most recent run of ladder ``name`` (of any ladder when None)."""
        if name is None:
            row = self._record("SELECT * FROM ladders ORDER BY id DESC LIMIT 1")
        else:
            row = self._record("SELECT * FROM ladders WHERE name = ? ORDER BY id DESC LIMIT 1", (name,))
        return _run(row) if row else None

    def runs(self) -> list[LadderRun]:
        """Every ladder run, oldest first."""
        return [_run(row) for row in self._records("SELECT * FROM ladders ORDER BY id")]

    def create_run(self, run: NewRun, matches: Iterable[MatchToStore]) -> LadderRun:
        """Store a new run with its first ``matches``, all pending, in one transaction."""
        with self.transaction() as tx:
            row = tx.one(
                "INSERT INTO ladders (name, digest, game, format, source, config, created, base_seed, secret)"
                " VALUES (?,?,?,?,?,?,?,?,?) RETURNING id",
                (
                    run.name,
                    run.digest,
                    run.game,
                    run.format,
                    run.source,
                    run.config,
                    now_text(),
                    run.base_seed,
                    int(run.secret),
                ),
            )
            assert row is not None  # RETURNING gives the new row
            _insert_matches(tx, row[0], matches)
        created = self.latest_run(run.name)
        assert created is not None
        return created

    def update_run(
        self,
        run_id: int,
        *,
        digest: str,
        source: str,
        config: str,
        retired: Iterable[str],
        matches: Iterable[MatchToStore],
    ) -> None:
        """Rewrite a run's digest, source and config, drop the pending matches of the ``retired``
        entrants (their played ones are kept) and add ``matches``, in one transaction."""
        gone = set(retired)
        with self.transaction() as tx:
            tx.run(
                "UPDATE ladders SET digest = ?, source = ?, config = ? WHERE id = ?",
                (digest, source, config, run_id),
            )
            if gone:  # what a retired entrant had not played yet, it never will
                dropped = [
                    row[0]
                    for row in tx.all(
                        "SELECT id, entrants FROM matches WHERE ladder_id = ? AND status IN ('pending', 'running')",
                        (run_id,),
                    )
                    if gone.intersection(json.loads(row[1]))
                ]
                deleted = 0
                for start in range(0, len(dropped), CHUNK):
                    chunk = dropped[start : start + CHUNK]
                    deleted += tx.run(f"DELETE FROM matches WHERE id IN ({_marks(chunk)})", chunk)
                tx.run("UPDATE ladders SET match_count = match_count - ? WHERE id = ?", (deleted, run_id))
            _insert_matches(tx, run_id, matches)

    def held_matches(self, run_id: int) -> list[tuple[str, list[str]]]:
        """The (key, entrants) of every match of the run, any status."""
        return [
            (row[0], json.loads(row[1]))
            for row in self._records(
                "SELECT key, entrants FROM matches WHERE ladder_id = ? ORDER BY idx", (run_id,)
            )
        ]

    def next_index(self, run_id: int) -> int:
        """The schedule index after the run's last match (0 for an empty run)."""
        row = self._record("SELECT MAX(idx) FROM matches WHERE ladder_id = ?", (run_id,))
        return 0 if row is None or row[0] is None else row[0] + 1

    def config(self, run_id: int) -> dict[str, Any]:
        """The stored config of a run: the validated ladder as JSON, with its roster."""
        row = self._record("SELECT config FROM ladders WHERE id = ?", (run_id,))
        try:
            return json.loads(row["config"])  # type: ignore[index]  # None: the TypeError below
        except (TypeError, ValueError) as error:
            raise StoreError(
                f"the stored config of ladder run {run_id} is damaged ({error})" + DAMAGED_HINT
            ) from None

    def add_matches(self, run_id: int, schedule: Sequence[MatchToStore]) -> int:
        """Add the scheduled matches the run does not hold yet (an open-ended run such as
        `arena compare` given a larger --max-deals); returns how many were added."""
        with self.transaction() as tx:
            return _insert_matches(tx, run_id, schedule, or_ignore=True)

    # -- matches -----------------------------------------------------------------------------

    def reset_interrupted(self, run_id: int) -> int:
        """Put the run's matches left 'running' by an interrupted runner back to pending; how many.
        With several writers (not ``exclusive``), only those whose runner's lease ran out."""
        with self.transaction() as tx:
            return tx.run(
                "UPDATE matches SET status = 'pending', started = NULL, owner = NULL, lease = NULL"
                " WHERE ladder_id = ? AND status = 'running' AND (? OR owner IS NULL OR lease < NOW_S)",
                (run_id, self.exclusive),
            )

    def pending(self, run_id: int) -> list[StoredMatch]:
        """The run's matches not yet done, in schedule order."""
        return self.matches(run_id, statuses=("pending", "running"))

    def mark_running(self, match_id: int) -> bool:
        """Claim a pending match for this runner (handed to a worker); False if it is not pending
        (another runner claimed it, or it is done)."""
        with self.transaction() as tx:
            return self._claim(tx, match_id)

    def _claim(self, tx: Tx, match_id: int) -> bool:
        """Claim ``match_id`` in ``tx`` (a subclass may lock the row first)."""
        return bool(
            tx.run(
                "UPDATE matches SET status = 'running', attempts = attempts + 1, started = ?, owner = ?,"
                " lease = NOW_S + ? WHERE id = ? AND status = 'pending'",
                (now_text(), self.owner, lease_seconds(), match_id),
            )
        )

    def heartbeat(self) -> None:
        """Renew this runner's lease on its running matches (at most every third of a lease; an
        exclusive store has no other runner to hold them off)."""
        lease = lease_seconds()
        if self.exclusive or time.monotonic() - self._beat < lease / 3:
            return
        self._beat = time.monotonic()
        with self.transaction() as tx:
            tx.run(
                "UPDATE matches SET lease = NOW_S + ? WHERE owner = ? AND status = 'running'",
                (lease, self.owner),
            )

    def mark_pending(self, match_ids: Iterable[int]) -> None:
        """Put this runner's running matches back to pending (their run was cancelled), so a rerun
        plays them."""
        with self.transaction() as tx:
            tx.many(
                "UPDATE matches SET status = 'pending', started = NULL, owner = NULL, lease = NULL"
                " WHERE id = ? AND status = 'running' AND (owner = ? OR owner IS NULL)",
                [(match_id, self.owner) for match_id in match_ids],
            )

    def take_back(self, match_ids: Iterable[int]) -> None:
        """Forget the results of done matches and put them back to pending, to be played again
        (the matches of a cluster worker found cheating: arena/tournament/run/cluster.py)."""
        with self.transaction() as tx:
            for match_id in match_ids:
                tx.run("DELETE FROM seats WHERE match_id = ?", (match_id,))
                tx.run("DELETE FROM records WHERE match_id = ?", (match_id,))
                tx.run(
                    "UPDATE matches SET status = 'pending', started = NULL, finished = NULL, seconds = NULL,"
                    " owner = NULL, lease = NULL WHERE id = ?",
                    (match_id,),
                )

    def record_lost_worker(self, match_id: int, reason: str, max_failures: int, times: int = 1) -> bool:
        """Count ``times`` lost workers against a running match: back to pending, or 'aborted' with
        ``reason`` once its worker was lost ``max_failures`` times (in this run or earlier ones).
        True if aborted. (A Dask cluster may report several losses at once: arena/tournament/run/cluster.py.)
        """
        with self.transaction() as tx:
            changed = tx.run(
                "UPDATE matches SET failures = failures + ?, status = 'pending', started = NULL, owner = NULL,"
                " lease = NULL WHERE id = ? AND status = 'running' AND (owner = ? OR owner IS NULL)",
                (times, match_id, self.owner),
            )
            if not changed and not self.exclusive:
                return False  # another runner's now (this one's lease ran out): theirs to count
            row = tx.one("SELECT failures FROM matches WHERE id = ?", (match_id,))
            if row is None or row[0] < max_failures:
                return False
            tx.run(
                "UPDATE matches SET status = 'aborted', finished = ?, reason = ? WHERE id = ? AND status = 'pending'",
                (now_text(), f"its worker process was lost {row[0]} times; last: {reason}", match_id),
            )
        return True

    def count_recovered_losses(self, match_id: int, times: int) -> None:
        """Count ``times`` lost workers against a match that a Dask cluster went on to play elsewhere
        (its status is left alone: its outcome follows)."""
        with self.transaction() as tx:
            tx.run("UPDATE matches SET failures = failures + ? WHERE id = ?", (times, match_id))

    def record_outcome(self, match: StoredMatch, outcome: MatchOutcome, seconds: float | None = None) -> None:
        """Commit a finished match: its seats, its compressed record and status 'done', atomically.
        The first outcome stored wins: a second one (a runner whose lease had run out) is refused."""
        names = match.entrants + ((match.spec.automaton,) if match.spec.automaton else ())
        if len(outcome.seats) != len(names):
            raise StoreError(
                f"match {match.key}: outcome has {len(outcome.seats)} seats, expected {len(names)}"
            )
        with self.transaction() as tx:
            # FOR UPDATE where the dialect has it: two runners finishing one match store it once
            done = tx.one(self._lock_row("SELECT status FROM matches WHERE id = ?"), (match.id,))
            if done is None:
                raise StoreError(f"match {match.key} is unknown; not stored")
            if done[0] in ("done", "aborted"):
                raise AlreadyStored(f"match {match.key} is already {done[0]}; not stored")
            tx.many(
                "INSERT INTO seats (match_id, seat, agent, plugin, score, rank, fault) VALUES (?,?,?,?,?,?,?)",
                [
                    (match.id, seat.seat, names[seat.seat], seat.agent, seat.score, seat.rank, seat.fault)
                    for seat in outcome.seats
                ],
            )
            tx.run(
                "INSERT INTO records (match_id, codec, data) VALUES (?, 'zlib-json', ?)",
                (match.id, encode_record(outcome.record)),
            )
            tx.run(  # the owner stays: which runner played it
                "UPDATE matches SET status = 'done', finished = ?, seconds = ?, owner = ?, lease = NULL WHERE id = ?",
                (now_text(), seconds, self.owner, match.id),
            )

    def _lock_row(self, sql: str) -> str:
        """``sql`` locking the rows it reads until the transaction ends (SQLite: its write
        transaction already holds the whole database)."""
        return sql

    def matches(
        self,
        run_id: int,
        statuses: Sequence[str] = STATUSES,
        agent: str | None = None,
        faults_only: bool = False,
    ) -> list[StoredMatch]:
        """The run's matches in schedule order, optionally only those ``agent`` played or with a fault."""
        sql = f"SELECT * FROM matches WHERE ladder_id = ? AND status IN ({_marks(statuses)})"
        params: list[Any] = [run_id, *statuses]
        if agent is not None:
            sql += " AND id IN (SELECT match_id FROM seats WHERE agent = ?)"
            params.append(agent)
        if faults_only:
            sql += " AND id IN (SELECT match_id FROM seats WHERE fault IS NOT NULL)"
        with self.snapshot():  # the matches and their seats as of one moment
            rows = self._records(sql + " ORDER BY idx", params)
            seats = self._seats([row["id"] for row in rows])
        return [_match(row, seats.get(row["id"], ())) for row in rows]

    def match(self, match_id: int) -> StoredMatch | None:
        """One match by its id, with its seats."""
        with self.snapshot():
            row = self._record("SELECT * FROM matches WHERE id = ?", (match_id,))
            return _match(row, self._seats([match_id]).get(match_id, ())) if row else None

    def _seats(self, match_ids: Sequence[int]) -> dict[int, tuple[StoredSeat, ...]]:
        found: dict[int, list[StoredSeat]] = {}
        for start in range(0, len(match_ids), CHUNK):
            chunk = match_ids[start : start + CHUNK]
            for row in self._records(
                f"SELECT * FROM seats WHERE match_id IN ({_marks(chunk)}) ORDER BY match_id, seat", chunk
            ):
                problem = seat_problem(row)
                if problem is not None:
                    raise StoreError(problem + DAMAGED_HINT)
                found.setdefault(row["match_id"], []).append(
                    StoredSeat(
                        row["seat"], row["agent"], row["plugin"], row["score"], row["rank"], row["fault"]
                    )
                )
        return {match_id: tuple(seats) for match_id, seats in found.items()}

    def record(self, match_id: int) -> dict[str, Any] | None:
        """The decoded record of a done match."""
        row = self._record("SELECT data FROM records WHERE match_id = ?", (match_id,))
        return decode_record(row[0]) if row else None

    def record_at(self, run_id: int, idx: int) -> dict[str, Any] | None:
        """The decoded record of match number ``idx`` (schedule order) of a run, if it was played."""
        row = self._record(
            "SELECT r.data FROM records r JOIN matches m ON m.id = r.match_id WHERE m.ladder_id = ? AND m.idx = ?",
            (run_id, idx),
        )
        return decode_record(row[0]) if row else None

    def counts(self, run_id: int) -> dict[str, int]:
        """How many of the run's matches are in each status."""
        counts = dict.fromkeys(STATUSES, 0)
        counts.update(self._status_counts(run_id))
        return counts

    # -- seasons (a ladder that runs as a service: arena/tournament/run/season.py) --------------

    def add_season_event(self, run_id: int, at: int, kind: str, data: dict[str, Any]) -> None:
        """Append one entry to the run's season log."""
        with self.transaction() as tx:
            tx.run(
                "INSERT INTO season_events (ladder_id, at, kind, data) VALUES (?, ?, ?, ?)",
                (run_id, at, kind, json.dumps(data, sort_keys=True)),
            )

    def season_events(self, run_id: int) -> list[SeasonEvent]:
        """The run's season log, oldest first."""
        rows = self._rows(
            "SELECT id, at, kind, data FROM season_events WHERE ladder_id = ? ORDER BY id", (run_id,)
        )
        return [SeasonEvent(seq, at, kind, json.loads(data)) for seq, at, kind, data in rows]

    def save_season_state(self, run_id: int, state: dict[str, Any]) -> None:
        """Replace the season's live state (what `arena season status` and the web show)."""
        with self.transaction() as tx:
            tx.run(
                "INSERT INTO season_state (ladder_id, data, updated) VALUES (?, ?, ?)"
                " ON CONFLICT (ladder_id) DO UPDATE SET data = excluded.data, updated = excluded.updated",
                (run_id, json.dumps(state, sort_keys=True), now_text()),
            )

    def season_state(self, run_id: int) -> dict[str, Any] | None:
        """The season's live state as last saved (with ``updated``, when), or None."""
        row = self._row("SELECT data, updated FROM season_state WHERE ladder_id = ?", (run_id,))
        if row is None:
            return None
        return {**json.loads(row[0]), "updated": row[1]}

    # -- whole tables, for `arena db copy` -----------------------------------------------------

    def table_rows(self, table: str) -> tuple[list[str], Iterator[tuple]]:
        """(columns, rows in id order) of one of the schema's tables, as stored."""
        with self._reading() as tx:
            tx.all(f"SELECT * FROM {table} WHERE 1 = 0")
            columns = [column[0] for column in tx.cursor.description]  # type: ignore[attr-defined]
        order = {"seats": "match_id, seat", "records": "match_id", "season_state": "ladder_id"}.get(
            table, "id"
        )

        def rows() -> Iterator[tuple]:
            last: tuple | None = None
            keys = order.split(", ")
            while True:  # in pages: a season's store is never held whole in memory
                where = ""
                params: tuple = ()
                if last is not None:
                    where = f"WHERE ({order}) > ({_marks(keys)})"
                    params = last
                page = self._rows(f"SELECT * FROM {table} {where} ORDER BY {order} LIMIT 2000", params)
                if not page:
                    return
                yield from page
                last = tuple(page[-1][columns.index(key)] for key in keys)

        return columns, rows()

    def insert_rows(self, tx: Tx, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
        """Insert ``rows`` of ``columns`` into ``table`` as given (ids included), in ``tx``."""
        tx.many(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({_marks(columns)})", rows)

    def after_copy(self, tx: Tx) -> None:
        """Whatever the database needs after rows were inserted with their ids (PostgreSQL: move
        its id sequences past them)."""


@contextmanager
def _nothing() -> Iterator[None]:
    yield


def _marks(values: Sequence[Any]) -> str:
    return ",".join("?" * len(values))


def _insert_matches(tx: Tx, run_id: int, schedule: Iterable[MatchToStore], or_ignore: bool = False) -> int:
    """Insert ``schedule`` as pending matches of the run; with ``or_ignore``, skip indexes it has.
    How many were inserted (the run's match count follows)."""
    added = tx.many(
        "INSERT INTO matches (ladder_id, idx, key, seed, spec, entrants) VALUES (?,?,?,?,?,?)"
        + (" ON CONFLICT (ladder_id, idx) DO NOTHING" if or_ignore else ""),
        (  # a generator: a large schedule is never held whole in memory
            (
                run_id,
                match.index,
                match.key,
                match.spec.seed,
                json.dumps(match.spec.to_dict(), sort_keys=True),
                json.dumps(list(match.entrants)),
            )
            for match in schedule
        ),
    )
    tx.run("UPDATE ladders SET match_count = match_count + ? WHERE id = ?", (added, run_id))
    return added


def _run(row: Row) -> LadderRun:
    return LadderRun(
        row["id"],
        row["name"],
        row["digest"],
        row["game"],
        row["format"],
        row["source"],
        row["created"],
        row["base_seed"],
        bool(row["secret"]),
    )


# a seat's columns and the Python types its readers rely on (SQLite keeps whatever was written)
_SEAT_TYPES: tuple[tuple[str, type | tuple[type, ...]], ...] = (
    ("seat", int),
    ("agent", str),
    ("plugin", str),
    ("score", int),
    ("rank", int),
    ("fault", (str, type(None))),
)


def seat_problem(row: Row | dict[str, Any]) -> str | None:
    """What is wrong with a row of the seats table (a column of the wrong type: a rank stored as
    text), naming the table and the row; None if it is sound."""
    for column, kind in _SEAT_TYPES:
        value = row[column]
        if not isinstance(value, kind) or isinstance(value, bool):
            return (
                f"table seats, match {row['match_id']} seat {row['seat']!r}: its {column} is"
                f" {str(value)[:40]!r}, not {'text' if kind is str else 'an integer' if kind is int else 'text or NULL'}"
            )
    return None


def match_problem(row: Row | dict[str, Any]) -> str | None:
    """What is wrong with the stored spec or entrants of a row of the matches table (naming the
    table and the row); None if both read back."""
    where = f"table matches, row {row['id']} (match {row['key']!r})"
    try:
        MatchSpec.from_dict(json.loads(row["spec"]))
    except (TypeError, ValueError, KeyError) as error:
        return f"{where}: its stored spec is damaged ({error})"
    try:
        entrants = json.loads(row["entrants"])
    except (TypeError, ValueError) as error:
        return f"{where}: its entrants are not JSON ({error})"
    if not isinstance(entrants, list) or not all(isinstance(name, str) for name in entrants):
        return f"{where}: its entrants are not a list of names"
    return None


def _match(row: Row, seats: tuple[StoredSeat, ...]) -> StoredMatch:
    problem = match_problem(row)
    if problem is not None:
        raise StoreError(problem + DAMAGED_HINT)
    spec = MatchSpec.from_dict(json.loads(row["spec"]))
    entrants = tuple(json.loads(row["entrants"]))
    return StoredMatch(
        id=row["id"],
        ladder_id=row["ladder_id"],
        idx=row["idx"],
        key=row["key"],
        seed=row["seed"],
        status=row["status"],
        attempts=row["attempts"],
        seconds=row["seconds"],
        spec=spec,
        entrants=entrants,
        seats=seats,
        failures=row["failures"],
        reason=row["reason"],
    )


def check_version(path: str, version: int) -> None:
    """Refuse a store written by a newer Tlachtli, in one line."""
    if version > schema.latest():
        raise StoreError(
            f"{path} has schema version {version}, newer than this Tlachtli's {schema.latest()}; upgrade Tlachtli"
        )

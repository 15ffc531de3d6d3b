"""SQLite persistence of tournaments: ladder runs, matches, per-seat results and match records.

The embedded ``TournamentStore`` (arena/tournament/store/api.py): it stores what it is handed and
decides nothing (schedules, growth and seeds come from arena/tournament/plan/).

One writer (the runner's parent process) commits each match as it finishes, in WAL mode so
readers (`arena leaderboard` during a run) never block it. Resume: a ladder run keeps every
scheduled match with its status; rerunning the ladder plays only the matches not yet done.
The schema is versioned with ``PRAGMA user_version`` and migrated forward on open.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import shutil
import sqlite3
import stat
import zlib
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from arena.match.spec import MatchOutcome, MatchSpec
from arena.tournament.store.api import (
    DAMAGED_HINT,
    DEFAULT_DB,
    STATUSES,
    DiskFullError,
    LadderRun,
    MatchToStore,
    NewRun,
    SeasonEvent,
    StoredMatch,
    StoredSeat,
    StoreError,
)

# Each entry upgrades the schema from version i to i + 1; append, never edit a shipped one.
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE ladders (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        digest TEXT NOT NULL,        -- hash of the ladder's normalised content
        game TEXT NOT NULL,
        format TEXT NOT NULL,
        source TEXT NOT NULL,        -- the file it was read from, for messages
        config TEXT NOT NULL,        -- the validated ladder as JSON
        created TEXT NOT NULL
    );
    CREATE INDEX ladders_name ON ladders (name, id);
    CREATE TABLE matches (
        id INTEGER PRIMARY KEY,
        ladder_id INTEGER NOT NULL REFERENCES ladders (id),
        idx INTEGER NOT NULL,        -- position in schedule order (ratings replay in this order)
        key TEXT NOT NULL,
        seed INTEGER NOT NULL,
        spec TEXT NOT NULL,          -- MatchSpec as JSON
        entrants TEXT NOT NULL,      -- display names of the agent seats, JSON list
        status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'done')),
        attempts INTEGER NOT NULL DEFAULT 0,
        started TEXT,
        finished TEXT,
        seconds REAL,
        UNIQUE (ladder_id, idx)
    );
    CREATE INDEX matches_status ON matches (ladder_id, status);
    CREATE TABLE seats (
        match_id INTEGER NOT NULL REFERENCES matches (id),
        seat INTEGER NOT NULL,
        agent TEXT NOT NULL,         -- display name in the ladder (the automaton's own name)
        plugin TEXT NOT NULL,        -- what played it: plugin agent, executable or automaton
        score INTEGER NOT NULL,
        rank INTEGER NOT NULL,
        fault TEXT,
        PRIMARY KEY (match_id, seat)
    );
    CREATE INDEX seats_agent ON seats (agent);
    CREATE TABLE records (
        match_id INTEGER PRIMARY KEY REFERENCES matches (id),
        codec TEXT NOT NULL,         -- 'zlib-json'
        data BLOB NOT NULL
    );
    """,
    # 2: status 'aborted' (a match whose worker was lost MAX_FAILURES times, with the reason),
    # a per-match count of lost workers, and the base seed each run actually used (a secret one
    # is drawn at the run's start and kept only here). SQLite cannot change a CHECK constraint,
    # so the matches table is rebuilt (foreign keys are off during migrations, see migrate).
    """
    CREATE TABLE matches_v2 (
        id INTEGER PRIMARY KEY,
        ladder_id INTEGER NOT NULL REFERENCES ladders (id),
        idx INTEGER NOT NULL,
        key TEXT NOT NULL,
        seed INTEGER NOT NULL,
        spec TEXT NOT NULL,
        entrants TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending'
            CHECK (status IN ('pending', 'running', 'done', 'aborted')),
        attempts INTEGER NOT NULL DEFAULT 0,
        started TEXT,
        finished TEXT,
        seconds REAL,
        failures INTEGER NOT NULL DEFAULT 0,  -- times its worker process was lost (died, stopped, hung)
        reason TEXT,                          -- why it was aborted
        UNIQUE (ladder_id, idx)
    );
    INSERT INTO matches_v2 (id, ladder_id, idx, key, seed, spec, entrants, status, attempts, started, finished, seconds)
        SELECT id, ladder_id, idx, key, seed, spec, entrants, status, attempts, started, finished, seconds
        FROM matches;
    DROP TABLE matches;
    ALTER TABLE matches_v2 RENAME TO matches;
    CREATE INDEX matches_status ON matches (ladder_id, status);
    ALTER TABLE ladders ADD COLUMN base_seed INTEGER;  -- NULL: the seed in the ladder's config
    ALTER TABLE ladders ADD COLUMN secret INTEGER NOT NULL DEFAULT 0;  -- 1: base_seed is never shown
    """,
    # 3: seasons (a ladder run as a service): the log a restart replays, and the live state
    """
    CREATE TABLE season_events (
        seq INTEGER PRIMARY KEY,
        ladder_id INTEGER NOT NULL REFERENCES ladders (id),
        at INTEGER NOT NULL,          -- matches scheduled before it
        kind TEXT NOT NULL,
        data TEXT NOT NULL            -- JSON
    );
    CREATE INDEX season_events_ladder ON season_events (ladder_id, seq);
    CREATE TABLE season_state (
        ladder_id INTEGER PRIMARY KEY REFERENCES ladders (id),
        data TEXT NOT NULL,           -- JSON
        updated TEXT NOT NULL
    );
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)


LOW_SPACE_BYTES = 1 << 20  # an I/O error with less free space than this is taken for a full disk
RESERVE_BYTES = 1 << 20  # kept free for the runner's last writes once the disk is full (see make_room)
RESERVE_SUFFIX = "-reserve"


def disk_full(path: str, error: BaseException) -> bool:
    """Whether ``error``, met writing the database at ``path``, means that its disk is full.

    SQLite says SQLITE_FULL when a write of the database or its journal finds no space, but a
    plain I/O error when its shared-memory file cannot grow: then the free space decides.
    """
    if isinstance(error, DiskFullError) or isinstance(error, OSError) and error.errno == errno.ENOSPC:
        return True
    if not isinstance(error, sqlite3.Error):
        return False
    code = getattr(error, "sqlite_errorcode", 0) & 0xFF  # the primary code of an extended one
    if code == sqlite3.SQLITE_FULL:
        return True
    if code == sqlite3.SQLITE_IOERR or "disk I/O error" in str(error):
        try:
            return shutil.disk_usage(os.path.dirname(os.path.abspath(path))).free < LOW_SPACE_BYTES
        except OSError:
            return False
    return False


def _private_file(path: str) -> None:
    """Create the store readable by its owner only (0600; SQLite gives its -wal and -shm files the
    same mode): it holds a secret base seed, and bots run under other uids. An existing store of
    ours is narrowed to 0600 too; one of another user's is left as it is."""
    if path == ":memory:" or path.startswith("file:"):
        return
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK, 0o600)  # a FIFO: refused, not waited on
        try:
            found = os.fstat(fd)
            if stat.S_ISREG(found.st_mode) and found.st_uid == os.geteuid():
                os.fchmod(fd, 0o600)
        finally:
            os.close(fd)
    except OSError:
        pass  # not ours to create or change: sqlite3 reports what is wrong with the path


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def encode_record(record: dict[str, Any]) -> bytes:
    """Compress a match record (zlib of compact JSON)."""
    return zlib.compress(json.dumps(record, separators=(",", ":"), default=str).encode(), 6)


def decode_record(data: bytes) -> dict[str, Any]:
    """The inverse of ``encode_record``; StoreError for a damaged blob."""
    try:
        record = json.loads(zlib.decompress(data))
    except (zlib.error, TypeError, ValueError) as error:  # ValueError: bad JSON or UTF-8
        raise StoreError(f"a stored match record is damaged ({error})" + DAMAGED_HINT) from None
    if not isinstance(record, dict):
        raise StoreError("a stored match record is not a JSON object" + DAMAGED_HINT)
    return record


class Store:
    """A tournament database in one SQLite file. Use as a context manager, or call ``close``."""

    def __init__(self, path: str | Path = DEFAULT_DB) -> None:
        self.path = str(path)
        _private_file(self.path)
        self.db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        self.db.row_factory = sqlite3.Row
        self._writer_lock: IO[bytes] | None = None
        try:
            self.db.execute("PRAGMA journal_mode = WAL")
            self.db.execute("PRAGMA synchronous = NORMAL")  # WAL + NORMAL: a commit survives a process kill
            self.migrate()  # before foreign keys are on: a migration may rebuild a referenced table
            self.db.execute("PRAGMA foreign_keys = ON")
        except sqlite3.Error as error:
            self.db.close()
            if disk_full(self.path, error):
                raise DiskFullError(self.path, error) from None
            raise

    @classmethod
    def read_only(cls, path: str | Path) -> Store:
        """An existing database opened for reading only (SQLite ``mode=ro``): it never migrates or
        writes, so it can sit beside a writing `arena run` (WAL) without changing any result."""
        store = cls.__new__(cls)
        store.path = str(path)
        store.db = sqlite3.connect(f"{Path(path).absolute().as_uri()}?mode=ro", uri=True, timeout=30)
        store.db.row_factory = sqlite3.Row
        store._writer_lock = None
        version = store.schema_version()
        if not 0 < version <= SCHEMA_VERSION:
            store.close()
            raise StoreError(
                f"{path} is not a Tlachtli database of schema 1..{SCHEMA_VERSION} (found {version})"
            )
        return store

    @staticmethod
    def schema_version_of(path: str | Path) -> int:
        """The schema version of an existing database file, read without writing anything
        (0: an empty file, or a database Tlachtli never wrote)."""
        db = sqlite3.connect(f"{Path(path).absolute().as_uri()}?mode=ro", uri=True, timeout=30)
        try:
            return db.execute("PRAGMA user_version").fetchone()[0]
        finally:
            db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection (and give up the writer claim, if any)."""
        self.db.close()
        if self._writer_lock is not None:
            self._writer_lock.close()
            self._writer_lock = None
            self.make_room()

    def claim_writer(self) -> None:
        """Make this process the only tournament runner writing the database, until ``close``.

        Two runs of one ladder at once would play the same pending matches twice. The claim is
        an flock on the database file: SQLite's own locks are POSIX record locks, independent
        of it, and the kernel drops it when the process dies, even on ``kill -9``.
        """
        handle = open(self.path, "rb")  # noqa: SIM115 - held open until close()
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            raise StoreError(
                f"another `arena run` is writing {self.path}; wait for it to finish, or use another --db"
            ) from None
        self._writer_lock = handle
        self._reserve_space()

    def _reserve_space(self) -> None:
        """Hold RESERVE_BYTES of the disk in a file beside the database while this runner writes:
        if the disk fills up, ``make_room`` frees it, so that the matches in flight can still be
        put back to pending. Best effort: a disk already full gets no reserve."""
        try:
            with open(self.path + RESERVE_SUFFIX, "wb") as reserve:
                reserve.write(bytes(RESERVE_BYTES))
                reserve.flush()
                os.fsync(reserve.fileno())  # really on the disk: tmpfs and delayed allocation
        except OSError:
            self.make_room()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One atomic write: committed on success, rolled back on any error.

        A full disk raises DiskFullError (the write is rolled back, the database is intact).
        """
        try:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                yield self.db
                self.db.execute("COMMIT")  # may fail too: SQLITE_FULL leaves the transaction open
            except BaseException:
                if self.db.in_transaction:
                    self.db.execute("ROLLBACK")
                raise
        except sqlite3.Error as error:
            if disk_full(self.path, error):
                raise DiskFullError(self.path, error) from None
            raise

    def schema_version(self) -> int:
        """The schema version of the open database."""
        return self.db.execute("PRAGMA user_version").fetchone()[0]

    def migrate(self) -> None:
        """Bring the schema up to SCHEMA_VERSION; refuse a database written by a newer Tlachtli."""
        version = self.schema_version()
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} has schema version {version}, newer than this Tlachtli's {SCHEMA_VERSION}; upgrade Tlachtli"
            )
        for number in range(version, SCHEMA_VERSION):
            with self.transaction() as db:
                for statement in MIGRATIONS[number].split(";"):
                    if statement.strip():
                        db.execute(statement)
                db.execute(f"PRAGMA user_version = {number + 1}")

    # -- ladder runs -------------------------------------------------------------------------

    def latest_run(self, name: str | None = None) -> LadderRun | None:
        """The most recent run of ladder ``name`` (of any ladder when None)."""
        if name is None:
            row = self.db.execute("SELECT * FROM ladders ORDER BY id DESC LIMIT 1").fetchone()
        else:
            row = self.db.execute(
                "SELECT * FROM ladders WHERE name = ? ORDER BY id DESC LIMIT 1", (name,)
            ).fetchone()
        return _run(row) if row else None

    def runs(self) -> list[LadderRun]:
        """Every ladder run, oldest first."""
        return [_run(row) for row in self.db.execute("SELECT * FROM ladders ORDER BY id")]

    def create_run(self, run: NewRun, matches: Iterable[MatchToStore]) -> LadderRun:
        """Store a new run with its first ``matches``, all pending, in one transaction."""
        with self.transaction() as db:
            cursor = db.execute(
                "INSERT INTO ladders (name, digest, game, format, source, config, created, base_seed, secret)"
                " VALUES (?,?,?,?,?,?,?,?,?)",
                (
                    run.name,
                    run.digest,
                    run.game,
                    run.format,
                    run.source,
                    run.config,
                    _now(),
                    run.base_seed,
                    int(run.secret),
                ),
            )
            assert cursor.lastrowid is not None  # an INSERT sets it
            _insert_matches(db, cursor.lastrowid, matches)
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
        with self.transaction() as db:
            db.execute(
                "UPDATE ladders SET digest = ?, source = ?, config = ? WHERE id = ?",
                (digest, source, config, run_id),
            )
            for name in retired:  # what a retired entrant had not played yet, it never will
                db.execute(
                    "DELETE FROM matches WHERE ladder_id = ? AND status IN ('pending', 'running')"
                    " AND EXISTS (SELECT 1 FROM json_each(matches.entrants) WHERE value = ?)",
                    (run_id, name),
                )
            _insert_matches(db, run_id, matches)

    def held_matches(self, run_id: int) -> list[tuple[str, list[str]]]:
        """The (key, entrants) of every match of the run, any status."""
        return [
            (row["key"], json.loads(row["entrants"]))
            for row in self.db.execute("SELECT key, entrants FROM matches WHERE ladder_id = ?", (run_id,))
        ]

    def next_index(self, run_id: int) -> int:
        """The schedule index after the run's last match (0 for an empty run)."""
        last = self.db.execute("SELECT MAX(idx) FROM matches WHERE ladder_id = ?", (run_id,)).fetchone()[0]
        return 0 if last is None else last + 1

    def config(self, run_id: int) -> dict[str, Any]:
        """The stored config of a run: the validated ladder as JSON, with its roster."""
        row = self.db.execute("SELECT config FROM ladders WHERE id = ?", (run_id,)).fetchone()
        try:
            return json.loads(row["config"])
        except (TypeError, ValueError) as error:
            raise StoreError(
                f"the stored config of ladder run {run_id} is damaged ({error})" + DAMAGED_HINT
            ) from None

    def add_matches(self, run_id: int, schedule: Sequence[MatchToStore]) -> int:
        """Add the scheduled matches the run does not hold yet (an open-ended run such as
        `arena compare` given a larger --max-deals); returns how many were added."""
        with self.transaction() as db:
            before = db.total_changes
            _insert_matches(db, run_id, schedule, or_ignore=True)
            return db.total_changes - before

    # -- matches -----------------------------------------------------------------------------

    def make_room(self) -> None:
        """Give back the space reserved by ``claim_writer`` (after a full disk, for the last writes)."""
        try:
            os.remove(self.path + RESERVE_SUFFIX)
        except OSError:
            pass

    def reset_interrupted(self, run_id: int) -> int:
        """Mark the run's matches left 'running' by an interrupted run as pending; returns how many."""
        with self.transaction() as db:
            cursor = db.execute(
                "UPDATE matches SET status = 'pending', started = NULL WHERE ladder_id = ? AND status = 'running'",
                (run_id,),
            )
        return cursor.rowcount

    def pending(self, run_id: int) -> list[StoredMatch]:
        """The run's matches not yet done, in schedule order."""
        return self.matches(run_id, statuses=("pending", "running"))

    def mark_running(self, match_id: int) -> None:
        """Record that a match was handed to a worker."""
        with self.transaction() as db:
            db.execute(
                "UPDATE matches SET status = 'running', attempts = attempts + 1, started = ? WHERE id = ?",
                (_now(), match_id),
            )

    def mark_pending(self, match_ids: Iterable[int]) -> None:
        """Put matches back to pending (their run was cancelled), so a rerun plays them."""
        with self.transaction() as db:
            db.executemany(
                "UPDATE matches SET status = 'pending', started = NULL WHERE id = ? AND status = 'running'",
                [(match_id,) for match_id in match_ids],
            )

    def take_back(self, match_ids: Iterable[int]) -> None:
        """Forget the results of done matches and put them back to pending, to be played again
        (the matches of a cluster worker found cheating: arena/tournament/run/cluster.py)."""
        with self.transaction() as db:
            for match_id in match_ids:
                db.execute("DELETE FROM seats WHERE match_id = ?", (match_id,))
                db.execute("DELETE FROM records WHERE match_id = ?", (match_id,))
                db.execute(
                    "UPDATE matches SET status = 'pending', started = NULL, finished = NULL, seconds = NULL"
                    " WHERE id = ?",
                    (match_id,),
                )

    def record_lost_worker(self, match_id: int, reason: str, max_failures: int, times: int = 1) -> bool:
        """Count ``times`` lost workers against a running match: back to pending, or 'aborted' with
        ``reason`` once its worker was lost ``max_failures`` times (in this run or earlier ones).
        True if aborted. (A Dask cluster may report several losses at once: arena/tournament/run/cluster.py.)
        """
        with self.transaction() as db:
            db.execute(
                "UPDATE matches SET failures = failures + ?, status = 'pending', started = NULL"
                " WHERE id = ? AND status = 'running'",
                (times, match_id),
            )
            row = db.execute("SELECT failures FROM matches WHERE id = ?", (match_id,)).fetchone()
            if row is None or row["failures"] < max_failures:
                return False
            db.execute(
                "UPDATE matches SET status = 'aborted', finished = ?, reason = ? WHERE id = ? AND status = 'pending'",
                (_now(), f"its worker process was lost {row['failures']} times; last: {reason}", match_id),
            )
        return True

    def count_recovered_losses(self, match_id: int, times: int) -> None:
        """Count ``times`` lost workers against a match that a Dask cluster went on to play elsewhere
        (its status is left alone: its outcome follows)."""
        with self.transaction() as db:
            db.execute("UPDATE matches SET failures = failures + ? WHERE id = ?", (times, match_id))

    def record_outcome(self, match: StoredMatch, outcome: MatchOutcome, seconds: float | None = None) -> None:
        """Commit a finished match: its seats, its compressed record and status 'done', atomically."""
        names = match.entrants + ((match.spec.automaton,) if match.spec.automaton else ())
        if len(outcome.seats) != len(names):
            raise StoreError(
                f"match {match.key}: outcome has {len(outcome.seats)} seats, expected {len(names)}"
            )
        with self.transaction() as db:
            done = db.execute("SELECT status FROM matches WHERE id = ?", (match.id,)).fetchone()
            if done is None or done["status"] in ("done", "aborted"):
                raise StoreError(
                    f"match {match.key} is already {done['status'] if done else 'unknown'}; not stored"
                )
            db.executemany(
                "INSERT INTO seats (match_id, seat, agent, plugin, score, rank, fault) VALUES (?,?,?,?,?,?,?)",
                [
                    (match.id, seat.seat, names[seat.seat], seat.agent, seat.score, seat.rank, seat.fault)
                    for seat in outcome.seats
                ],
            )
            db.execute(
                "INSERT INTO records (match_id, codec, data) VALUES (?, 'zlib-json', ?)",
                (match.id, encode_record(outcome.record)),
            )
            db.execute(
                "UPDATE matches SET status = 'done', finished = ?, seconds = ? WHERE id = ?",
                (_now(), seconds, match.id),
            )

    def matches(
        self,
        run_id: int,
        statuses: Sequence[str] = STATUSES,
        agent: str | None = None,
        faults_only: bool = False,
    ) -> list[StoredMatch]:
        """The run's matches in schedule order, optionally only those ``agent`` played or with a fault."""
        marks = ",".join("?" * len(statuses))
        sql = f"SELECT * FROM matches WHERE ladder_id = ? AND status IN ({marks})"
        params: list[Any] = [run_id, *statuses]
        if agent is not None:
            sql += " AND id IN (SELECT match_id FROM seats WHERE agent = ?)"
            params.append(agent)
        if faults_only:
            sql += " AND id IN (SELECT match_id FROM seats WHERE fault IS NOT NULL)"
        rows = self.db.execute(sql + " ORDER BY idx", params).fetchall()
        seats = self._seats([row["id"] for row in rows])
        return [_match(row, seats.get(row["id"], ())) for row in rows]

    def match(self, match_id: int) -> StoredMatch | None:
        """One match by its id, with its seats."""
        row = self.db.execute("SELECT * FROM matches WHERE id = ?", (match_id,)).fetchone()
        return _match(row, self._seats([match_id]).get(match_id, ())) if row else None

    def _seats(self, match_ids: Sequence[int]) -> dict[int, tuple[StoredSeat, ...]]:
        found: dict[int, list[StoredSeat]] = {}
        for start in range(0, len(match_ids), 500):  # stay under SQLite's bound-parameter limit
            chunk = match_ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for row in self.db.execute(
                f"SELECT * FROM seats WHERE match_id IN ({marks}) ORDER BY match_id, seat", chunk
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
        row = self.db.execute("SELECT data FROM records WHERE match_id = ?", (match_id,)).fetchone()
        return decode_record(row["data"]) if row else None

    def record_at(self, run_id: int, idx: int) -> dict[str, Any] | None:
        """The decoded record of match number ``idx`` (schedule order) of a run, if it was played."""
        row = self.db.execute(
            "SELECT r.data FROM records r JOIN matches m ON m.id = r.match_id WHERE m.ladder_id = ? AND m.idx = ?",
            (run_id, idx),
        ).fetchone()
        return decode_record(row["data"]) if row else None

    def counts(self, run_id: int) -> dict[str, int]:
        """How many of the run's matches are in each status."""
        rows = self.db.execute(
            "SELECT status, COUNT(*) AS n FROM matches WHERE ladder_id = ? GROUP BY status", (run_id,)
        )
        counts = dict.fromkeys(STATUSES, 0)
        counts.update({row["status"]: row["n"] for row in rows})
        return counts

    # -- seasons -----------------------------------------------------------------------------

    def add_season_event(self, run_id: int, at: int, kind: str, data: dict[str, Any]) -> None:
        """Append one entry to the run's season log."""
        with self.transaction() as db:
            db.execute(
                "INSERT INTO season_events (ladder_id, at, kind, data) VALUES (?, ?, ?, ?)",
                (run_id, at, kind, json.dumps(data, sort_keys=True)),
            )

    def season_events(self, run_id: int) -> list[SeasonEvent]:
        """The run's season log, oldest first."""
        rows = self.db.execute(
            "SELECT seq, at, kind, data FROM season_events WHERE ladder_id = ? ORDER BY seq", (run_id,)
        )
        return [SeasonEvent(row["seq"], row["at"], row["kind"], json.loads(row["data"])) for row in rows]

    def save_season_state(self, run_id: int, state: dict[str, Any]) -> None:
        """Replace the season's live state (what `arena season status` and the web show)."""
        with self.transaction() as db:
            db.execute(
                "INSERT INTO season_state (ladder_id, data, updated) VALUES (?, ?, ?)"
                " ON CONFLICT (ladder_id) DO UPDATE SET data = excluded.data, updated = excluded.updated",
                (run_id, json.dumps(state, sort_keys=True), _now()),
            )

    def season_state(self, run_id: int) -> dict[str, Any] | None:
        """The season's live state as last saved (with ``updated``, when), or None."""
        row = self.db.execute(
            "SELECT data, updated FROM season_state WHERE ladder_id = ?", (run_id,)
        ).fetchone()
        if row is None:
            return None
        return {**json.loads(row["data"]), "updated": row["updated"]}


def _insert_matches(
    db: sqlite3.Connection, run_id: int, schedule: Iterable[MatchToStore], or_ignore: bool = False
) -> None:
    """Insert ``schedule`` as pending matches of the run; with ``or_ignore``, skip indexes it has."""
    db.executemany(
        f"INSERT {'OR IGNORE ' if or_ignore else ''}INTO matches (ladder_id, idx, key, seed, spec, entrants) "
        "VALUES (?,?,?,?,?,?)",
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


def _run(row: sqlite3.Row) -> LadderRun:
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


def seat_problem(row: sqlite3.Row | dict[str, Any]) -> str | None:
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


def match_problem(row: sqlite3.Row | dict[str, Any]) -> str | None:
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


def _match(row: sqlite3.Row, seats: tuple[StoredSeat, ...]) -> StoredMatch:
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

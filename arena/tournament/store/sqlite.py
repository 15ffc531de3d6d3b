"""SQLite persistence of tournaments: ladder runs, matches, per-seat results and match records.

The embedded ``TournamentStore`` (arena/tournament/store/api.py): its queries are the shared ones
(arena/tournament/store/base.py); this module supplies the file, its connection and its locks.

One writer (the runner's parent process) commits each match as it finishes, in WAL mode so
readers (`arena leaderboard` during a run) never block it. Resume: a ladder run keeps every
scheduled match with its status; rerunning the ladder plays only the matches not yet done.
The schema is versioned with ``PRAGMA user_version`` and migrated forward on open.
"""

from __future__ import annotations

import errno
import fcntl
import os
import shutil
import sqlite3
import stat
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from arena.tournament.store import schema
from arena.tournament.store.api import DAMAGED_HINT, DEFAULT_DB, DatabaseError, DiskFullError, StoreError
from arena.tournament.store.base import (
    SqlStore,
    Tx,
    check_version,
    decode_record,
    encode_record,
    match_problem,
    new_owner,
    seat_problem,
)
from arena.tournament.store.schema import MIGRATIONS, SCHEMA_VERSION, SQLITE

__all__ = [
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "Store",
    "decode_record",
    "disk_full",
    "encode_record",
    "match_problem",
    "seat_problem",
]

PAGE_BYTES = 16384  # SQLite's page size for a new database
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


def failure(path: str, error: sqlite3.Error, opening: bool = False) -> StoreError:
    """The store's own error for what sqlite3 raised at ``path``: a full disk, or a database that
    cannot be used (``opening``: just the reason, the caller says "cannot open"; else the whole line)."""
    if disk_full(path, error):
        return DiskFullError(path, error)
    if opening:
        return DatabaseError(str(error))
    return DatabaseError(f"{path} is damaged ({error}){DAMAGED_HINT}")


@contextmanager
def translated(path: str, opening: bool = False) -> Iterator[None]:
    """Raise what sqlite3 raises inside as the store's own error (``failure``): no caller outside
    the store names the driver."""
    try:
        yield
    except sqlite3.Error as error:
        raise failure(path, error, opening) from error


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


class Store(SqlStore):
    """A tournament database in one SQLite file. Use as a context manager, or call ``close``."""

    dialect = SQLITE
    exclusive = True  # one writer (claim_writer): a running match found on open was interrupted

    def __init__(self, path: str | Path = DEFAULT_DB) -> None:
        self.path = str(path)
        self.owner = new_owner()
        _private_file(self.path)
        with translated(self.path, opening=True):
            self.db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        self.db.row_factory = sqlite3.Row
        self._writer_lock: IO[bytes] | None = None
        self._snapshots = 0
        self._lock = threading.RLock()
        try:
            # A new file's pages: a compressed record (2-4 KB) leaves a third of a 4 KB page empty,
            # a 16 KB page about a twentieth (set before the first table; an existing file keeps its own).
            self.db.execute(f"PRAGMA page_size = {PAGE_BYTES}")
            self.db.execute("PRAGMA journal_mode = WAL")
            self.db.execute("PRAGMA synchronous = NORMAL")  # WAL + NORMAL: a commit survives a process kill
            self.migrate()  # before foreign keys are on: a migration may rebuild a referenced table
            self.db.execute("PRAGMA foreign_keys = ON")
        except sqlite3.Error as error:
            self.db.close()
            raise failure(self.path, error, opening=True) from error
        except StoreError:  # a newer schema, or a migration's write refused: translated already
            self.db.close()
            raise

    @classmethod
    def read_only(cls, path: str | Path) -> Store:
        """An existing database opened for reading only (SQLite ``mode=ro``): it never migrates or
        writes, so it can sit beside a writing `arena run` (WAL) without changing any result."""
        store = cls.__new__(cls)
        store.path = str(path)
        store.owner = new_owner()
        with translated(store.path, opening=True):
            store.db = sqlite3.connect(f"{Path(path).absolute().as_uri()}?mode=ro", uri=True, timeout=30)
        store.db.row_factory = sqlite3.Row
        store._writer_lock = None
        store._snapshots = 0
        store._lock = threading.RLock()
        try:
            with translated(store.path, opening=True):  # e.g. "file is not a database"
                version = store.db.execute("PRAGMA user_version").fetchone()[0]
        except StoreError:
            store.close()
            raise
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
        with translated(str(path), opening=True):
            db = sqlite3.connect(f"{Path(path).absolute().as_uri()}?mode=ro", uri=True, timeout=30)
            try:
                return db.execute("PRAGMA user_version").fetchone()[0]
            finally:
                db.close()

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
                f"another `arena run` is writing {self.path}: a SQLite store has one writer at a time; "
                "wait for it to finish, use another --db, or a PostgreSQL store for several runners"
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

    def make_room(self) -> None:
        """Give back the space reserved by ``claim_writer`` (after a full disk, for the last writes)."""
        try:
            os.remove(self.path + RESERVE_SUFFIX)
        except OSError:
            pass

    @contextmanager
    def transaction(self) -> Iterator[Tx]:
        """One atomic write: committed on success, rolled back on any error.

        A full disk raises DiskFullError (the write is rolled back, the database is intact).
        """
        with self._lock:  # one connection: a thread at a time (the web's threads share none)
            try:
                self.db.execute("BEGIN IMMEDIATE")
                try:
                    yield Tx(self.db.cursor(), self.dialect)
                    self.db.execute("COMMIT")  # may fail too: SQLITE_FULL leaves the transaction open
                except BaseException:
                    if self.db.in_transaction:
                        self.db.execute("ROLLBACK")
                    raise
            except sqlite3.Error as error:
                raise failure(self.path, error) from error

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Every read inside sees one state of the file (one read transaction); nests."""
        with self._lock, translated(self.path):
            outer = self._snapshots == 0 and not self.db.in_transaction
            if outer:
                self.db.execute("BEGIN")
            self._snapshots += 1
            try:
                yield
            finally:
                self._snapshots -= 1
                if outer and self.db.in_transaction:
                    self.db.execute("COMMIT")

    @contextmanager
    def _reading(self) -> Iterator[Tx]:
        with self._lock, translated(self.path):
            yield Tx(self.db.cursor(), self.dialect)

    def schema_version(self) -> int:
        """The schema version of the open database."""
        with translated(self.path):
            return self.db.execute("PRAGMA user_version").fetchone()[0]

    def migrate(self) -> None:
        """Bring the schema up to SCHEMA_VERSION; refuse a database written by a newer Tlachtli."""
        check_version(self.path, self.schema_version())
        for number in range(self.schema_version(), schema.latest()):
            with self.transaction() as tx:
                for statement in self.dialect.migration(number):
                    tx.run(statement)
                tx.run(f"PRAGMA user_version = {number + 1}")

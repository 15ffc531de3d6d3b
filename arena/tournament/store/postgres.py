"""PostgreSQL persistence of tournaments: the server-side ``TournamentStore`` for several writers.

The queries are the shared ones (arena/tournament/store/base.py); this module supplies a pool of
psycopg connections, transactions, a read snapshot per thread and the locks several runners on
one store need: a new schema is migrated under an advisory lock (runners starting together
migrate it once), a run is settled (created, grown) under another, and a match is claimed with
``SELECT ... FOR UPDATE SKIP LOCKED``. Nothing here decides anything.

psycopg's pool is synchronous (its async API is asyncio's): trio code calls the store through
``trio.to_thread.run_sync`` with a CapacityLimiter the size of the pool (the web arena:
arena/web/threads.py).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg
from psycopg.rows import RowMaker
from psycopg_pool import ConnectionPool, PoolTimeout

from arena.tournament.store import schema
from arena.tournament.store.api import DatabaseError, StoreError
from arena.tournament.store.base import POOL_SIZE, SqlStore, Tx, check_version, new_owner
from arena.tournament.store.schema import POSTGRESQL

CONNECT_TIMEOUT_S = 10
# advisory lock keys (any two fixed numbers of ours): migrating the schema, settling a run
MIGRATE_LOCK = 0x746C6163_68746C69 & 0x7FFFFFFFFFFFFFFF
PLAN_LOCK = MIGRATE_LOCK - 1
VERSION_TABLE = "tlachtli_schema"
# The pool logs each failed reconnection; a command that fails says why in one line (StoreError),
# so they are not printed again (a program that configures logging still gets them).
logging.getLogger("psycopg").addHandler(logging.NullHandler())


def is_postgres_url(db: str) -> bool:
    """Whether ``db`` names a PostgreSQL database rather than a SQLite file."""
    return db.startswith(("postgresql://", "postgres://"))


def shown(url: str) -> str:
    """``url`` as messages show it: any password replaced by ***."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


class Row:
    """A result row readable by column name or position, as sqlite3.Row is."""

    __slots__ = ("_values", "_index")

    def __init__(self, values: Sequence[Any], index: dict[str, int]) -> None:
        self._values = values
        self._index = index

    def __getitem__(self, key: str | int) -> Any:
        return self._values[self._index[key] if isinstance(key, str) else key]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def keys(self) -> list[str]:
        return list(self._index)


def _row_factory(cursor: psycopg.Cursor[Any]) -> RowMaker[Row]:
    index = {column.name: i for i, column in enumerate(cursor.description or ())}
    return lambda values: Row(values, index)


def _reason(error: BaseException) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__


def connect_error(url: str, error: BaseException) -> DatabaseError:
    """One line for a server that cannot be reached, went away or refuses us."""
    return DatabaseError(
        f"cannot use the PostgreSQL database {shown(url)} ({_reason(error)}); check that the server runs, "
        "the database exists and the URL's user may use it"
    )


def failure(url: str, error: psycopg.Error) -> DatabaseError:
    """The store's own error for what psycopg raised: a lost or refusing server (``connect_error``),
    or a command the database refused."""
    if isinstance(error, psycopg.OperationalError):  # the connection, the pool (PoolTimeout), the server
        return connect_error(url, error)
    return DatabaseError(f"the PostgreSQL database {shown(url)} refused a command ({_reason(error)})")


@contextmanager
def translated(url: str) -> Iterator[None]:
    """Raise what psycopg raises inside as the store's own error (``failure``): no caller outside
    the store names the driver."""
    try:
        yield
    except psycopg.Error as error:
        raise failure(url, error) from error


def schema_version_at(url: str) -> int:
    """The schema version of the database at ``url`` (0: one Tlachtli never wrote), read only."""
    try:
        with psycopg.connect(url, connect_timeout=CONNECT_TIMEOUT_S, autocommit=True) as conn:
            return _version(conn)
    except psycopg.Error as error:
        raise connect_error(url, error) from None


def _version(conn: psycopg.Connection[Any]) -> int:
    found = conn.execute("SELECT to_regclass(%s)", (VERSION_TABLE,)).fetchone()
    if found is None or found[0] is None:
        return 0
    row = conn.execute(f"SELECT MAX(version) FROM {VERSION_TABLE}").fetchone()
    return int(row[0]) if row and row[0] is not None else 0


class PostgresStore(SqlStore):
    """A tournament database on a PostgreSQL server. Use as a context manager, or call ``close``."""

    dialect = POSTGRESQL
    exclusive = False  # several runners: a running match is another's until its lease runs out

    def __init__(
        self, url: str, *, read_only: bool = False, migrate: bool = True, size: int = POOL_SIZE
    ) -> None:
        self.path = shown(url)
        self.url = url
        self.owner = new_owner()
        self.read_only = read_only
        self._local = threading.local()
        try:
            with psycopg.connect(url, connect_timeout=CONNECT_TIMEOUT_S, autocommit=True) as conn:
                version = _version(conn)
                check_version(self.path, version)
                if read_only and not 0 < version:
                    raise StoreError(f"{self.path} is not a Tlachtli database (no schema version)")
                if migrate and not read_only and version < schema.latest():
                    _migrate(conn)
        except psycopg.Error as error:
            raise connect_error(url, error) from None
        self.pool: ConnectionPool[psycopg.Connection[Any]] = ConnectionPool(
            url,
            min_size=1,
            max_size=size,
            timeout=CONNECT_TIMEOUT_S,  # a command waits this long for a connection, then fails
            kwargs={"autocommit": True, "row_factory": _row_factory, "connect_timeout": CONNECT_TIMEOUT_S},
            configure=self._configure,
            open=False,
            name="tlachtli",
        )
        try:
            self.pool.open(wait=True, timeout=CONNECT_TIMEOUT_S)
        except PoolTimeout as error:
            self.pool.close()
            raise connect_error(url, error) from None
        self.size = size

    def _configure(self, conn: psycopg.Connection[Any]) -> None:
        if self.read_only:  # the web and the reports: nothing they run can write
            conn.execute("SET default_transaction_read_only = on")

    def close(self) -> None:
        """Give the connections back to the server."""
        self.pool.close()

    def claim_writer(self) -> None:
        """Several runners may write one PostgreSQL store: each claims its matches one at a time
        (``mark_running``), so there is no store-wide claim to take."""

    def make_room(self) -> None:
        """Nothing to give back: the server's disk is the server's."""

    @contextmanager
    def planning(self) -> Iterator[None]:
        """Hold other runners of this store off while this one settles a run (creates or grows
        it): four runners started at once then share one run. A session advisory lock, on a
        connection of its own (the kernel and the server drop it if this process dies)."""
        with translated(self.url):
            conn = psycopg.connect(self.url, connect_timeout=CONNECT_TIMEOUT_S, autocommit=True)
            try:
                conn.execute("SELECT pg_advisory_lock(%s)", (PLAN_LOCK,))
                yield
            finally:
                conn.close()  # ends the session: the lock goes with it

    @contextmanager
    def transaction(self) -> Iterator[Tx]:
        """One atomic write: committed on success, rolled back on any error."""
        with translated(self.url), self.pool.connection() as conn, conn.transaction():
            yield Tx(conn.cursor(), self.dialect)

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Every read of this thread inside sees one state of the store (REPEATABLE READ); nests."""
        if getattr(self._local, "conn", None) is not None:
            yield
            return
        with translated(self.url), self.pool.connection() as conn:
            with conn.transaction():
                conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
                self._local.conn = conn
                try:
                    yield
                finally:
                    self._local.conn = None

    @contextmanager
    def _reading(self) -> Iterator[Tx]:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            with translated(self.url):
                yield Tx(conn.cursor(), self.dialect)
            return
        with translated(self.url), self.pool.connection() as conn:
            yield Tx(conn.cursor(), self.dialect)

    def _claim(self, tx: Tx, match_id: int) -> bool:
        # SKIP LOCKED: a match another runner is claiming right now is not waited for, just skipped
        row = tx.one(
            "SELECT id FROM matches WHERE id = ? AND status = 'pending' FOR UPDATE SKIP LOCKED", (match_id,)
        )
        return row is not None and super()._claim(tx, match_id)

    def _lock_row(self, sql: str) -> str:
        return sql + " FOR UPDATE"

    def schema_version(self) -> int:
        """The schema version of the open database."""
        with translated(self.url), self.pool.connection() as conn:
            return _version(conn)

    def migrate(self) -> None:
        """Bring the schema up to the latest version (``arena db upgrade``)."""
        with translated(self.url), self.pool.connection() as conn:
            _migrate(conn)

    def after_copy(self, tx: Tx) -> None:
        """Move the id sequences past the ids a copy inserted as they were."""
        for table in ("ladders", "matches", "season_events"):
            tx.run(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), COALESCE((SELECT MAX(id) FROM {table}), 0) + 1, false)"
            )


def _migrate(conn: psycopg.Connection[Any]) -> None:
    """Migrate, one transaction per version, under an advisory lock: runners starting at once
    migrate a new database once (PostgreSQL's DDL is transactional: a failed step leaves nothing)."""
    while True:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATE_LOCK,))
            conn.execute(f"CREATE TABLE IF NOT EXISTS {VERSION_TABLE} (version BIGINT NOT NULL)")
            version = _version(conn)
            check_version("the database", version)
            if version >= schema.latest():
                return
            for statement in POSTGRESQL.migration(version):
                conn.execute(statement)  # our own DDL, no parameters
            conn.execute(f"DELETE FROM {VERSION_TABLE}")
            conn.execute(f"INSERT INTO {VERSION_TABLE} (version) VALUES (%s)", (version + 1,))

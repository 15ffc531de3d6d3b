"""``open_store(db)``: the one way to open a tournament store, a SQLite file or a PostgreSQL URL.

``db`` is what a user gives ``--db`` (or ``TLACHTLI_DB``): a file path opens the embedded SQLite
store (arena/tournament/store/sqlite.py), ``postgresql://user@host/dbname`` the server store
(arena/tournament/store/postgres.py; psycopg loads only then).
"""

from __future__ import annotations

import os
from pathlib import Path

from arena.tournament.store.api import StoreError
from arena.tournament.store.base import SqlStore

DATA_ENV = "TLACHTLI_DATA"


def is_url(db: str | Path) -> bool:
    """Whether ``db`` names a PostgreSQL database (a URL) rather than a SQLite file."""
    return str(db).startswith(("postgresql://", "postgres://"))


def shown(db: str | Path) -> str:
    """``db`` as messages show it (a URL without its password)."""
    if is_url(db):
        from arena.tournament.store.postgres import shown as shown_url

        return shown_url(str(db))
    return str(db)


def open_store(db: str | Path, *, read_only: bool = False) -> SqlStore:
    """The store at ``db``, migrated to the latest schema (``read_only``: as it is, never written).

    StoreError in one line for a server that cannot be reached or a schema newer than ours.
    """
    if is_url(db):
        try:
            from arena.tournament.store.postgres import PostgresStore
        except ImportError as error:
            raise StoreError(
                f"a PostgreSQL --db needs the postgres extra: pip install -e '.[postgres]' ({error.name} is missing)"
            ) from None
        return PostgresStore(str(db), read_only=read_only)
    from arena.tournament.store.sqlite import Store

    return Store.read_only(db) if read_only else Store(db)


def schema_version_of(db: str | Path) -> int:
    """The schema version of an existing store, read without writing (0: Tlachtli never wrote it)."""
    if is_url(db):
        from arena.tournament.store.postgres import schema_version_at

        return schema_version_at(str(db))
    from arena.tournament.store.sqlite import Store

    return Store.schema_version_of(db)


def data_folder(db: str | Path) -> Path:
    """Where the files kept beside a store live (bot submissions): the folder of a SQLite file;
    for a PostgreSQL store, ``TLACHTLI_DATA`` (StoreError when it is not set)."""
    if not is_url(db):
        return Path(db).resolve().parent
    data = os.environ.get(DATA_ENV)
    if not data:
        raise StoreError(
            f"a PostgreSQL --db keeps its submissions in a folder of their own: set {DATA_ENV}=DIR "
            "(the same folder on every machine that builds or runs submitted bots)"
        )
    return Path(data).absolute()

"""The ``--db`` of every command: a SQLite file or a PostgreSQL URL, opened one way, failing in one line."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import fail
from arena.tournament.store.api import DEFAULT_DB, StoreError
from arena.tournament.store.base import SqlStore
from arena.tournament.store.opening import is_url, open_store, schema_version_of, shown

DB_ENV = "TLACHTLI_DB"
DB_HELP = "The tournament store: a SQLite file, or postgresql://user@host/dbname (default: $TLACHTLI_DB, else a file)."
DbOption = Annotated[str, typer.Option("--db", envvar=DB_ENV, help=DB_HELP, show_default=True)]
# The older shape (`doctor DB`), kept working but no longer shown.
DbArg = Annotated[str | None, typer.Argument(metavar="DB", hidden=True, show_default=False)]
__all__ = ["DEFAULT_DB", "DbArg", "DbOption", "is_url", "open_existing", "open_for_writing", "store_errors"]


def open_for_writing(db: str) -> SqlStore:
    """The store `arena run` and friends write (created if it is a new file), or one error line."""
    if not is_url(db) and Path(db).is_dir():
        raise fail(f"--db {db} is a folder; name a database file")
    try:
        return open_store(db)
    except (StoreError, OSError) as error:
        raise fail(f"cannot open {shown(db)}: {error}") from None


def open_existing(db: str, *, read_only: bool = False) -> SqlStore:
    """The store for a read command: a missing file, or a database Tlachtli never wrote, is an
    error, not a new empty store; an older Tlachtli schema is migrated as usual (not ``read_only``)."""
    hint = f"give the --db that `arena run` wrote, or run a ladder first: `arena run LADDER --db {shown(db)}`"
    if not is_url(db) and not Path(db).is_file():
        raise fail(f"no database at {db} (run a ladder first: `arena run LADDER --db {db}`)")
    try:
        # Read first, write nothing: a database Tlachtli never wrote (or an empty file) is not given our tables.
        if schema_version_of(db) == 0:
            raise fail(f"{shown(db)} is not a Tlachtli database (no ladder has been run in it); {hint}")
        return open_store(db, read_only=read_only)
    except (StoreError, OSError) as error:  # e.g. a file that is not a database
        raise fail(f"cannot open {shown(db)}: {error}") from None


@contextmanager
def store_errors(also: tuple[type[Exception], ...] = ()) -> Iterator[None]:
    """Turn store errors (a damaged database, a full disk, a lost server: each store raises its
    driver's errors as StoreError) into one clear line."""
    try:
        yield
    except StoreError as error:
        raise fail(str(error)) from None
    except also as error:
        raise fail(str(error)) from None

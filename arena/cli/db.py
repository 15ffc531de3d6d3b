"""``arena db``: a tournament store's schema and its moves between SQLite and PostgreSQL."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import fail, say
from arena.cli.stores import store_errors
from arena.tournament.store import schema
from arena.tournament.store.api import DatabaseError
from arena.tournament.store.opening import is_url, open_store, schema_version_of, shown

db_app = typer.Typer(
    help="A tournament store: upgrade its schema, copy it between SQLite and PostgreSQL (docs/store.md).",
    no_args_is_help=True,
)
DbArgument = Annotated[
    str, typer.Argument(metavar="DB", help="A SQLite file or postgresql://user@host/dbname.")
]


def _must_exist(db: str) -> None:
    if not is_url(db) and not Path(db).is_file():
        raise fail(f"no database at {db} (run a ladder first: `arena run LADDER --db {db}`)")


@db_app.command("upgrade")
def upgrade(db: DbArgument) -> None:
    """Bring a store's schema up to this Tlachtli's (`arena run` does it too); a newer one is refused."""
    _must_exist(db)
    with store_errors():
        try:
            before = schema_version_of(db)
        except (DatabaseError, OSError) as error:  # a file that is no database, a server that is down
            raise fail(f"cannot open {shown(db)}: {error}") from None
        if before == 0:
            raise fail(f"{shown(db)} is not a Tlachtli store; name a --db `arena run` wrote")
        if before == schema.latest():
            say(f"{shown(db)}: schema version {before}, the latest; nothing to do")
            return
        open_store(db).close()  # migrates (a newer schema: StoreError, one line)
        say(f"{shown(db)}: schema upgraded from version {before} to {schema.latest()}")


@db_app.command("copy")
def copy(
    source: Annotated[str, typer.Argument(metavar="SRC", help="The store to copy (only read).")],
    target: Annotated[
        str, typer.Argument(metavar="DST", help="A new file, or an empty PostgreSQL database.")
    ],
) -> None:
    """Copy a tournament store, e.g. SQLite -> PostgreSQL and back: every run, match, seat and record,
    ids included, in one transaction; ratings computed from the copy are the same."""
    from arena.tournament.store.copy import copy_store

    _must_exist(source)
    with store_errors():
        try:
            copied = copy_store(source, target)
        except (DatabaseError, OSError) as error:  # a file that is no database, a path it cannot write
            raise fail(f"cannot copy {shown(source)} to {shown(target)}: {error}") from None
    say(f"copied {shown(source)} to {shown(target)}: {copied.describe()}")

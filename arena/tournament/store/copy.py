"""``arena db copy SRC DST``: move a tournament store between SQLite and PostgreSQL, row for row.

Every table is copied with its ids, in one transaction on the destination (all or nothing), so
the runs, matches, seats and compressed records read back identical and every rating computed
from them is the same. The source is only read; the destination must hold no ladder run yet.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from arena.tournament.store import schema
from arena.tournament.store.api import StoreError
from arena.tournament.store.opening import open_store, schema_version_of, shown
from arena.tournament.store.schema import TABLES


@dataclass(frozen=True)
class Copied:
    """How many rows of each table were copied."""

    rows: dict[str, int]

    def describe(self) -> str:
        return ", ".join(f"{count} {table}" for table, count in self.rows.items())


def _counted(rows: Iterator[tuple], counts: dict[str, int], table: str) -> Iterator[tuple]:
    for row in rows:  # streamed: a season's store is never held whole in memory
        counts[table] += 1
        yield row


def copy_store(source: str, target: str) -> Copied:
    """Copy the store at ``source`` into the new or empty store at ``target``; StoreError in one
    line when the source is no Tlachtli store of the latest schema or the target holds runs."""
    version = schema_version_of(source)
    if version == 0:
        raise StoreError(f"{shown(source)} is not a Tlachtli store; name a --db `arena run` wrote")
    if version < schema.latest():
        raise StoreError(
            f"{shown(source)} has schema version {version} of {schema.latest()}; "
            f"`arena db upgrade {shown(source)}` first (the copy reads it as it is)"
        )
    with open_store(source, read_only=True) as src, open_store(target) as dst:
        if dst.latest_run() is not None:
            raise StoreError(
                f"{shown(target)} already holds ladder runs; copy into a new file or an empty database"
            )
        counts: dict[str, int] = {}
        with dst.transaction() as tx, src.snapshot():
            for table in TABLES:
                columns, rows = src.table_rows(table)
                counts[table] = 0
                dst.insert_rows(tx, table, columns, _counted(rows, counts, table))
            dst.after_copy(tx)
    return Copied(counts)

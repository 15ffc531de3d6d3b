"""``arena doctor DB``: check a tournament store and say, per problem, what is wrong and what to do.

Read-only: a SQLite file is opened with ``mode=ro``, a PostgreSQL database in read-only
transactions, and neither is migrated, so a check cannot make a damaged store worse. The checks
of what is stored (schema version, tables, every ladder, spec, seat and record) are the same for
both; SQLite's page-level integrity check has no PostgreSQL twin (the server keeps its own pages).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from arena.tournament.store.api import StoreError
from arena.tournament.store.base import decode_record, match_problem, seat_problem
from arena.tournament.store.opening import is_url
from arena.tournament.store.schema import SCHEMA_VERSION, TABLES

RESTORE = "restore the file from a backup, or start again with another --db"
NO_PAGE_CHECK = "PostgreSQL: the page-level integrity check is the server's (see its logs, or pg_amcheck)"

Query = Callable[[str], Iterable[Any]]  # rows by column name or position


def check_store(db: str | Path) -> tuple[list[str], str]:
    """(problems, summary) for the store at ``db``: one line per problem, empty when sound."""
    if is_url(db):
        return _check_postgres(str(db))
    path = Path(db)
    if not path.is_file():
        what = "a folder" if path.is_dir() else "no such file"
        return [f"{path}: {what}; name a database written by `arena run`"], ""
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as error:
        return [f"{path}: cannot open ({error}); {RESTORE}"], ""
    try:
        conn.row_factory = sqlite3.Row
        problems = [
            f"{path}: SQLite integrity check: {row[0]}; {RESTORE}"
            for row in conn.execute("PRAGMA integrity_check(20)")
            if row[0] != "ok"
        ]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        present = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        found, summary = _check(lambda sql: conn.execute(sql), str(path), version, present)
        return problems + found, summary
    except sqlite3.Error as error:  # e.g. "file is not a database"
        return [f"{path}: {error}; {RESTORE}"], ""
    finally:
        conn.close()


def _check_postgres(url: str) -> tuple[list[str], str]:
    from arena.tournament.store.postgres import PostgresStore, schema_version_at, shown

    where = shown(url)
    try:
        version = schema_version_at(url)
        if version == 0:
            return [f"{where}: not a Tlachtli store (no schema version); name the --db `arena run` wrote"], ""
        store = PostgresStore(url, read_only=True)
    except StoreError as error:
        return [str(error)], ""
    try:
        present = {
            row[0]
            for row in store._rows(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
            )
        }
        with store.snapshot(), store._reading() as tx:
            problems, summary = _check(lambda sql: tx.all(sql), where, version, present)
        return problems, f"{summary} ({NO_PAGE_CHECK})" if summary else summary
    finally:
        store.close()


def _check(query: Query, path: str, version: int, present: set[str]) -> tuple[list[str], str]:
    problems: list[str] = []
    if version > SCHEMA_VERSION:
        return [f"{path}: schema version {version} is newer than this Tlachtli's; upgrade Tlachtli"], ""
    if version == 0:
        return [f"{path}: not a Tlachtli store (no schema version); name the --db `arena run` wrote"], ""
    missing = [table for table in TABLES if table not in present]
    if missing:
        return [f"{path}: table {name!r} is missing; {RESTORE}" for name in missing], ""
    if version < SCHEMA_VERSION:
        problems.append(
            f"{path}: schema version {version} of {SCHEMA_VERSION}; `arena db upgrade` (or `arena run`) upgrades it"
        )
    for ladder_id, name, config in query("SELECT id, name, config FROM ladders"):
        try:
            json.loads(config)
        except (TypeError, ValueError) as error:
            problems.append(
                f"{path}: ladder run {ladder_id} ({name!r}): its stored ladder is damaged ({error}); {RESTORE}"
            )
    counts = {"matches": 0, "records": 0}
    for row in query(
        "SELECT m.id, m.key, m.spec, m.entrants, m.status,"
        " CASE WHEN r.match_id IS NOT NULL THEN 1 ELSE 0 END AS has_record,"
        " (SELECT COUNT(*) FROM seats s WHERE s.match_id = m.id) AS seats"
        " FROM matches m LEFT JOIN records r ON r.match_id = m.id ORDER BY m.id"
    ):
        counts["matches"] += 1
        key, status, has_record, seats = row["key"], row["status"], row["has_record"], row["seats"]
        problem = match_problem(row)
        if problem is not None:
            problems.append(f"{path}: {problem}; {RESTORE}")
        if status == "done" and not (has_record and seats):
            problems.append(
                f"{path}: match {key!r} is done but has no {'record' if seats else 'seats'}; {RESTORE}"
            )
    for seat in query("SELECT * FROM seats ORDER BY match_id, seat"):
        problem = seat_problem(seat)
        if problem is not None:
            problems.append(f"{path}: {problem}; {RESTORE}")
    for key, data in query(
        "SELECT m.key, r.data FROM records r LEFT JOIN matches m ON m.id = r.match_id ORDER BY r.match_id"
    ):
        counts["records"] += 1
        try:
            decode_record(data)
        except StoreError:
            problems.append(f"{path}: the record of match {key!r} does not decode; {RESTORE}")
    runs = next(iter(query("SELECT COUNT(*) FROM ladders")))[0]
    summary = f"{path}: {runs} ladder run(s), {counts['matches']} matches, {counts['records']} records"
    return problems, summary

"""``arena doctor DB``: check a tournament store and say, per problem, what is wrong and what to do.

Read-only: the file is opened with ``mode=ro`` and never migrated, so a check cannot make a
damaged store worse.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from arena.tournament.store.api import StoreError
from arena.tournament.store.sqlite import (
    MIGRATIONS,
    SCHEMA_VERSION,
    decode_record,
    match_problem,
    seat_problem,
)

TABLES = ("ladders", "matches", "seats", "records")
RESTORE = "restore the file from a backup, or start again with another --db"


def check_store(path: Path) -> tuple[list[str], str]:
    """(problems, summary) for the store at ``path``: one line per problem, empty when sound."""
    if not path.is_file():
        what = "a folder" if path.is_dir() else "no such file"
        return [f"{path}: {what}; name a database written by `arena run`"], ""
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as error:
        return [f"{path}: cannot open ({error}); {RESTORE}"], ""
    try:
        return _check(db, path)
    except sqlite3.Error as error:  # e.g. "file is not a database"
        return [f"{path}: {error}; {RESTORE}"], ""
    finally:
        db.close()


def _check(db: sqlite3.Connection, path: Path) -> tuple[list[str], str]:
    problems = [
        f"{path}: SQLite integrity check: {row[0]}; {RESTORE}"
        for row in db.execute("PRAGMA integrity_check(20)")
        if row[0] != "ok"
    ]
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        return problems + [
            f"{path}: schema version {version} is newer than this Tlachtli's; upgrade Tlachtli"
        ], ""
    if version == 0:
        return problems + [
            f"{path}: not a Tlachtli store (no schema version); name the --db `arena run` wrote"
        ], ""
    present = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    missing = [table for table in TABLES if table not in present]
    if missing:
        return problems + [f"{path}: table {name!r} is missing; {RESTORE}" for name in missing], ""
    if version < SCHEMA_VERSION:
        problems.append(f"{path}: schema version {version} of {len(MIGRATIONS)}; `arena run` upgrades it")
    for ladder_id, name, config in db.execute("SELECT id, name, config FROM ladders"):
        try:
            json.loads(config)
        except (TypeError, ValueError) as error:
            problems.append(
                f"{path}: ladder run {ladder_id} ({name!r}): its stored ladder is damaged ({error}); {RESTORE}"
            )
    counts = {"matches": 0, "records": 0}
    db.row_factory = sqlite3.Row
    for row in db.execute(
        "SELECT m.id, m.key, m.spec, m.entrants, m.status, r.match_id IS NOT NULL AS has_record,"
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
    for seat in db.execute("SELECT * FROM seats ORDER BY match_id, seat"):
        problem = seat_problem(seat)
        if problem is not None:
            problems.append(f"{path}: {problem}; {RESTORE}")
    db.row_factory = None
    for key, data in db.execute(
        "SELECT m.key, r.data FROM records r LEFT JOIN matches m ON m.id = r.match_id ORDER BY r.match_id"
    ):
        counts["records"] += 1
        try:
            decode_record(data)
        except StoreError:
            problems.append(f"{path}: the record of match {key!r} does not decode; {RESTORE}")
    runs = db.execute("SELECT COUNT(*) FROM ladders").fetchone()[0]
    summary = f"{path}: {runs} ladder run(s), {counts['matches']} matches, {counts['records']} records"
    return problems, summary

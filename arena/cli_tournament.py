"""The tournament commands of ``arena``: run, leaderboard, matches, head-to-head, export, record.

Registered on the main typer app by ``arena/cli.py`` through ``register``.
"""

from __future__ import annotations

import csv
import io
import json
import shlex
import sqlite3
import sys
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from tabulate import tabulate

from arena.cli_common import SANDBOX_HELP, announce_sandbox, use_sandbox
from arena.cli_common import fail as _fail
from arena.cli_common import load_registry as _registry
from arena.ladder import LadderError, load_ladder
from arena.report import (
    EXPORT_FIELDS,
    ReportError,
    describe_seats,
    export_rows,
    head_to_head,
    resolve_run,
    standings,
)
from arena.runner import default_jobs, run_pending
from arena.schedule import make_schedule
from arena.store import DEFAULT_DB, Store, StoreError


class TableFormat(StrEnum):
    """Output formats of the leaderboard."""

    table = "table"
    json = "json"
    csv = "csv"


class ExportFormat(StrEnum):
    """Output formats of ``arena export``."""

    csv = "csv"
    json = "json"


DbOption = Annotated[
    Path, typer.Option("--db", help="SQLite database file of the tournament results.", show_default=True)
]
LadderArg = Annotated[
    str | None,
    typer.Argument(
        metavar="LADDER",
        help="Ladder name, or its .toml file; default: the ladder run most recently in the database.",
    ),
]
LadderOption = Annotated[
    str | None,
    typer.Option("--ladder", "-l", help="Ladder name or .toml file; default: the most recently run ladder."),
]
OutputOption = Annotated[Path | None, typer.Option("--output", "-o", help="Write here instead of stdout.")]


def _open_existing(db: Path) -> Store:
    """The database for a read command; a missing file is an error, not a new empty database."""
    if not db.is_file():
        raise _fail(f"no database at {db} (run a ladder first: `arena run LADDER --db {db}`)")
    try:
        return Store(db)
    except (StoreError, sqlite3.Error, OSError) as error:  # e.g. a file that is not a database
        raise _fail(f"cannot open {db}: {error}") from None


def _guard(action: Callable[[], None]) -> None:
    """Turn report errors into one clear line with exit status 2."""
    try:
        action()
    except (ReportError, StoreError) as error:
        raise _fail(str(error)) from None


def run(
    ladder_file: Annotated[
        Path, typer.Argument(metavar="LADDER", help="The ladder TOML file (see docs/ladders.md).")
    ],
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs",
            "-j",
            min=1,
            help="Matches played at once; default: the ladder's concurrency, else the cores.",
        ),
    ] = None,
    db: DbOption = Path(DEFAULT_DB),
    new: Annotated[
        bool, typer.Option("--new", help="Start a fresh run even if this ladder was run (or edited) before.")
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    sandbox: Annotated[str | None, typer.Option(help=SANDBOX_HELP)] = None,
) -> None:
    """Play a ladder: every match of its schedule, in parallel, stored as each finishes.

    Running the same ladder again resumes it: finished matches are kept, unfinished ones are
    played. A ladder file edited since its first run is refused unless --new is given.
    Ctrl-C stops cleanly; rerun the command to finish.
    """
    registry = _registry()
    try:
        ladder = load_ladder(ladder_file, registry)
    except LadderError as error:
        raise _fail(str(error)) from None
    in_force = use_sandbox(sandbox, ladder.sandbox)
    schedule = make_schedule(ladder)
    try:
        store = Store(db)
    except (StoreError, sqlite3.Error) as error:
        raise _fail(f"cannot open {db}: {error}") from None
    with store:
        try:
            store.claim_writer()
            ladder_run = store.open_run(ladder, schedule, new=new)
        except StoreError as error:
            raise _fail(str(error)) from None
        reset = store.reset_interrupted(ladder_run.id)
        pending = store.pending(ladder_run.id)
        done_before = len(schedule) - len(pending)
        workers = jobs or ladder.concurrency or default_jobs()
        if done_before:
            typer.echo(
                f"resuming {ladder.name!r}: {done_before} of {len(schedule)} matches already played"
                + (f", {reset} interrupted match(es) will be replayed" if reset else ""),
                err=True,
            )
        if pending:
            announce_sandbox(in_force, always=True)
        report = run_pending(
            store,
            pending,
            workers,
            total=len(schedule),
            done_before=done_before,
            label=ladder.name,
            show_progress=not quiet,
            console=Console(stderr=True),
        )
        counts = store.counts(ladder_run.id)
    rate = f" ({report.rate:.2f} matches/s with {workers} job(s))" if report.played else ""
    typer.echo(
        f"{ladder.name}: {counts['done']}/{len(schedule)} matches done, {report.played} played now{rate}"
    )
    if report.interrupted:
        typer.echo("interrupted: finished matches are stored; run the same command again to resume", err=True)
        raise typer.Exit(130)
    if report.errors:
        for line in report.errors[:5]:
            typer.echo(f"error: {line}", err=True)
        more = len(report.errors) - 5
        if more > 0:
            typer.echo(f"error: ... and {more} more", err=True)
        raise typer.Exit(1)
    if counts["done"] == len(schedule):
        typer.echo(
            f"see the ratings with: arena leaderboard {shlex.quote(ladder.name)} --db {shlex.quote(str(db))}"
        )


def leaderboard(
    ladder: LadderArg = None,
    db: DbOption = Path(DEFAULT_DB),
    fmt: Annotated[TableFormat, typer.Option("--format", "-f", help="Output format.")] = TableFormat.table,
) -> None:
    """Show the TrueSkill leaderboard of a ladder, ordered by conservative rating (mu - 3 sigma).

    Ratings are recomputed from the stored results in schedule order, so the same results
    always give the same table, even while the ladder is still running.
    """

    def show() -> None:
        with _open_existing(db) as store:
            ladder_run = resolve_run(store, ladder)
            table = standings(store, ladder_run)
            counts = store.counts(ladder_run.id)
        rows = [row.as_dict() for row in table]
        if fmt is TableFormat.json:
            typer.echo(json.dumps(rows, indent=2))
        elif fmt is TableFormat.csv:
            typer.echo(_csv(rows, list(rows[0]) if rows else ["rank", "agent"]), nl=False)
        else:
            total = sum(counts.values())
            typer.echo(
                f"{ladder_run.name} ({ladder_run.game}, {ladder_run.format}): {counts['done']}/{total} matches"
            )
            headers = ["rank", "agent", "rating", "mu", "sigma", "matches", "wins", "mean score", "faults"]
            typer.echo(tabulate([list(row.values()) for row in rows], headers=headers, floatfmt=".2f"))

    _guard(show)


def matches(
    ladder: LadderOption = None,
    db: DbOption = Path(DEFAULT_DB),
    agent: Annotated[
        str | None, typer.Option("--agent", "-a", help="Only matches this agent played.")
    ] = None,
    faults: Annotated[bool, typer.Option("--faults", help="Only matches in which a seat forfeited.")] = False,
    status: Annotated[
        str | None, typer.Option("--status", help="Only matches in this status: pending, running or done.")
    ] = None,
    limit: Annotated[int | None, typer.Option("--limit", "-n", min=1, help="Show at most this many.")] = None,
) -> None:
    """List a ladder's matches in schedule order: seats, scores, ranks and faults."""

    def show() -> None:
        statuses = ("pending", "running", "done")
        if status is not None and status not in statuses:
            raise ReportError(f"unknown status {status!r}; use one of: {', '.join(statuses)}")
        with _open_existing(db) as store:
            ladder_run = resolve_run(store, ladder)
            found = store.matches(
                ladder_run.id, statuses=(status,) if status else statuses, agent=agent, faults_only=faults
            )
        rows = [[m.idx, m.key, m.status, m.seed, describe_seats(m), m.seconds] for m in found[:limit]]
        headers = ["#", "match", "status", "seed", "seats: agent score (#rank)", "seconds"]
        typer.echo(tabulate(rows, headers=headers, floatfmt=".2f", missingval="-"))

    _guard(show)


def head_to_head_command(
    a: Annotated[str, typer.Argument(metavar="A", help="First agent (its display name in the ladder).")],
    b: Annotated[str, typer.Argument(metavar="B", help="Second agent.")],
    ladder: LadderOption = None,
    db: DbOption = Path(DEFAULT_DB),
) -> None:
    """Compare two agents over the matches where both sat: who finished ahead, mean scores."""

    def show() -> None:
        with _open_existing(db) as store:
            ladder_run = resolve_run(store, ladder)
            h2h = head_to_head(store, ladder_run, a, b)
        typer.echo(f"{ladder_run.name}: {a} vs {b} in {h2h.matches} match(es)")
        rows = [
            [a, h2h.a_ahead, h2h.level, f"{h2h.a_mean_score:.2f}"],
            [b, h2h.b_ahead, h2h.level, f"{h2h.b_mean_score:.2f}"],
        ]
        typer.echo(tabulate(rows, headers=["agent", "ahead", "level", "mean score"]))

    _guard(show)


def export(
    ladder: LadderOption = None,
    db: DbOption = Path(DEFAULT_DB),
    fmt: Annotated[ExportFormat, typer.Option("--format", "-f", help="Output format.")] = ExportFormat.csv,
    output: OutputOption = None,
) -> None:
    """Export a ladder's results, one row per seat of every finished match, for analysis."""

    def write() -> None:
        with _open_existing(db) as store:
            rows = export_rows(store, resolve_run(store, ladder))
        text = (
            json.dumps(rows, indent=1) + "\n" if fmt is ExportFormat.json else _csv(rows, list(EXPORT_FIELDS))
        )
        if _emit(text, output):
            typer.echo(f"wrote {len(rows)} rows to {output}", err=True)

    _guard(write)


def record(
    index: Annotated[int, typer.Argument(metavar="MATCH", help="The match's number (# in `arena matches`).")],
    ladder: LadderOption = None,
    db: DbOption = Path(DEFAULT_DB),
    output: OutputOption = None,
) -> None:
    """Write a stored match's full record as JSON, e.g. for `arena replay FILE`."""

    def write() -> None:
        with _open_existing(db) as store:
            ladder_run = resolve_run(store, ladder)
            data = store.record_at(ladder_run.id, index)
        if data is None:
            raise ReportError(f"match {index} of ladder {ladder_run.name!r} has no record (not played yet?)")
        text = json.dumps(data, indent=1) + "\n"
        _emit(text, output)

    _guard(write)


def _emit(text: str, output: Path | None) -> bool:
    """Write ``text`` to ``output``, or to stdout when it is None; True when a file was written."""
    if output is None:
        sys.stdout.write(text)
        return False
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as error:
        raise ReportError(f"cannot write {output}: {error.strerror}") from None
    return True


def _csv(rows: list[dict], fields: list[str]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def register(app: typer.Typer) -> None:
    """Add the tournament commands to the ``arena`` app."""
    app.command()(run)
    app.command()(leaderboard)
    app.command()(matches)
    app.command("head-to-head")(head_to_head_command)
    app.command()(export)
    app.command()(record)

"""``arena season start|status|stop|final``: a season ladder run as a service (docs/ladders.md, *Seasons*)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from arena.cli.common import announce_sandbox, say, stderr_console, table, use_sandbox
from arena.cli.common import fail as _fail
from arena.cli.common import load_registry as _registry
from arena.cli.interrupts import interrupted_once
from arena.cli.stores import DbOption, open_for_writing, store_errors
from arena.cli.tournament import JobsOption, _fit_memory, _open_existing, _store_errors, grown_by_submissions
from arena.registry.plugins import Registry
from arena.tournament.formats import FORMATS
from arena.tournament.plan.ladder import Ladder, LadderError, load_ladder
from arena.tournament.store.api import DEFAULT_DB, LadderRun, StoreError
from arena.tournament.store.base import SqlStore
from arena.tournament.store.opening import data_folder

season_app = typer.Typer(
    help="Run a season: a ladder that plays until stopped while bots join, update and leave "
    '(format = "season"; docs/ladders.md, Seasons).',
    no_args_is_help=True,
)

LadderFile = Annotated[Path, typer.Argument(metavar="LADDER", help="The season's ladder file (.toml).")]
LadderName = Annotated[str, typer.Argument(metavar="LADDER", help="The season's ladder file or its name.")]


def _load(ladder_file: Path, db: str, sandbox: str, registry: Registry) -> Ladder:
    """The ladder as its file and its active submissions are now; a LadderError for a bad file."""
    ladder = load_ladder(ladder_file, registry)
    if not FORMATS[ladder.format].service:
        raise LadderError(
            f"{ladder_file}: format {ladder.format!r} is not a season; play it with `arena run {ladder_file}`"
        )
    return grown_by_submissions(ladder, db, sandbox)


@season_app.command()
def start(
    ladder_file: LadderFile,
    db: DbOption = DEFAULT_DB,
    jobs: JobsOption = None,
    sandbox: Annotated[
        str | None, typer.Option(help="bwrap or none (default: the ladder's, else the strongest available).")
    ] = None,
) -> None:
    """Play a season until it is stopped: in the foreground (run it under nohup, tmux or systemd).

    Resumes where it was stopped or killed (the matchmaking replays the season's log). Edits of
    the ladder file and new, updated or withdrawn submissions are taken in within seconds, with
    no restart. Ctrl-C, SIGTERM or `arena season stop` end it cleanly.
    """
    with interrupted_once():  # the runner's imports (psutil, multiprocessing) only here
        from arena.tournament.run.season import run_season
    registry = _registry()  # once: the file is read again every few seconds, the plugins are not
    try:
        first = load_ladder(ladder_file, registry)
    except LadderError as error:
        raise _fail(str(error)) from None
    in_force = use_sandbox(sandbox, first.sandbox)
    try:
        ladder = _load(ladder_file, db, in_force, registry)
    except LadderError as error:
        raise _fail(str(error)) from None
    _fit_memory(ladder, jobs)
    with store_errors():  # before anything is written: a PostgreSQL store's control files need it
        data_folder(db)
    store = open_for_writing(db)
    announce_sandbox(in_force, always=True)
    console = stderr_console()

    def tell(line: str) -> None:
        console.print(f"[dim]{time.strftime('%H:%M:%S')}[/dim] {line}", markup=True, highlight=False)

    with _store_errors(), store:
        try:
            report = run_season(
                store, lambda: _load(ladder_file, db, in_force, registry), jobs=jobs, say=tell
            )
        except StoreError as error:
            raise _fail(str(error)) from None
    say(
        f"{ladder.name}: {report.played} match(es) played now"
        + (f", {report.aborted} aborted" if report.aborted else "")
        + (f"; the season is over: {report.ended}" if report.ended else "; stopped, start it again to go on")
    )
    for line in report.errors:
        say(f"error: {line}", err=True)
    if report.errors:
        raise typer.Exit(1)
    if report.signal is not None and not report.ended:
        raise typer.Exit(128 + report.signal)  # 130 for Ctrl-C, 143 for SIGTERM


def _season_run(store: SqlStore, ladder: str) -> LadderRun:
    """The latest run of the season named (or whose file is) ``ladder``."""
    name = ladder
    if ladder.endswith(".toml") and Path(ladder).is_file():
        try:
            name = load_ladder(Path(ladder), _registry()).name
        except LadderError as error:
            raise _fail(str(error)) from None
    found = store.latest_run(name)
    if found is None:
        raise _fail(f"no season named {name!r} in {store.path}: start it with `arena season start LADDER`")
    if not FORMATS[found.format].service:
        raise _fail(f"ladder {name!r} is not a season (format {found.format!r}); see `arena leaderboard`")
    return found


@season_app.command()
def status(
    ladder: LadderName,
    db: DbOption = DEFAULT_DB,
    as_json: Annotated[bool, typer.Option("--json", help="The state and the table as JSON.")] = False,
) -> None:
    """Show a season: running or not, matches per minute, workers, queue, the final phase, and the
    published table (MLE Elo with 95% intervals over the games that count; voided and suspended shown)."""
    from arena.tournament.plan.season_table import season_table

    store = _open_existing(db)
    with _store_errors(), store:
        run = _season_run(store, ladder)
        state = store.season_state(run.id) or {}
        rows = season_table(store.matches(run.id, ("done",)), state)
    if as_json:
        typer.echo(json.dumps({"state": state, "table": [row.as_dict() for row in rows]}, indent=2))
        return
    say(_status_line(run, state))
    for name, why in sorted(state.get("suspended", {}).items()):
        say(f"suspended: {name}: {why}")
    cells = [
        [
            row.rank,
            row.agent,
            "-" if row.elo is None else f"{row.elo:+.0f}",
            "-" if row.low is None or row.high is None else f"[{row.low:+.0f}, {row.high:+.0f}]",
            row.games,
            row.voided,
            row.status,
            {True: "yes", False: "no", None: ""}[row.separated],
        ]
        for row in rows
    ]
    say(table(cells, headers=["#", "bot", "elo", "95%", "games", "voided", "status", "separated"]))


def _status_line(run: LadderRun, state: dict[str, Any]) -> str:
    """One line: what the season is doing, and how fast."""
    if not state:
        return f"{run.name}: never started"
    counts = state.get("counts", {})
    phase = {
        "open": "open",
        "final": f"final phase ({state.get('final_played', 0)}/{state.get('final_budget')} games)",
        "over": f"over ({state.get('ended')})",
    }.get(state.get("phase", ""), "?")
    running = state.get("status") == "running" and _alive(state.get("pid"))
    status = f"running (pid {state.get('pid')})" if running else str(state.get("status", "?"))
    if state.get("status") == "running" and not running:
        status = "not running (it was killed; start it again to resume)"
    return (
        f"{run.name}: {status}, {phase}; {counts.get('done', 0)} matches done, "
        f"{state.get('per_minute', 0)}/min, {state.get('workers')} workers, {state.get('in_flight', 0)} playing, "
        f"{state.get('queue', 0)} queued, {len(state.get('placing', []))} in placement, "
        f"{state.get('restarts', 0)} restart(s) after a crash; updated {state.get('updated')}"
    )


def _alive(pid: Any) -> bool:
    """Whether the service ``pid`` runs (one that ended but is not reaped yet does not)."""
    import psutil

    try:
        return isinstance(pid, int) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _ask(ladder: str, db: str, what: str) -> tuple[LadderRun, dict[str, Any]]:
    """Write the control file asking the season to ``what`` (stop, final)."""
    from arena.tournament.run.season import control_file

    store = _open_existing(db)
    with _store_errors(), store:
        run = _season_run(store, ladder)
        state = store.season_state(run.id) or {}
    with store_errors(also=(OSError,)):  # no TLACHTLI_DATA, or a folder we may not write
        asked = control_file(db, run.id, what)
        asked.parent.mkdir(parents=True, exist_ok=True)  # a PostgreSQL store's data folder may be new
        asked.touch()
    return run, state


@season_app.command()
def stop(
    ladder: LadderName,
    db: DbOption = DEFAULT_DB,
    wait: Annotated[float, typer.Option(help="Seconds to wait for it to stop (0: do not wait).")] = 60.0,
) -> None:
    """Stop a running season cleanly: its matches in flight end, nothing is lost; start resumes it."""
    run, state = _ask(ladder, db, "stop")
    if not (state.get("status") == "running" and _alive(state.get("pid"))):
        from arena.tournament.run.season import control_file

        control_file(db, run.id, "stop").unlink(missing_ok=True)
        typer.echo(f"{run.name}: not running")
        return
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline and _alive(state["pid"]):
        time.sleep(0.2)
    if _alive(state["pid"]) and wait > 0:
        raise _fail(
            f"{run.name} (pid {state['pid']}) has not stopped within {wait:g} s; it is finishing its matches "
            "in flight (kill -TERM it to cut that short)"
        )
    typer.echo(f"{run.name}: stopped" if wait > 0 else f"{run.name}: asked to stop")


@season_app.command()
def final(ladder: LadderName, db: DbOption = DEFAULT_DB) -> None:
    """Begin the final phase now: submissions lock, no more drift, the top K play until their
    order is settled at the season's confidence or its final budget is spent."""
    run, state = _ask(ladder, db, "final")
    if state.get("phase") in ("final", "over"):
        typer.echo(f"{run.name}: the final phase has begun already")
        return
    running = state.get("status") == "running" and _alive(state.get("pid"))
    when = "within seconds" if running else "when the season is started again"
    typer.echo(f"{run.name}: the final phase begins {when} (see `arena season status`)")

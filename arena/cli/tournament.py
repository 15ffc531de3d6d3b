"""The tournament commands of ``arena``: run, leaderboard, matches, head-to-head, export, record, doctor.

Registered on the main typer app by ``arena/cli/main.py`` through ``register``.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import os
import shlex
import signal
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager
from enum import StrEnum
from pathlib import Path
from typing import Annotated, TypeVar

import typer

from arena.cli.common import (
    SANDBOX_HELP,
    announce_sandbox,
    say,
    stderr_console,
    table,
    use_sandbox,
)
from arena.cli.common import fail as _fail
from arena.cli.common import load_registry as _registry
from arena.cli.interrupts import interrupted_once
from arena.cli.ladder_file import ladder_app
from arena.cli.stores import (
    DEFAULT_DB,
    DbArg,
    DbOption,
    is_url,
    open_existing,
    open_for_writing,
    store_errors,
)
from arena.text.files import INT64, waits_for_a_reader
from arena.text.safe import printable
from arena.tournament.formats import FORMATS
from arena.tournament.plan.growth import mark_uncertain, retired_names, without_retired
from arena.tournament.plan.ladder import Ladder, LadderError, load_ladder
from arena.tournament.plan.runs import plan_run
from arena.tournament.plan.secrecy import seeds_hidden
from arena.tournament.stats.fault_lines import AgentFaults, agent_faults, faults_by_seat
from arena.tournament.stats.report import (
    EXPORT_FIELDS,
    ReportError,
    describe_seats,
    export_rows,
    head_to_heads,
    leaderboard_rows,
    ranked_by_score,
    resolve_run,
    run_title,
)
from arena.tournament.stats.table_format import cells, columns, fixed, percent, percent_interval
from arena.tournament.store.api import STATUSES, LadderRun, StoredMatch, StoreError
from arena.tournament.store.base import SqlStore as Store
from arena.tournament.store.doctor import check_store
from arena.tournament.store.opening import DATA_ENV

T = TypeVar("T")


class TableFormat(StrEnum):
    """Output formats of the leaderboard."""

    table = "table"
    json = "json"
    csv = "csv"


class RatingMethod(StrEnum):
    """What orders the leaderboard (both ratings are always shown)."""

    trueskill = "trueskill"
    mle = "mle"


class ExportFormat(StrEnum):
    """Output formats of ``arena export``."""

    csv = "csv"
    json = "json"


# The older shapes (`leaderboard LADDER`, `doctor DB`), kept working but no longer shown: every
# command names its ladder with --ladder/-l and its database with --db.
LadderArg = Annotated[str | None, typer.Argument(metavar="LADDER", hidden=True, show_default=False)]
LadderOption = Annotated[
    str | None,
    typer.Option("--ladder", "-l", help="Ladder name or .toml file; default: the most recently run ladder."),
]
JobsOption = Annotated[
    int | None,
    typer.Option(
        "--jobs",
        "-j",
        min=1,
        help="Matches played at once; default: the ladder's concurrency, else the cores.",
    ),
]
OutputOption = Annotated[Path | None, typer.Option("--output", "-o", help="Write here instead of stdout.")]


def _with_submissions(ladder: Ladder, db: str, sandbox: str) -> Ladder:
    """``ladder`` grown by its active submitted bots (arena/submissions/), which run only under bwrap."""
    try:
        return grown_by_submissions(ladder, db, sandbox)
    except LadderError as error:
        raise _fail(str(error)) from None


def grown_by_submissions(ladder: Ladder, db: str | Path, sandbox: str) -> Ladder:
    """``_with_submissions``, a LadderError where the sandbox cannot run them (a running season
    reads the submissions again and again: it says so once, and plays on)."""
    from arena.process.zygote import PACKAGES_ENV
    from arena.submissions.entrants import with_submissions
    from arena.submissions.store import SubmissionStore, submissions_folder

    if is_url(db) and not os.environ.get(DATA_ENV):
        return ladder  # a PostgreSQL store with no data folder has no submissions (docs/store.md)
    store = SubmissionStore(submissions_folder(db))
    grown = with_submissions(ladder, store)
    if grown is not ladder:
        if sandbox != "bwrap":
            raise LadderError(
                f"ladder {ladder.name!r} has submitted bots: they run only in the bwrap sandbox, not {sandbox!r}"
            )
        os.environ[PACKAGES_ENV] = str(store.packages)  # the workers' one zygote holds them (zygote.py)
    return grown


def _open_existing(db: str) -> Store:
    """The database for a read command; a missing file is an error, not a new empty database."""
    return open_existing(db)


def _fit_memory(ladder: Ladder, jobs: int | None) -> None:
    """Say so in one line where the bots' memory caps together exceed this machine's memory, and
    lower the default cap to fit (its workers inherit it); refuse a run that cannot fit at all."""
    from arena.process.limits import DEFAULT_MEMORY_MB, _own_cgroup
    from arena.process.memory import BOT_MEMORY_ENV, machine_memory_mb, memory_plan
    from arena.tournament.run.runner import default_jobs

    if os.geteuid() != 0 or _own_cgroup("memory") is None:
        return  # no cgroup caps here (docs/security.md, Limits)
    workers = jobs or ladder.concurrency or default_jobs()  # as play_ladder counts them
    plan = memory_plan(machine_memory_mb(), workers * ladder.players, ladder.memory_mb, DEFAULT_MEMORY_MB)
    if plan.refused:
        raise _fail(str(plan.note))
    if plan.cap is not None:
        os.environ[BOT_MEMORY_ENV] = str(plan.cap)
    if plan.note:
        typer.echo(plan.note, err=True)


def _seeds_hidden(store: Store, ladder_run: LadderRun) -> bool:
    """Whether the deals of ``ladder_run`` must stay hidden (arena/tournament/plan/secrecy.py: the web's rule too)."""
    return seeds_hidden(store, ladder_run)


def _guard(action: Callable[[], None]) -> None:
    """Turn report and store errors (a damaged database too) into one clear line with exit status 2."""
    with _store_errors():
        action()


def _store_errors() -> AbstractContextManager[None]:
    return store_errors(also=(ReportError,))


def run(
    ladder_file: Annotated[
        Path, typer.Argument(metavar="LADDER", help="The ladder TOML file (see docs/ladders.md).")
    ],
    jobs: JobsOption = None,
    db: DbOption = DEFAULT_DB,
    new: Annotated[
        bool,
        typer.Option(
            "--new",
            help="Start a fresh run even if this ladder was run (or edited) before: every match is played again.",
        ),
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    cluster: Annotated[
        str | None,
        typer.Option(
            "--cluster",
            metavar="ADDRESS",
            help="Play on a Dask cluster instead: tls://HOST:8786 (a running `dask scheduler`, with "
            "--cluster-security) or local:N (a local Dask cluster of N workers). See docs/cluster.md.",
        ),
    ] = None,
    cluster_security: Annotated[
        Path | None,
        typer.Option(
            "--cluster-security",
            metavar="DIR",
            help="With --cluster tls://...: the certificates `arena cluster init DIR` wrote.",
        ),
    ] = None,
    insecure_cluster: Annotated[
        bool,
        typer.Option(
            "--insecure-cluster",
            help="Allow a plain tcp:// scheduler (no encryption, no authentication: whoever reaches it "
            "runs code on the workers and here). Only on a network only you use.",
        ),
    ] = False,
    dashboard: Annotated[
        bool,
        typer.Option("--dashboard", help="With --cluster local:N: serve Dask's dashboard on 127.0.0.1."),
    ] = False,
    audit: Annotated[
        float | None,
        typer.Option(
            "--audit",
            min=0.0,
            max=1.0,
            metavar="SHARE",
            help="With --cluster: the share of each worker's matches played again on this machine and"
            " compared move by move (default 0.1; docs/cluster.md).",
        ),
    ] = None,
    sandbox: Annotated[str | None, typer.Option(help=SANDBOX_HELP)] = None,
    fail_on_faults: Annotated[
        bool,
        typer.Option(
            "--fail-on-faults",
            help="Exit with status 1 when any seat forfeited (a demo or a check whose bots must play cleanly).",
        ),
    ] = False,
) -> None:
    """Play a ladder: every match of its schedule, in parallel, stored as each finishes.

    Running the same ladder again resumes it: finished matches are kept, unfinished ones are
    played. An edited file that adds or removes agents or raises matches_per_pairing grows the
    ladder (only the new matches are played; removed agents are retired); an edit that makes old
    matches incomparable (game, options, clocks, seed, an agent's plugin or options) is refused
    unless --new is given (docs/ladders.md, "Growing a ladder").
    Ctrl-C (or SIGTERM) stops cleanly within seconds; rerun the command to finish. A match whose
    worker process is lost 3 times (killed, or its referee stopped or hung) is recorded as
    aborted and the ladder goes on (see docs/ladders.md).
    """
    # Here, not at the top: the runner (psutil, multiprocessing) is only needed to play, and every
    # `arena` process imports this module; the cluster's match checks (trio, the referee) only with
    # --cluster: a local run's workers import them, not this process.
    with interrupted_once():  # until the runner's own handlers: arena/cli/interrupts.py says why
        from arena.tournament.run.play import play_run
        from arena.tournament.run.runner import MAX_FAILURES

    if jobs is not None and cluster is not None:
        raise _fail("give --jobs or --cluster, not both (a cluster plays one match per worker thread)")
    target = None
    cluster_errors: tuple[type[Exception], ...] = ()  # what only a cluster raises
    if cluster is not None:
        with interrupted_once():
            from arena.tournament.run.cluster import ClusterError, ClusterTarget, check_target
        cluster_errors = (ClusterError,)
        target = ClusterTarget(cluster, cluster_security, insecure_cluster, dashboard)
        if audit is not None:
            target = dataclasses.replace(target, audit=audit)
        try:
            check_target(target)
        except ClusterError as error:
            raise _fail(str(error)) from None
    elif cluster_security is not None or insecure_cluster or dashboard or audit is not None:
        raise _fail("--cluster-security, --insecure-cluster, --dashboard and --audit go with --cluster")
    registry = _registry()
    try:
        ladder = load_ladder(ladder_file, registry)
    except LadderError as error:
        raise _fail(str(error)) from None
    if FORMATS[ladder.format].service:
        raise _fail(f"ladder {ladder.name!r} is a season: run it with `arena season start {ladder_file}`")
    if not is_url(db) and Path(db).is_dir():
        raise _fail(f"--db {db} is a folder; name a database file")
    in_force = use_sandbox(sandbox, ladder.sandbox)
    ladder = _with_submissions(ladder, db, in_force)
    if not cluster:
        _fit_memory(ladder, jobs)
    store = open_for_writing(db)
    with _store_errors(), store:
        try:
            plan = plan_run(store, ladder, new=new)  # resumed, grown or new: settled before playing
            summary = play_run(
                store,
                plan,
                jobs=jobs,
                progress=not quiet,
                cluster=target,
                console=stderr_console(),
                notify=lambda line: say(line, err=True),
                on_start=lambda: announce_sandbox(in_force, always=True),
            )
        except StoreError as error:
            raise _fail(str(error)) from None
        except cluster_errors as error:
            raise _fail(str(error)) from None
        warnings = fault_warnings(store, summary.run, db)
    report, counts, total, workers = summary.report, summary.counts, summary.total, summary.workers
    where = f"cluster {cluster}" if cluster else f"{workers} job(s)"
    rate = f" ({report.rate:.2f} matches/s with {where})" if report.played else ""
    aborted = f", {counts['aborted']} aborted" if counts["aborted"] else ""
    say(f"{ladder.name}: {counts['done']}/{total} matches done{aborted}, {report.played} played now{rate}")
    if report.interrupted:
        typer.echo("interrupted: finished matches are stored; run the same command again to resume", err=True)
        raise typer.Exit(128 + (report.signal or signal.SIGINT))  # 130 for Ctrl-C, 143 for SIGTERM
    if counts["aborted"]:
        typer.echo(
            f"warning: {counts['aborted']} match(es) aborted after their worker process was lost "
            f"{MAX_FAILURES} times (see `arena matches --status aborted`); the ratings leave them out",
            err=True,
        )
    if report.errors:
        for line in report.errors[:5]:
            say(f"error: {printable(line, newlines=False)}", err=True)
        more = len(report.errors) - 5
        if more > 0:
            typer.echo(f"error: ... and {more} more", err=True)
        raise typer.Exit(1)
    for line in warnings:
        say(line, err=True)
    if warnings and fail_on_faults:
        raise _fail(f"{len(warnings)} agent(s) forfeited (--fail-on-faults): see the warnings above", code=1)
    if counts["done"] + counts["aborted"] == total:
        typer.echo(
            f"see the ratings with: arena leaderboard -l {shlex.quote(ladder.name)} --db {shlex.quote(str(db))}"
        )


def fault_warnings(store: Store, ladder_run: LadderRun, db: str) -> list[str]:
    """One warning line per agent that forfeited in the ladder: in how many seats, its most frequent
    fault with the first line of its detail (kept back while the deals are secret), and where to
    read more. A bot that cannot start forfeits every match and would otherwise only rank last."""
    hidden = _seeds_hidden(store, ladder_run)
    by_agent: dict[str, list[AgentFaults]] = {}
    for found in agent_faults(store, ladder_run.id):
        by_agent.setdefault(found.agent, []).append(found)
    where = f"--db {shlex.quote(str(db))}"
    name = shlex.quote(ladder_run.name)
    lines = []
    for agent, kinds in by_agent.items():
        top = max(kinds, key=lambda kind: kind.count)
        when = " at its start" if top.handshake else ""
        why = f": {top.line}" if top.line and not hidden else ""
        others = f" (and {len(kinds) - 1} other kind(s))" if len(kinds) > 1 else ""
        lines.append(
            f"warning: {agent} forfeited {sum(kind.count for kind in kinds)} of its {top.played} seat(s), "
            f"{top.fault}{when}{why}{others}; see `arena matches {name} {where} --faults --agent "
            f"{shlex.quote(agent)}`, and the whole record with `arena record {top.example} -l {name} {where}`"
        )
    return lines


def _either(option: T, argument: T | None, flag: str, default: T | None = None) -> T:
    """The value given as ``flag`` or as the older positional argument (one error line if both differ)."""
    if argument is not None and option not in (None, default) and option != argument:
        raise _fail(f"give the {flag.lstrip('-')} once: {flag} {option} or {argument}, not both")
    return argument if argument is not None else option


def leaderboard(
    ladder_arg: LadderArg = None,
    ladder: LadderOption = None,
    db: DbOption = DEFAULT_DB,
    fmt: Annotated[TableFormat, typer.Option("--format", "-f", help="Output format.")] = TableFormat.table,
    method: Annotated[
        RatingMethod | None,
        typer.Option(
            "--method",
            "-m",
            help="Order by the TrueSkill rating or by the order-free MLE rating (Elo); default: trueskill."
            " Not used for a solo ladder, which is ranked by score against the automaton.",
            show_default=False,
        ),
    ] = None,
    show_all: Annotated[
        bool, typer.Option("--all", help="Also show retired agents (and older versions of an agent).")
    ] = False,
    wide: Annotated[
        bool, typer.Option("--wide", help="Every column (the table fits 100 columns without).")
    ] = False,
) -> None:
    """Show a ladder's leaderboard: TrueSkill and the order-free MLE rating side by side.

    TrueSkill (rating = mu - 3 sigma) is replayed from the stored results in schedule order.
    MLE is one Plackett-Luce fit over all results (Elo relative to the field's mean, with a
    95% interval); it does not depend on the order of the results. A solo ladder is ranked
    instead by each agent's mean margin over the automaton on the same deals, with 95%
    intervals, the paired gap to the row above and the win rate. See docs/ratings.md.
    """
    ladder = _either(ladder, ladder_arg, "--ladder")

    def show() -> None:
        with _open_existing(db) as store:
            ladder_run = resolve_run(store, ladder)
            by_score = ranked_by_score(ladder_run)
            chosen = RatingMethod.trueskill if method is None or by_score else method
            rows = leaderboard_rows(store, ladder_run, chosen.value)
            counts = store.counts(ladder_run.id)
            config = store.config(ladder_run.id)
        if by_score and method is not None:
            say(
                f"note: {ladder_run.name!r} is a solo ladder: it is ranked by the mean margin against the"
                f" automaton, not by {method.value} (see docs/ratings.md)",
                err=True,
            )
        rows, hidden = without_retired(rows, retired_names(config), show_all)
        rows = mark_uncertain(rows, config.get("target_interval"))
        if fmt is TableFormat.json:
            typer.echo(json.dumps(rows, indent=2))
        elif fmt is TableFormat.csv:
            typer.echo(printable(_csv(rows, list(rows[0]) if rows else ["rank", "agent"])), nl=False)
        else:
            total = sum(counts.values())
            aborted = f" ({counts['aborted']} aborted)" if counts["aborted"] else ""
            order = (
                "ranked by mean margin against the automaton" if by_score else f"ordered by {chosen.value}"
            )
            retired = f"; {hidden} retired (--all shows them)" if hidden else ""
            say(f"{run_title(ladder_run)}: {counts['done']}/{total} matches{aborted}, {order}{retired}")
            say(_leaderboard_table(rows, by_score, wide))
            unsure = sum(bool(row.get("uncertain")) for row in rows)
            if unsure:
                say(
                    f"? {unsure} rating(s) still uncertain: interval wider than "
                    f"target_interval = {config['target_interval']:g} Elo"
                )

    _guard(show)


def _leaderboard_table(rows: list[dict], solo: bool, wide: bool) -> str:
    """The leaderboard as text: the web page's columns and figures (arena/tournament/stats/table_format.py)."""
    chosen = columns(solo, wide)
    return table(
        cells(rows, solo, wide),
        headers=[column.header for column in chosen],
        disable_numparse=True,  # the cells are formatted already
        colalign=["right" if column.numeric else "left" for column in chosen],
    )


def matches(
    ladder: LadderOption = None,
    db: DbOption = DEFAULT_DB,
    agent: Annotated[
        str | None, typer.Option("--agent", "-a", help="Only matches this agent played.")
    ] = None,
    faults: Annotated[bool, typer.Option("--faults", help="Only matches in which a seat forfeited.")] = False,
    status: Annotated[
        str | None,
        typer.Option("--status", help="Only matches in this status: pending, running, done or aborted."),
    ] = None,
    limit: Annotated[int | None, typer.Option("--limit", "-n", min=1, help="Show at most this many.")] = None,
) -> None:
    """List a ladder's matches in schedule order: seats, scores, ranks and faults.

    An aborted match shows why instead of its seats. The seeds of a ladder with a secret seed
    show as "secret" until every match of it is played.
    """

    def show() -> None:
        if status is not None and status not in STATUSES:
            raise ReportError(f"unknown status {status!r}; use one of: {', '.join(STATUSES)}")
        with _open_existing(db) as store:
            ladder_run = resolve_run(store, ladder)
            found = store.matches(
                ladder_run.id, statuses=(status,) if status else STATUSES, agent=agent, faults_only=faults
            )
            hidden = _seeds_hidden(store, ladder_run)
        if not found:  # a line saying so, not a bare header
            typer.echo(_none_found(ladder_run.name, faults, agent, status))
            return
        rows = [
            [
                m.idx,
                m.key,
                m.status,
                "secret" if hidden else m.seed,
                f"aborted: {m.reason}" if m.status == "aborted" else describe_seats(m),
                m.seconds,
            ]
            for m in found[:limit]
        ]
        headers = ["#", "match", "status", "seed", "seats: agent score (#rank)", "seconds"]
        say(table(rows, headers=headers, floatfmt=".2f", missingval="-"))
        if faults and not hidden:  # why each seat forfeited: the first line of its detail, whole
            with _open_existing(db) as store:
                whys = [(m.idx, _why(m, store.record(m.id))) for m in found[:limit]]
            say("\nwhy, the first line of each fault's detail (the whole record: `arena record N`):")
            for idx, why in whys:
                for line in why.splitlines():
                    say(f"  #{idx} {line}")

    _guard(show)


def _why(match: StoredMatch, record: dict | None) -> str:
    """Each forfeited seat's agent and the first line of its fault's detail, one per line."""
    lines = faults_by_seat(record)
    return "\n".join(
        f"{seat.agent}: {lines[seat.seat][1]}" for seat in match.seats if seat.fault and seat.seat in lines
    )


def _none_found(ladder: str, faults: bool, agent: str | None, status: str | None) -> str:
    """The line `arena matches` prints when nothing matches its filters."""
    what = "faults" if faults else "matches"
    for_agent = f" for agent {agent!r}" if agent else ""
    with_status = f" with status {status}" if status else ""
    return f"no {what} in ladder {ladder!r}{for_agent}{with_status}"


def head_to_head_command(
    a: Annotated[str, typer.Argument(metavar="A", help="First agent (its display name in the ladder).")],
    b: Annotated[str, typer.Argument(metavar="B", help="Second agent.")],
    ladder: Annotated[
        str | None,
        typer.Option(
            "--ladder",
            "-l",
            help="Only this ladder (name or .toml file); default: every ladder where both sat.",
        ),
    ] = None,
    db: DbOption = DEFAULT_DB,
) -> None:
    """Compare two agents over the matches where both sat: who finished ahead, mean scores.

    One table per ladder where they met (the latest run of each), or of --ladder alone. The
    score rate counts finishing ahead of the other as 1 and level as 1/2, with its 95%
    Wilson interval (docs/ratings.md).
    """

    def show() -> None:
        with _open_existing(db) as store:
            met = head_to_heads(store, a, b, ladder)
        for number, (ladder_run, h2h) in enumerate(met):
            if number:
                say("")
            say(f"{ladder_run.name}: {a} vs {b} in {h2h.matches} match(es)")
            rows = []
            for name, ahead, mean in ((a, h2h.a_ahead, h2h.a_mean_score), (b, h2h.b_ahead, h2h.b_mean_score)):
                rate, low, high = h2h.score_rate(name)
                rows.append(
                    [name, ahead, h2h.level, percent(rate), percent_interval(low, high), fixed(mean, ".2f")]
                )
            headers = ["agent", "ahead", "level", "score rate", "95% interval (Wilson)", "mean score"]
            say(table(rows, headers=headers))

    _guard(show)


def export(
    ladder: LadderOption = None,
    db: DbOption = DEFAULT_DB,
    fmt: Annotated[ExportFormat, typer.Option("--format", "-f", help="Output format.")] = ExportFormat.csv,
    output: OutputOption = None,
) -> None:
    """Export a ladder's results, one row per seat of every finished match, for analysis."""

    def write() -> None:
        with _open_existing(db) as store:
            ladder_run = resolve_run(store, ladder)
            rows = export_rows(store, ladder_run)
            if _seeds_hidden(store, ladder_run):
                rows = [dict(row, seed="secret") for row in rows]
        text = (
            json.dumps(rows, indent=1) + "\n" if fmt is ExportFormat.json else _csv(rows, list(EXPORT_FIELDS))
        )
        if _emit(text, output):
            typer.echo(f"wrote {len(rows)} rows to {output}", err=True)

    _guard(write)


def record(
    index: Annotated[int, typer.Argument(metavar="MATCH", help="The match's number (# in `arena matches`).")],
    ladder: LadderOption = None,
    db: DbOption = DEFAULT_DB,
    output: OutputOption = None,
) -> None:
    """Write a stored match's full record as JSON, e.g. for `arena replay FILE`."""

    def write() -> None:
        if not INT64[0] <= index <= INT64[1]:  # SQLite's integers are 64-bit
            raise ReportError(f"no match {index}: see the match numbers with `arena matches`")
        with _open_existing(db) as store:
            ladder_run = resolve_run(store, ladder)
            if _seeds_hidden(store, ladder_run):
                raise ReportError(
                    f"ladder {ladder_run.name!r} draws a secret seed: its records (which hold the deals) "
                    "are shown once every match of it is played"
                )
            data = store.record_at(ladder_run.id, index)
        if data is None:
            raise ReportError(f"match {index} of ladder {ladder_run.name!r} has no record (not played yet?)")
        text = json.dumps(data, indent=1) + "\n"
        _emit(text, output)

    _guard(write)


def doctor(db_arg: DbArg = None, db: DbOption = DEFAULT_DB) -> None:
    """Check a tournament database: SQLite integrity, schema version, every stored spec and record.

    Prints one line per problem with what to do, or OK; exit status 1 when a problem is found.
    The file is only read.
    """
    db = _either(db, db_arg, "--db", DEFAULT_DB)
    problems, summary = check_store(db)
    for line in problems:
        say(f"problem: {printable(line, newlines=False)}")
    if problems:
        raise typer.Exit(1)
    typer.echo(f"OK: {summary}")


def _emit(text: str, output: Path | None) -> bool:
    """Write ``text`` to ``output``, or to stdout when it is None; True when a file was written."""
    if output is None:
        sys.stdout.write(printable(text))  # a file gets the data as is; a terminal never a raw control
        return False
    if waits_for_a_reader(output):
        raise ReportError(f"cannot write {output}: it is not a regular file but a FIFO or socket")
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
    app.command()(doctor)
    app.add_typer(ladder_app, name="ladder")

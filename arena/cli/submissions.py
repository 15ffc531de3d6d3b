"""``arena submit`` and ``arena bots``: submitted bot packages, from received to active (docs/submissions.md).

Registered on the main typer app by ``arena/cli/main.py`` through ``register``.
"""

from __future__ import annotations

import getpass
import time
from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import fail, load_registry, say
from arena.submissions.store import STATES, Submission, SubmissionStore, submissions_folder
from arena.tournament.store.api import DEFAULT_DB, StoreError
from arena.tournament.store.opening import is_url

DbOption = Annotated[
    str,
    typer.Option(
        "--db",
        envvar="TLACHTLI_DB",
        help="The tournament's store; its submissions are kept beside a SQLite file, in $TLACHTLI_DATA "
        "for a postgresql:// one.",
        show_default=True,
    ),
]
# on `bots show` and `bots withdraw` too (`arena bots show 3 --db F`); given before, it is the group's
CommandDbOption = Annotated[str | None, typer.Option("--db", help="The tournament's store.")]
SubmitterOption = Annotated[
    str | None,
    typer.Option("--submitter", help="Who submits (owns the bot's name); default: your user name."),
]

bots_app = typer.Typer(
    help="Submitted bots: list them (the default), show one with its log, withdraw one.",
    no_args_is_help=False,
    invoke_without_command=True,
)


def _store(db: str) -> SubmissionStore:
    try:
        return SubmissionStore(submissions_folder(db))
    except StoreError as error:  # a PostgreSQL store without TLACHTLI_DATA
        raise fail(str(error)) from None


def _not_a_file(db: str) -> bool:
    """Whether ``db`` is a path to something other than a file (a folder, say)."""
    return not is_url(db) and Path(db).exists() and not Path(db).is_file()


def _submitter(given: str | None) -> str:
    name = given if given is not None else getpass.getuser()
    if not name.strip() or len(name) > 64 or not name.isprintable():
        raise fail(f"--submitter {name!r}: give a printable name of at most 64 characters")
    return name


def submit(
    package: Annotated[
        Path, typer.Argument(help="The bot package: a folder, .zip or .tar.gz with tlachtli.toml.")
    ],
    ladder_file: Annotated[
        Path | None, typer.Option("--ladder", "-l", help="The ladder file it enters (here).")
    ] = None,
    db: DbOption = DEFAULT_DB,
    submitter: SubmitterOption = None,
    server: Annotated[
        str | None,
        typer.Option("--server", metavar="URL", help="A competition server to upload to (with --token)."),
    ] = None,
    token: Annotated[
        str | None,
        typer.Option(
            "--token", envvar="TLACHTLI_TOKEN", help="Your API token on --server (or $TLACHTLI_TOKEN)."
        ),
    ] = None,
) -> None:
    """Submit a bot package to a ladder: checked, built and validated in the sandbox, then active.

    Nothing of the package runs outside the bwrap sandbox. Ends `active` (the next `arena run`
    plays its matches) or `rejected` with one line why (exit status 1); `arena bots show ID`
    shows its log. With --server and --token, the package is uploaded to a competition server
    (`arena serve --competition`), which runs the same steps on its ladder.
    """
    from arena.submissions.pipeline import submit as run_pipeline
    from arena.tournament.plan.ladder import LadderError, load_ladder
    from arena.tournament.plan.submission_limits import parse_limits

    if server is not None:
        _submit_remote(package, server, token)
        return
    if ladder_file is None:
        raise fail("give the ladder file it enters (--ladder LADDER), or a competition --server URL")
    who = _submitter(submitter)
    registry = load_registry()
    try:
        ladder = load_ladder(ladder_file, registry)
    except LadderError as error:
        raise fail(str(error)) from None
    if package.is_symlink() or not (package.is_dir() or package.is_file()):
        raise fail(f"{package} is not a folder, .zip or .tar.gz file holding tlachtli.toml (a bot package)")
    record = run_pipeline(
        package,
        ladder,
        parse_limits(ladder.submissions),
        _store(db),
        who,
        registry,
        say=lambda line: say(line, err=True),
    )
    if record.state != "active":
        raise fail(
            f"submission {record.id} rejected: {record.reason} (its log: arena bots show {record.id})", code=1
        )
    player = (
        "its running season takes it in within seconds"
        if ladder.format == "season"
        else f"`arena run {ladder_file}` plays its matches"
    )
    say(f"submission {record.id}: {record.name} {record.version} is active on {ladder.name!r}; {player}")


def check_package(package: Path, ladder_file: Path) -> None:
    """``arena check PACKAGE --ladder LADDER``: the pipeline of a submission to that ladder, in a
    temporary folder (nothing is kept): the same states, limits and validation games as a server's."""
    import tempfile

    from arena.submissions.environment import installed_packages, python_version
    from arena.submissions.pipeline import submit as run_pipeline
    from arena.submissions.store import SubmissionStore
    from arena.tournament.plan.ladder import LadderError, load_ladder
    from arena.tournament.plan.submission_limits import parse_limits

    registry = load_registry()
    try:
        ladder = load_ladder(ladder_file, registry)
    except LadderError as error:
        raise fail(str(error)) from None
    if package.is_symlink() or not (package.is_dir() or package.is_file()):
        raise fail(f"{package} is not a folder, .zip or .tar.gz file holding tlachtli.toml (a bot package)")
    say(
        f"python: {python_version()}; packages a bot can rely on: {len(installed_packages())} (`pip list`)",
        err=True,
    )
    with tempfile.TemporaryDirectory(prefix="arena-check-") as folder:
        store = SubmissionStore(Path(folder) / "submissions")
        record = run_pipeline(
            package,
            ladder,
            parse_limits(ladder.submissions),
            store,
            getpass.getuser(),
            registry,
            say=lambda line: say(line, err=True),
        )
        if record.state != "active":
            say(store.read_log(record.id).rstrip())
            raise fail(f"FAIL: it would be rejected: {record.reason}", code=1)
    say(f"PASS: {record.name} {record.version} would be active on {ladder.name!r}")


def _submit_remote(package: Path, server: str, token: str | None) -> None:
    from arena.cli.remote_submit import RemoteError, submit_remote

    if not token:
        raise fail(
            "--server needs your API token: --token TOKEN or $TLACHTLI_TOKEN (your account page makes one)"
        )
    if not server.startswith(("http://", "https://")):
        raise fail(f"--server {server!r}: give the competition's address, https://...")
    try:
        record = submit_remote(package, server, token, say=lambda line: say(line, err=True))
    except RemoteError as error:
        raise fail(str(error)) from None
    if record["state"] != "active":
        raise fail(f"submission {record['id']} {record['state']}: {record['reason']}", code=1)
    say(f"submission {record['id']}: {record['name']} {record['version']} is active on {record['ladder']!r}")


@bots_app.callback()
def bots(
    context: typer.Context,
    db: DbOption = DEFAULT_DB,
    ladder: Annotated[
        str | None, typer.Option("--ladder", "-l", help="Only this ladder's (its name).")
    ] = None,
    state: Annotated[str | None, typer.Option(help=f"Only those in this state: {', '.join(STATES)}.")] = None,
) -> None:
    """List the submissions (newest last): id, ladder, bot and version, submitter, state (and why)."""
    if _not_a_file(db):
        raise fail(f"--db {db} is not a database file")
    context.obj = db
    if context.invoked_subcommand is not None:
        return
    if state is not None and state not in STATES:
        raise fail(f"unknown state {state!r}; states: {', '.join(STATES)}")
    records = [
        r
        for r in _store(db).all()
        if (ladder is None or r.ladder == ladder) and (state is None or r.state == state)
    ]
    if not records:
        say(f"no submissions beside {db}" + (f" for ladder {ladder!r}" if ladder else ""))
        return
    for record in records:
        say(record.line())


def _db(context: typer.Context, given: str | None) -> str:
    """The database a subcommand reads beside: its own --db, else the group's."""
    if given is None:
        return context.obj
    if _not_a_file(given):
        raise fail(f"--db {given} is not a database file")
    return given


def _record(db: str, number: int) -> Submission:
    record = _store(db).get(number)
    if record is None:
        raise fail(f"no submission {number} beside {db} (see `arena bots`)")
    return record


@bots_app.command()
def show(
    context: typer.Context,
    number: Annotated[int, typer.Argument(metavar="ID", help="The submission's id (see `arena bots`).")],
    db: CommandDbOption = None,
) -> None:
    """One submission: its record and its whole log (the build's output, the validation games)."""
    db = _db(context, db)
    record = _record(db, number)
    received = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(record.received_at))
    say(record.line())
    say(f"received {received}, sha256 {record.sha256 or '-'}")
    say(_store(db).read_log(number).rstrip())


@bots_app.command()
def withdraw(
    context: typer.Context,
    number: Annotated[int, typer.Argument(metavar="ID", help="The submission's id (see `arena bots`).")],
    submitter: SubmitterOption = None,
    db: CommandDbOption = None,
) -> None:
    """Withdraw a submission: off its ladder at the next `arena run`, or within seconds from a running
    season (its matches played stay)."""
    from arena.submissions.pipeline import withdraw as withdraw_record

    db = _db(context, db)
    record = _record(db, number)
    if record.submitter != _submitter(submitter):
        raise fail(f"submission {number} is {record.submitter}'s; only they may withdraw it (--submitter)")
    if record.state in ("rejected", "withdrawn", "retired"):
        raise fail(f"submission {number} is {record.state} already")
    withdraw_record(_store(db), record)
    say(f"submission {number} withdrawn")


def register(app: typer.Typer) -> None:
    """Add ``arena submit`` and ``arena bots`` to ``app``."""
    app.command()(submit)
    app.add_typer(bots_app, name="bots")

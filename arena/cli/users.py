"""``arena users``: a competition's accounts and the operator's switches (docs/web.md,
*A public competition*). Registered on the main typer app by ``arena/cli/main.py``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from arena.cli.common import fail, say
from arena.tournament.store.api import DEFAULT_DB

if TYPE_CHECKING:
    from arena.accounts.store import SqliteAccounts

DbOption = Annotated[
    Path, typer.Option("--db", help="The tournament's database; its accounts are kept beside it.")
]

users_app = typer.Typer(
    help="A competition's accounts: add one (a one-time sign-in link), list, suspend, lock submissions.",
    no_args_is_help=True,
)


def _accounts(db: Path) -> SqliteAccounts:
    try:  # argon2 is the web extra's
        from arena.accounts.store import SqliteAccounts, accounts_folder
    except ImportError as error:
        raise fail(
            f"accounts need the web extra: pip install -e '.[web]' ({error.name} is missing)"
        ) from None
    if db.exists() and not db.is_file():
        raise fail(f"--db {db} is not a database file")
    return SqliteAccounts(accounts_folder(db))


@users_app.command()
def add(
    name: Annotated[str, typer.Argument(help="The account's name (lower case, a letter first).")],
    db: DbOption = Path(DEFAULT_DB),
    operator: Annotated[bool, typer.Option("--operator", help="An operator (suspends, locks).")] = False,
    url: Annotated[
        str, typer.Option("--url", help="The competition's address, to print the whole link.")
    ] = "http://127.0.0.1:8000",
) -> None:
    """Make an account and print its one-time sign-in link (good for a day): its owner opens it
    and chooses a password."""
    from arena.accounts.store import AccountError

    accounts = _accounts(db)
    try:
        accounts.add_user(name, role="operator" if operator else "player")
        link = accounts.sign_in_link(name)
    except AccountError as error:
        raise fail(str(error)) from None
    say(f"{name}: {url.rstrip('/')}/welcome/{link}")


@users_app.command()
def link(
    name: Annotated[str, typer.Argument(help="The account's name.")],
    db: DbOption = Path(DEFAULT_DB),
    url: Annotated[str, typer.Option("--url", help="The competition's address.")] = "http://127.0.0.1:8000",
) -> None:
    """A new one-time sign-in link for an account (a forgotten password): the old one stops working."""
    from arena.accounts.store import AccountError

    try:
        secret = _accounts(db).sign_in_link(name)
    except AccountError as error:
        raise fail(str(error)) from None
    say(f"{name}: {url.rstrip('/')}/welcome/{secret}")


@users_app.command("list")
def list_users(db: DbOption = Path(DEFAULT_DB)) -> None:
    """Every account: name, role, suspended, and whether it has a password yet."""
    accounts = _accounts(db)
    found = accounts.users()
    if not found:
        say(f"no accounts beside {db}")
    for user in found:
        marks = (
            [user.role]
            + (["suspended"] if user.suspended else [])
            + ([] if user.has_password else ["no password yet"])
        )
        say(f"{user.name}  {', '.join(marks)}")
    say("submissions: " + ("locked" if accounts.submissions_locked() else "open"))


def _switch(db: Path, action: str, name: str) -> None:
    from arena.accounts.store import AccountError
    from arena.submissions.store import SubmissionStore, submissions_folder
    from arena.web.competition.operator import set_bot_suspended

    accounts = _accounts(db)
    try:
        if action in ("suspend", "restore"):
            accounts.set_suspended(name, action == "suspend")
        else:
            taken = set_bot_suspended(
                accounts, SubmissionStore(submissions_folder(db)), name, action == "suspend-bot"
            )
            if taken:
                say(f"{taken} active version(s) of {name} withdrawn")
    except AccountError as error:
        raise fail(str(error)) from None
    say(f"{action}: {name}")


@users_app.command()
def suspend(
    name: Annotated[str, typer.Argument(help="The account.")], db: DbOption = Path(DEFAULT_DB)
) -> None:
    """Suspend an account: its sessions and API token end, it cannot sign in or upload."""
    _switch(db, "suspend", name)


@users_app.command()
def restore(
    name: Annotated[str, typer.Argument(help="The account.")], db: DbOption = Path(DEFAULT_DB)
) -> None:
    """Lift an account's suspension."""
    _switch(db, "restore", name)


@users_app.command("suspend-bot")
def suspend_bot(
    name: Annotated[str, typer.Argument(help="The bot's name.")], db: DbOption = Path(DEFAULT_DB)
) -> None:
    """Suspend a bot: its active versions are withdrawn (off the ladder at the next `arena run`)
    and no new version is admitted."""
    _switch(db, "suspend-bot", name)


@users_app.command("restore-bot")
def restore_bot(
    name: Annotated[str, typer.Argument(help="The bot's name.")], db: DbOption = Path(DEFAULT_DB)
) -> None:
    """Admit a suspended bot's new versions again (its withdrawn ones stay withdrawn)."""
    _switch(db, "restore-bot", name)


@users_app.command()
def lock(db: DbOption = Path(DEFAULT_DB)) -> None:
    """Lock submissions (the final phase): uploads are refused until `arena users unlock`."""
    _accounts(db).lock_submissions(True)
    say("submissions locked")


@users_app.command()
def unlock(db: DbOption = Path(DEFAULT_DB)) -> None:
    """Open submissions again."""
    _accounts(db).lock_submissions(False)
    say("submissions open")


def register(app: typer.Typer) -> None:
    """Add ``arena users`` to ``app``."""
    app.add_typer(users_app, name="users")

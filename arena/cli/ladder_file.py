"""``arena ladder add``: enter agents in a ladder file from the command line.

The ladder file stays the truth about a ladder: ``add`` appends an ``[[agents]]`` table per agent
to it (nothing else in the file changes) and checks the result as `arena run` would, so a
mistake leaves the file as it was. `arena run` then plays only the new matches
(docs/ladders.md, *Growing a ladder*).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import fail, load_registry
from arena.text.files import TextFileError, read_utf8
from arena.tournament.plan.growth import GrowthError, plan_roster, stored_roster
from arena.tournament.plan.ladder import MAX_LADDER_BYTES, Ladder, LadderError, parse_ladder
from arena.tournament.store.api import DEFAULT_DB, StoreError
from arena.tournament.store.opening import is_url, open_store

ladder_app = typer.Typer(help="Edit a ladder file: enter agents (see docs/ladders.md).", no_args_is_help=True)


def agents_table(entry: str) -> str:
    """The ``[[agents]]`` table for ``NAME=AGENT`` or ``AGENT`` (then named after the agent)."""
    name, _, agent = entry.rpartition("=")
    lines = ["", "[[agents]]"]
    if name:
        lines.append(f"name = {json.dumps(name)}")  # a JSON string is a TOML basic string
    lines.append(f"agent = {json.dumps(agent)}")
    return "\n".join(lines) + "\n"


def _check_roster(ladder: Ladder, db: str) -> None:
    """GrowthError if ``ladder``'s agents would not fit the roster its last run in ``db`` keeps
    (a retired name entered again as another agent or with other options); nothing without a run."""
    if not is_url(db) and not Path(db).is_file():
        return
    try:
        store = open_store(db, read_only=True)
    except StoreError:
        return  # not a readable store: `arena run` says so itself
    try:
        run = store.latest_run(ladder.name)
        if run is not None:
            plan_roster(stored_roster(store.config(run.id)), ladder)
    except StoreError:
        return
    finally:
        store.close()


@ladder_app.command()
def add(
    ladder_file: Annotated[
        Path, typer.Argument(metavar="LADDER", help="The ladder TOML file to add agents to.")
    ],
    agents: Annotated[
        list[str],
        typer.Argument(
            metavar="AGENT...",
            help="A plugin agent (`arena agents`) or a path to an executable, each optionally as NAME=AGENT "
            "to give its display name (default: the agent's name).",
        ),
    ],
    db: Annotated[
        str,
        typer.Option(
            "--db",
            envvar="TLACHTLI_DB",
            help="The store the ladder is run in (a file or postgresql://...): a name it retired is checked there.",
        ),
    ] = DEFAULT_DB,
) -> None:
    """Enter agents in a ladder: append them to its file; `arena run LADDER` then plays only their matches.

    Agent options are not taken here: write them in the file (`options = {...}`) if needed. A
    name the ladder retired may come back only as the same agent with the same options: another
    one under that name is refused here, as `arena run` would refuse it.
    """
    try:
        text = read_utf8(ladder_file, "ladder file", MAX_LADDER_BYTES)
    except TextFileError as error:
        raise fail(str(error)) from None
    grown = text + ("" if text.endswith("\n") or not text else "\n") + "".join(map(agents_table, agents))
    try:
        ladder = parse_ladder(
            grown, load_registry(), source=str(ladder_file), base_dir=ladder_file.resolve().parent
        )
        _check_roster(ladder, db)
    except (LadderError, GrowthError) as error:
        raise fail(f"{error} (after adding {', '.join(agents)}; the file is unchanged)") from None
    # written whole or not at all: a crash mid-write must not cut the ladder file short
    handle, temporary = tempfile.mkstemp(dir=ladder_file.resolve().parent, prefix=".ladder-", suffix=".toml")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(grown)
        os.chmod(temporary, os.stat(ladder_file).st_mode & 0o777)
        os.replace(temporary, ladder_file)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    typer.echo(
        f"added {len(agents)} agent(s) to {ladder_file}; `arena run {ladder_file}` plays their matches"
    )

"""Helpers shared by every ``arena`` command module: one-line errors, plugin discovery."""

from __future__ import annotations

import os
import tempfile
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import typer

from arena.registry.plugins import AgentSpec, PluginError, Registry, discover
from arena.text.files import data_problem, waits_for_a_reader
from arena.text.safe import printable
from engine.api import Game
from engine.options import BadOptions, check_value, convert, parse_value, unknown_message


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print one clear line on stderr and return the Exit to raise (a bot's or a file's text in it escaped)."""
    typer.echo(f"error: {printable(message, newlines=False)}", err=True)
    return typer.Exit(code)


TABLE_WIDTH = 100  # what a table fits by default; a command's --wide shows every column in full


def shortened(
    rows: list[list[Any]], headers: list[str], column: int, width: int = TABLE_WIDTH
) -> list[list[Any]]:
    """``rows`` with the text of ``column`` cut (ending "...") so that their table fits ``width``
    characters (measured as ``table`` lays it out)."""
    excess = max(map(len, table(rows, headers=headers).splitlines())) - width
    longest = max([len(str(headers[column]))] + [len(str(row[column])) for row in rows])
    room = max(len(headers[column]), longest - excess)
    return [
        [
            cell if i != column or len(str(cell)) <= room else str(cell)[: room - 3] + "..."
            for i, cell in enumerate(row)
        ]
        for row in rows
    ]


def table(rows: Any, headers: Any, **options: Any) -> str:
    """A text table (tabulate's), imported at first use: at the top it cost every command's start
    ~40 ms, most of which print none."""
    from tabulate import tabulate

    return tabulate(rows, headers=headers, **options)


def stderr_console() -> Any:
    """rich's console on stderr (progress bars, spinners), imported at first use (~40 ms)."""
    from rich.console import Console

    return Console(stderr=True)


def say(text: str, err: bool = False) -> None:
    """Print ``text`` that may hold what a bot or a record file wrote, every control shown escaped."""
    typer.echo(printable(text), err=err)


def load_registry() -> Registry:
    """Discover the plugins: one warning line per plugin that failed to load (skipped), one error
    line for what stops discovery (two plugins claiming one name)."""
    try:
        registry = discover()
    except PluginError as error:
        raise fail(str(error)) from None
    for problem in registry.broken:
        typer.echo(f"warning: {problem}; skipped", err=True)
    return registry


def check_output_path(path: Path, option: str) -> None:
    """Refuse an output file that cannot be written, before any work is done for it."""
    if path.is_dir():
        raise fail(f"{option} {path} is a folder; name a file in it")
    if waits_for_a_reader(path):
        raise fail(f"{option} {path} is not a regular file but a FIFO or socket; name a file")
    folder = path.parent
    if not folder.is_dir():
        raise fail(f"{option} {path}: folder {folder} does not exist; create it or name another file")
    if not os.access(folder, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise fail(f"{option} {path}: not writable here; name a file in a folder you can write")


def save_or_rescue(path: Path, text: str, what: str) -> str | None:
    """Write ``text`` to ``path``; if that fails, keep it in a temporary file instead of losing it.

    Returns None on success, else the error line to show (naming where the text went).
    """
    try:
        path.write_text(text, encoding="utf-8")
        return None
    except OSError as error:
        problem = error.strerror or str(error)
    fd, rescue = tempfile.mkstemp(prefix="tlachtli-", suffix=path.suffix or ".json")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    return f"cannot write {what} to {path} ({problem}); it was saved to {rescue} instead"


def parse_options(game: Game, pairs: list[str]) -> dict[str, Any]:
    """``k=v`` strings as game options, each value converted to the type the game's schema gives it."""
    schema = game.option_schema()
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep or not key:
            raise fail(f"--option {pair!r}: write it as key=value")
        try:  # an unknown key is kept as text: the game's setup refuses it, naming the nearest
            options[key] = convert(key, schema[key], text) if key in schema else text
        except BadOptions as error:
            raise fail(f"--option {pair!r}: {error}") from None
    return options


def parse_agent_value(text: str) -> Any:
    """An agent option's value: a TOML value where it is one (500, 0.5, true, "text"), else the
    text itself, so ``policy=evaluator`` needs no quotes; the agent checks its own options."""
    try:
        value = tomllib.loads(f"value = {text}")["value"]
    except tomllib.TOMLDecodeError:
        return text
    except RecursionError:
        raise fail(f"agent option value {text:.40}... is nested too deeply") from None
    problem = data_problem(value)  # a TOML date cannot be sent to a bot; nor 2**70
    if problem:
        raise fail(f"agent option value {text:.60}: {problem}")
    return value


def declared_agent_value(agent: AgentSpec | None, key: str, text: str, where: str) -> Any:
    """Option ``key``'s ``text`` for ``agent``: where it declares its options, the declared type
    (a TOML value of that type, else the text converted) checked against its declaration, one
    ``error:`` line naming the agent, the option and the nearest declared name otherwise; where
    it declares none (or is an executable's path), the TOML value unchecked."""
    value = parse_agent_value(text)
    if agent is None or agent.options is None:
        return value
    declared = agent.options.get(key)
    try:
        if declared is None:
            raise BadOptions(unknown_message(key, agent.options))
        if declared["type"] == "str" and not isinstance(value, str):
            value = text  # policy=007 is the word as typed
        elif isinstance(value, str):
            value = parse_value(key, declared, text)
        check_value(key, declared, value)
    except BadOptions as error:
        raise fail(f"{where}: agent {agent.name!r}: {error} (see `arena agents {agent.name}`)") from None
    return value


def parse_agent_settings(pairs: list[str], flag: str, agent: AgentSpec | None = None) -> dict[str, Any]:
    """``key=value`` strings given with ``flag`` as one agent's options (checked against the
    options ``agent`` declares, if given)."""
    options: dict[str, Any] = {}
    for pair in pairs:
        key, equals, text = pair.partition("=")
        if not equals or not key.strip():
            raise fail(f"{flag} {pair!r}: write it as key=value, e.g. time_ms=500")
        options[key.strip()] = declared_agent_value(agent, key.strip(), text, f"{flag} {pair!r}")
    return options


def parse_agent_options(
    pairs: list[str], seats: int, agents: Sequence[AgentSpec | None] = ()
) -> tuple[dict[str, Any], ...]:
    """``seat:key=value`` strings as per-seat agent options (``()`` when there are none), each
    checked against the options its seat's agent declares (``agents``, by seat; None: unchecked)."""
    if not pairs:
        return ()
    options: list[dict[str, Any]] = [{} for _ in range(seats)]
    for pair in pairs:
        seat_text, colon, setting = pair.partition(":")
        key, equals, text = setting.partition("=")
        if not colon or not equals or not key.strip():
            raise fail(f"--agent-option {pair!r}: write it as SEAT:key=value, e.g. 0:time_ms=500")
        if not seat_text.isdigit() or int(seat_text) >= seats:
            raise fail(
                f"--agent-option {pair!r}: the seat must be 0-{seats - 1} (the agents' seats, in --agent order)"
            )
        seat = int(seat_text)
        agent = agents[seat] if seat < len(agents) else None
        options[seat][key.strip()] = declared_agent_value(
            agent, key.strip(), text, f"--agent-option {pair!r}"
        )
    return tuple(options)


_SANDBOXES = "Where bots run: 'bwrap' (bubblewrap sandbox) or 'none' (trusted bots)"
SANDBOX_HELP = f"{_SANDBOXES}; default: $TLACHTLI_SANDBOX, else the ladder's, else bwrap where it works."
MATCH_SANDBOX_HELP = f"{_SANDBOXES}; default: $TLACHTLI_SANDBOX, else bwrap where it works."


def use_sandbox(choice: str | None, ladder_choice: str | None = None) -> str:
    """Put ``--sandbox`` in force for this process and its workers; the sandbox in force (a bad one: fail)."""
    from arena.process.sandbox import SANDBOX_ENV, SandboxError, choose_sandbox

    try:
        if choice is not None:
            os.environ[SANDBOX_ENV] = choice
        return choose_sandbox(ladder_choice)
    except SandboxError as error:
        raise fail(str(error)) from None


def announce_sandbox(sandbox: str, always: bool = False) -> None:
    """Warn in bold when bots run unsandboxed for want of bubblewrap; else, if ``always``, name the sandbox."""
    from arena.process.sandbox import bwrap_works

    if sandbox == "none" and not bwrap_works():
        typer.secho(
            "warning: bubblewrap (bwrap) cannot run here, so bots run unsandboxed as your user: "
            "run only bots you trust (docs/security.md)",
            bold=True,
            err=True,
        )
    elif always:
        typer.echo(f"sandbox: {sandbox}", err=True)

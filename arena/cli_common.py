"""Helpers shared by every ``arena`` command module: one-line errors, plugin discovery."""

from __future__ import annotations

import typer

from arena.plugins import PluginError, Registry, discover


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print one clear line on stderr and return the Exit to raise."""
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code)


def load_registry() -> Registry:
    """Discover the plugins, turning a broken plugin into one clear error line."""
    try:
        return discover()
    except PluginError as error:
        raise fail(str(error)) from None


SANDBOX_HELP = "Where bots run: 'bwrap' (bubblewrap sandbox) or 'none' (trusted bots); default: the ladder's, else the strongest available."


def use_sandbox(choice: str | None, ladder_choice: str | None = None) -> str:
    """Put ``--sandbox`` in force for this process and its workers; the sandbox in force (a bad one: fail)."""
    import os

    from arena.sandbox import SANDBOX_ENV, SandboxError, choose_sandbox

    try:
        if choice is not None:
            os.environ[SANDBOX_ENV] = choice
        return choose_sandbox(ladder_choice)
    except SandboxError as error:
        raise fail(str(error)) from None


def announce_sandbox(sandbox: str, always: bool = False) -> None:
    """Warn in bold when bots run unsandboxed for want of bubblewrap; else, if ``always``, name the sandbox."""
    from arena.sandbox import bwrap_works

    if sandbox == "none" and not bwrap_works():
        typer.secho(
            "warning: bubblewrap (bwrap) cannot run here, so bots run unsandboxed as your user: "
            "run only bots you trust (docs/security.md)",
            bold=True,
            err=True,
        )
    elif always:
        typer.echo(f"sandbox: {sandbox}", err=True)

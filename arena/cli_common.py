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


def use_sandbox(choice: str | None, ladder_choice: str | None = None, announce: bool = False) -> str:
    """Put ``--sandbox`` in force for this process and its workers; the sandbox in force.

    Warns once, in bold, when bots run without a sandbox because bubblewrap cannot run here.
    """
    import os

    from arena.sandbox import SANDBOX_ENV, SandboxError, bwrap_works, choose_sandbox

    try:
        if choice is not None:
            os.environ[SANDBOX_ENV] = choice
        sandbox = choose_sandbox(ladder_choice)
    except SandboxError as error:
        raise fail(str(error)) from None
    if sandbox == "none" and not bwrap_works():
        typer.secho(
            "warning: bubblewrap (bwrap) cannot run here, so bots run unsandboxed as your user: "
            "run only bots you trust (docs/security.md)",
            bold=True,
            err=True,
        )
    elif announce:
        typer.echo(f"sandbox: {sandbox}", err=True)
    return sandbox

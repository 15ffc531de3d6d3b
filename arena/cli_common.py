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

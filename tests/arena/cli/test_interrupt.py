"""Ctrl-C at any moment of an `arena` command: one line and exit status 130, never a traceback.

(The commands that run agents say more: tests/arena/cli/test_cli_match.py. A Ctrl-C before the
interpreter has even imported its own site module is Python's, out of any program's reach.)
"""

from __future__ import annotations

import sys
import types

import pytest
import typer

from arena.cli import entry


def fake_cli(monkeypatch: pytest.MonkeyPatch, app: typer.Typer | None = None) -> None:
    """Stand in for arena.cli.main: an app, or an import that is interrupted."""
    module = types.ModuleType("arena.cli.main")
    if app is None:

        def __getattr__(name: str):
            raise KeyboardInterrupt  # Ctrl-C while the commands are being imported

        module.__getattr__ = __getattr__
    else:
        module.app = app
    monkeypatch.setitem(sys.modules, "arena.cli.main", module)


def run_entry(monkeypatch: pytest.MonkeyPatch, capsys, app: typer.Typer | None = None) -> tuple[int, str]:
    """arena's console entry over a stand-in app: its exit status and what it wrote on stderr."""
    fake_cli(monkeypatch, app)
    monkeypatch.setattr(sys, "argv", ["arena"])
    with pytest.raises(SystemExit) as done:
        entry.main()
    return done.value.code, capsys.readouterr().err


def test_ctrl_c_while_the_commands_are_imported(monkeypatch, capsys):
    assert run_entry(monkeypatch, capsys) == (130, "error: interrupted (Ctrl-C)\n")


def test_ctrl_c_escaping_a_command_is_said_not_silent(monkeypatch, capsys):
    app = typer.Typer()

    @app.command()
    def work() -> None:
        raise KeyboardInterrupt

    assert run_entry(monkeypatch, capsys, app) == (130, "error: interrupted (Ctrl-C)\n")


def test_a_command_that_says_its_own_interruption_is_not_said_twice(monkeypatch, capsys):
    app = typer.Typer()

    @app.command()
    def work() -> None:
        typer.echo("error: interrupted; every agent process was stopped", err=True)
        raise typer.Exit(130)

    said = "error: interrupted; every agent process was stopped\n"
    assert run_entry(monkeypatch, capsys, app) == (130, said)

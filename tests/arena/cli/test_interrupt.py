"""Ctrl-C at any moment of an `arena` command: one line and exit status 130, never a traceback."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
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


def test_ctrl_c_while_the_commands_are_imported(monkeypatch, capsys):
    fake_cli(monkeypatch)
    with pytest.raises(SystemExit) as done:
        entry.main()
    assert done.value.code == 130
    assert capsys.readouterr().err == "error: interrupted (Ctrl-C)\n"


def test_ctrl_c_escaping_a_command_is_said_not_silent(monkeypatch, capsys):
    app = typer.Typer()

    @app.command()
    def work() -> None:
        raise KeyboardInterrupt

    fake_cli(monkeypatch, app)
    monkeypatch.setattr(sys, "argv", ["arena"])
    with pytest.raises(SystemExit) as done:
        entry.main()
    assert done.value.code == 130
    assert capsys.readouterr().err == "error: interrupted (Ctrl-C)\n"


def test_a_command_that_says_its_own_interruption_is_not_said_twice(monkeypatch, capsys):
    app = typer.Typer()

    @app.command()
    def work() -> None:
        typer.echo("error: interrupted; every agent process was stopped", err=True)
        raise typer.Exit(130)

    fake_cli(monkeypatch, app)
    monkeypatch.setattr(sys, "argv", ["arena"])
    with pytest.raises(SystemExit) as done:
        entry.main()
    assert done.value.code == 130
    assert capsys.readouterr().err == "error: interrupted; every agent process was stopped\n"


@pytest.mark.parametrize("delay", [0.05, 0.3, 0.6, 1.0])
def test_ctrl_c_at_any_moment_of_a_real_command(delay, popen):
    proc = popen([sys.executable, "-m", "arena.cli", "games"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                 text=True)  # fmt: skip
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert "Traceback" not in err, err
    # finished first (0), interrupted (130), or killed before Python could handle it (-2)
    assert proc.returncode in (0, 130, -signal.SIGINT), err
    if proc.returncode == 130:
        assert err == "error: interrupted (Ctrl-C)\n"

"""Ctrl-C at any moment of an `arena` command: one line and exit status 130, never a traceback.

(The commands that run agents say more: tests/arena/cli/test_cli_match.py. A Ctrl-C before the
interpreter has even imported its own site module is Python's, out of any program's reach.)
"""

from __future__ import annotations

import subprocess
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


# A stand-in for arena.cli.main whose import is interrupted by Ctrl-C, and interrupted again while
# that first interruption unwinds: the module's finaliser runs then (as importlib's own module-lock
# callbacks do), where Python can only print an exception ("Exception ignored in ... Traceback").
CTRL_C_TWICE_DURING_IMPORT = """
import importlib.abc, importlib.util, os, signal, sys

class Second:
    def __del__(self):
        os.kill(os.getpid(), signal.SIGINT)
        sum(range(1000))  # bytecode after the signal, where a handler would raise

class Loader(importlib.abc.Loader):
    def create_module(self, spec):
        return None
    def exec_module(self, module):
        module.second = Second()
        os.kill(os.getpid(), signal.SIGINT)
        sum(range(1000))

class Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "arena.cli.main":
            return importlib.util.spec_from_loader(name, Loader())

sys.meta_path.insert(0, Finder())
from arena.cli.entry import main
main()
"""


def test_ctrl_c_twice_while_the_commands_are_imported_is_one_line(tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", CTRL_C_TWICE_DURING_IMPORT], capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stderr) == (130, "error: interrupted (Ctrl-C)\n")


def test_after_the_imports_ctrl_c_is_pythons_again():
    """The commands that run trio need Python's own handler: trio takes over SIGINT only from that one."""
    script = (
        "import signal; from arena.cli import entry; entry._import_app(); "
        "print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "True", done.stderr

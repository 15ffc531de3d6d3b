"""Every `arena` command meets hostile input with one clear line, never a
traceback or a hang: nesting thousands deep, 2**70, TOML dates, a FIFO or /dev/zero given as a
file, files too big, folders it cannot write.

Inputs that could hang (a FIFO, a device, a huge file) run in a process of their own under a
timeout (forked from one driver: tests/support/forked_cli.py); the rest in process with typer's CliRunner. ``test_every_command_is_fed_hostile_input`` keeps the
list complete: a new command must get its cases here.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main
from typer.testing import CliRunner

from arena.cli.main import app
from tests.support.forked_cli import run_forked

ROOT = Path(__file__).resolve().parents[3]
# one worker under xdist: the store of ``inputs`` and the forked commands' one run are made once
pytestmark = pytest.mark.xdist_group("hostile-input")
BIG = str(2**70)
HANG_S = 60  # far above any answer here (about a second); a hang is killed and fails the test
NO_INPUT = {"agents"}  # takes no argument or file at all

GOOD_LADDER = """\
name = "good"
game = "goofspiel"
seed = 1
[options]
cards = 3
[[agents]]
name = "r1"
agent = "random"
[[agents]]
name = "r2"
agent = "random"
"""
AGENTS = '[[agents]]\nagent = "random"\n[[agents]]\nagent = "random"\nname = "b"\n'


def ladder(body: str) -> str:
    return f'name = "x"\ngame = "goofspiel"\nseed = 1\n{body}'


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Every hostile file, and a real store to point the read commands at."""
    folder = tmp_path_factory.mktemp("hostile")
    files = {
        "deep.toml": ladder("a = " + "[" * 5000 + "]" * 5000 + "\n" + AGENTS),
        "deep40.toml": ladder("a = " + "[" * 40 + "]" * 40 + "\n" + AGENTS),
        "deep_options.toml": ladder(AGENTS + "options = " + "{a=" * 3000 + "1" + "}" * 3000 + "\n"),
        "bigseed.toml": ladder(AGENTS).replace("seed = 1", f"seed = {BIG}"),
        "bigclock.toml": ladder(f"[clock]\nmove_ms = {BIG}\n" + AGENTS),
        "date.toml": ladder(AGENTS.replace('name = "b"', 'name = "b"\noptions = { d = 1979-05-27 }')),
        "deep.json": "[" * 100_000 + "]" * 100_000,
        "deep40.json": '{"format": "tlachtli-match", "x": ' + "[" * 40 + "]" * 40 + "}",
        "good.toml": GOOD_LADDER,
    }
    found = {}
    for name, text in files.items():
        (folder / name).write_text(text)
        found[name] = str(folder / name)
    os.mkfifo(folder / "fifo")
    found["fifo"] = str(folder / "fifo")
    (folder / "planted").mkdir()  # a certificate folder with a link planted where a key would go
    os.symlink(folder / "elsewhere", folder / "planted" / "worker-key.pem")
    found["planted"] = str(folder / "planted")
    for name, size in (("huge.json", 65 * 1024 * 1024), ("huge.toml", 2 * 1024 * 1024)):
        with open(folder / name, "wb") as handle:
            handle.truncate(size)  # sparse: costs no disk
        found[name] = str(folder / name)
    found["db"] = str(folder / "t.db")
    found["new_db"] = str(folder / "new.db")
    with pytest.MonkeyPatch.context() as patch:  # conftest's plugin setting is per test
        patch.setenv("TLACHTLI_PLUGINS", "examples.games.goofspiel.game")
        patch.setenv("PYTHONPATH", str(ROOT))
        ran = subprocess.run(
            [sys.executable, "-m", "arena.cli", "run", found["good.toml"], "--db", found["db"], "--quiet"],
            capture_output=True,
            text=True,
            timeout=240,
        )
    assert ran.returncode == 0, ran.stderr
    return found


PLAY = ["play", "-g", "goofspiel", "-a", "random", "-a", "random", "--seed", "1"]
COMPARE = ["compare", "random", "prize-bidder", "-g", "goofspiel", "--max-deals", "1"]

# (command, argv with {placeholders} from ``inputs``, what the one line must say); run in process.
IN_PROCESS = [
    ("games", ["games", "\x1b[2J" + "x" * 10_000], "unknown game"),
    ("play", [*PLAY, "-O", "0:d=1979-05-27"], "is not allowed here"),
    ("play", [*PLAY, "-O", "0:x=" + "[" * 5000 + "]" * 5000], "nested too deeply"),
    ("play", [*PLAY, "-O", "0:x=" + "[" * 40 + "]" * 40], "nested more than 32 deep"),
    ("play", [*PLAY, "-O", f"0:x={BIG}"], "out of range"),
    ("replay", ["replay", "{deep.json}"], "nested too deeply"),
    ("replay", ["replay", "{deep40.json}"], "nested more than 40 deep"),
    ("replay", ["replay", "/proc/x/record.json"], "cannot read match record"),
    ("check", ["check", "/proc/x/bot"], "no such file"),
    ("new-bot", ["new-bot", "x-bot", "--dir", "/proc/x"], "cannot write /proc/x"),
    ("run", ["run", "{deep.toml}", "--db", "{new_db}"], "nested more than 32 deep"),
    ("run", ["run", "{deep40.toml}", "--db", "{new_db}"], "nested more than 32 deep at a"),
    ("run", ["run", "{deep_options.toml}", "--db", "{new_db}"], "nested more than 32 deep"),
    ("run", ["run", "{bigseed.toml}", "--db", "{new_db}"], "out of range"),
    ("run", ["run", "{bigclock.toml}", "--db", "{new_db}"], "clock.move_ms is out of range"),
    ("run", ["run", "{date.toml}", "--db", "{new_db}"], "a date at agents[1].options.d"),
    ("leaderboard", ["leaderboard", "{deep.toml}", "--db", "{db}"], "nested too deeply"),
    ("leaderboard", ["leaderboard", "--db", "{deep.json}"], "cannot open"),
    ("matches", ["matches", "-l", "{deep.toml}", "--db", "{db}"], "nested too deeply"),
    ("head-to-head", ["head-to-head", "r1", "r2", "-l", "{deep.toml}", "--db", "{db}"], "nested too deeply"),
    ("export", ["export", "-l", "{deep.toml}", "--db", "{db}"], "nested too deeply"),
    ("record", ["record", BIG, "--db", "{db}"], "no match " + BIG),
    ("doctor", ["doctor", "{deep.json}"], "problem:"),
    ("compare", [*COMPARE, "--seed", BIG, "--db", "{new_db}"], "--seed"),
    ("compare", [*COMPARE, "--new-option", "d=1979-05-27", "--db", "{new_db}"], "is not allowed here"),
    ("serve", ["serve", "--db", "{deep.json}"], "cannot open"),
    ("ladder", ["ladder", "add", "{deep.toml}", "random"], "nested more than 32 deep"),
    ("ladder", ["ladder", "add", "{date.toml}", "random"], "a date at agents[1].options.d"),
    ("cluster", ["cluster", "init", "/proc/x"], "cannot create /proc/x"),
    ("cluster", ["cluster", "init", "{planted}"], "already holds cluster certificates (worker-key.pem)"),
    (
        "submit",
        ["submit", "{good.toml}", "--ladder", "{deep.toml}", "--db", "{new_db}"],
        "nested more than 32 deep",
    ),
    ("bots", ["bots", "--db", "{db}", "show", BIG], "no submission " + BIG),
    ("season", ["season", "start", "{fifo}", "--db", "{new_db}"], "not a regular file"),
    ("season", ["season", "start", "{huge.toml}", "--db", "{new_db}"], "too big for a ladder file"),
    ("season", ["season", "status", "\x1b[2J" + "x" * 10_000, "--db", "{db}"], "no season named"),
    ("season", ["season", "final", "good", "--db", "{db}"], "is not a season"),
    ("users", ["users", "add", "\x1b[2J" + "x" * 10_000, "--db", "{db}"], "a user name is"),
    ("users", ["users", "list", "--db", "{fifo}"], "not a database file"),
]

# The same, where the old code hung or read until memory ran out: a subprocess under a timeout.
SUBPROCESS = [
    ("play", [*PLAY, "--record", "{fifo}"], "not a regular file"),
    ("replay", ["replay", "{fifo}"], "not a regular file"),
    ("replay", ["replay", "/dev/zero"], "not a regular file"),
    ("replay", ["replay", "{huge.json}"], "over 64 MiB"),
    ("check", ["check", "{fifo}"], "a path must name an executable"),
    ("new-bot", ["new-bot", "x-bot", "--dir", "{fifo}"], "not an empty directory"),
    ("run", ["run", "{fifo}", "--db", "{new_db}"], "not a regular file"),
    ("run", ["run", "/dev/zero", "--db", "{new_db}"], "not a regular file"),
    ("run", ["run", "{huge.toml}", "--db", "{new_db}"], "over 1 MiB"),
    ("ladder", ["ladder", "add", "{fifo}", "random"], "not a regular file"),
    ("ladder", ["ladder", "add", "/dev/zero", "random"], "not a regular file"),
    ("ladder", ["ladder", "add", "{huge.toml}", "random"], "over 1 MiB"),
    ("run", ["run", "{good.toml}", "--db", "{fifo}"], "cannot open"),
    ("run", ["run", "{good.toml}", "--db", "/dev/zero"], "cannot open"),
    ("leaderboard", ["leaderboard", "--db", "{fifo}"], "no database at"),
    ("matches", ["matches", "--db", "/dev/zero"], "no database at"),
    ("head-to-head", ["head-to-head", "r1", "r2", "--db", "{fifo}"], "no database at"),
    ("export", ["export", "--db", "{db}", "-o", "{fifo}"], "not a regular file"),
    ("record", ["record", "0", "--db", "{db}", "-o", "{fifo}"], "not a regular file"),
    ("doctor", ["doctor", "{fifo}"], "problem:"),
    ("compare", [*COMPARE, "--db", "{fifo}"], "cannot open"),
    ("serve", ["serve", "--db", "{fifo}"], "no database at"),
    ("submit", ["submit", "{fifo}", "--ladder", "{good.toml}", "--db", "{new_db}"], "not a folder, .zip"),
    ("submit", ["submit", "/dev/zero", "--ladder", "{good.toml}", "--db", "{new_db}"], "not a folder, .zip"),
    ("submit", ["submit", "{good.toml}", "--ladder", "{fifo}", "--db", "{new_db}"], "not a regular file"),
    ("bots", ["bots", "--db", "{fifo}"], "not a database file"),
    ("serve", ["serve", "--db", "/dev/zero"], "no database at"),
    ("db", ["db", "upgrade", "{fifo}"], "no database at"),
    ("db", ["db", "upgrade", "{deep.json}"], "cannot open"),
    ("db", ["db", "copy", "{deep.json}", "{new_db}"], "cannot copy"),
    ("db", ["db", "copy", "{db}", "{fifo}"], "cannot copy"),
]


def filled(argv: list[str], inputs: dict[str, str]) -> list[str]:
    return [inputs[arg[1:-1]] if arg.startswith("{") and arg.endswith("}") else arg for arg in argv]


def one_line(code: int, stdout: str, stderr: str, expected: str) -> None:
    """Refused: exit status != 0, one line (an error: line, or doctor's problem: line), no traceback."""
    assert code != 0, (stdout, stderr)
    assert "Traceback" not in stdout + stderr
    text = stderr if stderr.strip() else stdout
    lines = text.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(("error: ", "problem: ")), text[-2000:]
    assert expected in lines[0], lines[0][:500]


def test_every_command_is_fed_hostile_input():
    commands = set(typer.main.get_command(app).commands)
    fed = {command for command, _, _ in IN_PROCESS + SUBPROCESS}
    assert commands - NO_INPUT == fed, commands ^ (fed | NO_INPUT)


@pytest.mark.parametrize(("command", "argv", "expected"), IN_PROCESS, ids=lambda v: str(v)[:40])
def test_hostile_input_in_process(inputs, command, argv, expected):
    result = CliRunner().invoke(app, filled(argv, inputs))
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    one_line(result.exit_code, result.stdout, result.stderr, expected)


@pytest.fixture(scope="module")
def hang_results() -> dict[str, subprocess.CompletedProcess[str] | None]:
    """SUBPROCESS's commands, each in a process of its own under HANG_S, all from one start-up
    (tests/support/forked_cli.py): run at the first test that asks (under conftest's plugins), by
    the argv as filled in, None for one that hung (killed)."""
    return {}


@pytest.mark.parametrize(("command", "argv", "expected"), SUBPROCESS, ids=lambda v: str(v)[:40])
def test_hostile_input_that_could_hang(inputs, hang_results, command, argv, expected):
    if not hang_results:  # once per module; the driver and its children have ended when it returns
        cases = [filled(case, inputs) for _, case, _ in SUBPROCESS]
        hang_results.update(zip(map(" ".join, cases), run_forked(cases, HANG_S), strict=True))
    result = hang_results[" ".join(filled(argv, inputs))]
    assert result is not None, f"hung: still running after {HANG_S} s"
    one_line(result.returncode, result.stdout, result.stderr, expected)

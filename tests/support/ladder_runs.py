"""Running `arena run` on the goofspiel test ladder and reading what it stored (shared by the
tournament and stress tests)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests.support import cli
from tests.support.processes import processes_tagged

LADDER = """\
name = "goof-{tag}"
game = "goofspiel"
players = 2
matches_per_pairing = {repeats}
seed = 11

[options]
cards = 10

[[agents]]
name = "rand-1"
agent = "random"
options = {{ seed = 1 }}

[[agents]]
name = "rand-2"
agent = "random"
options = {{ seed = 2 }}

[[agents]]
name = "bidder"
agent = "prize-bidder"
options = {{ pace_ms = {pace_ms} }}
"""


def write_ladder(
    tmp_path: Path, repeats: int, tag: str = "t", pace_ms: int = 0, handshake_ms: int | None = None
) -> Path:
    """The test ladder; ``pace_ms`` slows the bidder, so that a run is still going when interrupted;
    ``handshake_ms`` (default the ladder's 10 s) is the time an agent has to start."""
    path = tmp_path / f"ladder-{tag}.toml"
    clock = "" if handshake_ms is None else f"\n[clock]\nhandshake_ms = {handshake_ms}\n"
    path.write_text(LADDER.format(repeats=repeats, tag=tag, pace_ms=pace_ms) + clock)
    return path


def arena(*args: str, env: dict | None = None, check: bool = True) -> subprocess.CompletedProcess:
    result = cli.arena(*args, env=env)  # the read commands in this process: tests/support/cli.py
    if check:
        assert result.returncode == 0, result.stderr
    return result


def start(popen, *args: str, env: dict) -> subprocess.Popen:
    """`arena ARGS` in the background, through the ``popen`` fixture (ended with the test)."""
    return popen(
        [sys.executable, "-m", "arena.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def statuses(db: Path | str) -> dict[str, int]:
    """How many matches have each status ({} before the database or its tables exist)."""
    return dict(_rows(db, "SELECT status, COUNT(*) FROM matches GROUP BY status"))


def done_count(db: Path | str) -> int:
    rows = _rows(db, "SELECT COUNT(*) FROM matches WHERE status = 'done'")
    return rows[0][0] if rows else 0


def wait_for_done(db: Path | str, count: int, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 120
    while done_count(db) < count:
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the run made no progress"
        time.sleep(0.05)


def tagged_env(tag: str) -> dict:
    """The test's environment plus a marker every descendant inherits, to find leftovers."""
    return {**os.environ, "TLACHTLI_TEST_RUN": tag}


def killable_env(tag: str, request: pytest.FixtureRequest) -> dict:
    """``tagged_env`` for a run the test kills with -9. The run removes its multiprocessing folder
    (the fork server's socket) at its own exit, which kill -9 skips: TMPDIR here is a folder of the
    test's, removed at its end (a short one: pytest's tmp_path can make a socket path longer than
    the 108 bytes allowed)."""
    folder = tempfile.TemporaryDirectory(prefix="kill9-")
    request.addfinalizer(folder.cleanup)
    return {**tagged_env(tag), "TMPDIR": folder.name}


def processes_with(tag: str) -> list[int]:
    """Live processes whose environment holds the marker (agents, workers, the run itself)."""
    return processes_tagged(tag, "TLACHTLI_TEST_RUN")


def wait_no_processes(tag: str) -> list[int]:
    deadline = time.monotonic() + 15
    while (left := processes_with(tag)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


def table(db: Path | str, ladder: Path) -> list[dict]:
    return json.loads(arena("leaderboard", str(ladder), "--db", str(db), "--format", "json").stdout)


def _rows(db: Path | str, query: str) -> list[tuple]:
    """The rows of ``query`` on a SQLite file or a PostgreSQL URL, read directly (not through the
    store under test); [] before the file or its tables exist."""
    if str(db).startswith("postgresql://"):
        import psycopg

        with psycopg.connect(str(db), autocommit=True) as connection:
            return connection.execute(query).fetchall()  # type: ignore[arg-type]
    if not Path(db).exists():
        return []
    connection = sqlite3.connect(db, timeout=10)
    try:
        return connection.execute(query).fetchall()
    except sqlite3.OperationalError:  # interrupted before the tables existed
        return []
    finally:
        connection.close()


def count(db: Path | str, query: str) -> tuple:
    """The one row of a counting ``query``."""
    return tuple(_rows(db, query)[0])


def faults(db: Path | str) -> list[tuple]:
    """Every stored fault as (match index, seat, agent, fault): what an assertion shows when it fails."""
    return _rows(
        db,
        "SELECT m.idx, s.seat, s.agent, s.fault FROM seats s JOIN matches m ON m.id = s.match_id "
        "WHERE s.fault IS NOT NULL ORDER BY m.idx, s.seat",
    )


def stored(db: Path | str) -> dict[int, tuple]:
    """Per schedule index: the seats and the compressed record stored for it."""
    seats: dict[int, list[str]] = {}
    for idx, agent, score, rank in _rows(
        db,
        "SELECT m.idx, s.agent, s.score, s.rank FROM seats s JOIN matches m ON m.id = s.match_id ORDER BY m.idx, s.seat",
    ):
        seats.setdefault(idx, []).append(f"{agent}:{score}:{rank}")
    rows = _rows(db, "SELECT m.idx, r.data FROM matches m JOIN records r ON r.match_id = m.id")
    return {idx: (" ".join(seats.get(idx, [])), bytes(data)) for idx, data in rows}


# matches of ~4 s (the bidder waits 400 ms per card): for the watchdog's wall-clock bound
SLOW = """\
name = "slow"
game = "goofspiel"
[options]
cards = 10
[clock]
move_ms = 5000
[[agents]]
name = "slow"
agent = "prize-bidder"
options = { pace_ms = 400 }
[[agents]]
name = "rand"
agent = "random"
"""


_ATTACK = """\
name = "attack"
game = "goofspiel"
seed = 5
# no sandbox: under bwrap the attacker cannot see its referee (tests/arena/process/test_sandbox.py); here the
# watchdog, the second line of defence, must handle a referee that is killed or stopped
sandbox = "none"
# the attacker must live to attack: its start once took over the default 10 s on a loaded machine
# (a CI run), and it forfeited at its handshake instead
[clock]
handshake_ms = 60000
[options]
cards = 5
[[agents]]
name = "attacker"
agent = "{attacker}"
options = {options}
[[agents]]
name = "victim"
agent = "random"
"""


def attack_ladder(attacker: str, options: str) -> str:
    """A goofspiel ladder pitting ``attacker`` (a bot of tests/support/referee_attackers.py, with
    ``options`` as TOML) against random, unsandboxed: the runner's watchdog must cope alone."""
    return _ATTACK.format(attacker=attacker, options=options)

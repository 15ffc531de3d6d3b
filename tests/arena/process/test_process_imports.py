"""Processes that start often import only what they use: trio is ~130 ms of CPU at each start.

A zygote (one per runner worker, arena/process/zygote.py) forks agents and never runs trio; the
`arena run` process of a local run hands matches to its workers, which import the referee and
trio (arena/tournament/run/fork_server.py). Each imported trio at its start before (costly in the
suite's time: ~65 runs and ~100 zygotes a suite).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def imported(stderr: str) -> set[str]:
    """The modules a ``python -X importtime`` process imported, from its stderr."""
    return {line.rsplit("|", 1)[1].strip() for line in stderr.splitlines() if line.startswith("import time:")}


def test_a_zygote_serves_without_importing_trio():
    ours, theirs = socket.socketpair()
    with ours:
        zygote = subprocess.Popen(
            [sys.executable, "-X", "importtime", "-m", "arena.process.zygote", str(theirs.fileno())],
            pass_fds=[theirs.fileno()],
            stderr=subprocess.PIPE,
            text=True,
        )
        theirs.close()
        try:
            ours.settimeout(60)
            assert ours.recv(64) == b"ready"  # discovered the plugins, imported what every child needs
        finally:
            ours.close()  # the referee's end closed: the zygote returns
            _, stderr = zygote.communicate(timeout=60)
    assert zygote.returncode == 0, stderr
    modules = imported(stderr)
    # what each child runs is imported before any fork (a child importing it would pay each time)
    assert {"arena.wire.host", "arena.registry.plugins", "arena.process.spawn", "msgspec"} <= modules
    assert "trio" not in modules


def test_a_local_arena_run_leaves_trio_and_the_referee_to_its_workers(tmp_path):
    ladder = tmp_path / "one.toml"
    ladder.write_text(
        'name = "one"\ngame = "goofspiel"\nplayers = 2\nformat = "round-robin"\nmatches_per_pairing = 1\n'
        'seed = 1\nsandbox = "none"\n[[agents]]\nname = "a"\nagent = "random"\n[[agents]]\nname = "b"\n'
        'agent = "random"\n'
    )
    # the run's own modules, as `arena run` imports them (-X importtime would also list its workers')
    script = (
        "import runpy, sys\n"
        f"sys.argv = ['arena', 'run', {str(ladder)!r}, '--db', {str(tmp_path / 't.db')!r}, '--quiet']\n"
        "try:\n    runpy.run_module('arena.cli', run_name='__main__')\n"
        "except SystemExit as done:\n    assert not done.code, done.code\n"
        "print(sorted(name for name in ('trio', 'arena.match.referee', 'arena.tournament.run.cluster') if name in sys.modules))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=os.environ,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert "one: 2/2 matches done, 2 played now" in run.stdout
    assert run.stdout.strip().splitlines()[-1] == "[]"


def test_a_runs_fork_server_preloads_what_workers_play_with_and_not_the_runs_display_or_store():
    from arena.tournament.run.fork_server import WORKER_MODULES

    script = (
        f"import sys\nfor name in {WORKER_MODULES!r}:\n    __import__(name)\n"
        "print(sorted(m for m in ('rich', 'psutil', 'sqlite3', 'arena.tournament.store.sqlite') if m in sys.modules))\n"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"
    assert "arena.tournament.run.worker" in WORKER_MODULES and "trio" in WORKER_MODULES

"""Finding the agent processes a match started, for the tests that check none is left.

Helpers shared by the referee, fork-start and CLI tests (the ``no_leftovers`` fixture, in
tests/conftest.py, is built on them).
"""

from __future__ import annotations

import os
from pathlib import Path

from arena.match.record import replay
from examples.games.goofspiel.game import GAME
from tests.support import processes

ROOT = Path(__file__).resolve().parents[2]
FIRST_OPTION = str(ROOT / "examples" / "bots" / "first_option.py")
ROUNDS = 5  # goofspiel's default hand: 5 rounds, one bid per seat each


def processes_marked(mark: str) -> list[int]:
    """Live processes (not zombies) whose environment carries ``mark``: our agents and their children.

    The environment seen in /proc is the one a process was exec'd with: an agent forked from
    this test process does not show the mark (``processes_in_sessions`` finds those).
    """
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as handle:
                environ = handle.read()
        except OSError:
            continue
        if mark.encode() in environ and alive(int(entry)):
            found.append(int(entry))
    return found


def processes_in_sessions(sessions: list[int]) -> list[int]:
    """Live processes in one of ``sessions``: forked agents (each leads its own) and their descendants."""
    found = []
    for entry in os.listdir("/proc") if sessions else ():
        if entry.isdigit():
            state, _, _, session = _stat(int(entry))[:4]
            if state not in ("Z", "X") and session in sessions:
                found.append(int(entry))
    return found


def _stat(pid: int) -> list[int | str]:
    """/proc/PID/stat after the command name: state, ppid, pgrp, session, ... ([] if gone)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return ["X", 0, 0, 0]
    return [fields[0], *map(int, fields[1:4])]


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a killed orphan may linger as a zombie until init reaps it)."""
    return _stat(pid)[0] not in ("Z", "X")


def eventually_empty(probe, seconds: float = 5.0) -> list[int]:
    """``probe()`` once it returns [], or its last answer after ``seconds``.

    A process sent SIGKILL dies when the kernel next schedules it, a moment after the referee
    returned; a leftover is one still there long after.
    """
    return processes.eventually_empty(probe, seconds)


def check_replays(outcome) -> None:
    state = replay(outcome.record, GAME)
    assert list(state.result().scores) == [s.score for s in outcome.seats]

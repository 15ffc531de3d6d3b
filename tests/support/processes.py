"""Finding and ending the processes a test started: the suite's leak guard and the tests' own fixtures.

Every test runs with ``TLACHTLI_TEST_PROC`` set to a tag of its own (tests/conftest.py), which
every process it starts inherits through exec (a worker, `arena run`, an exec'd agent) or fork.
A process that outlives its test is found by that tag in /proc/PID/environ, even once orphaned,
or as a descendant of the pytest process (a child forked from pytest itself keeps pytest's
original environment, so it carries no tag).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

import psutil

TAG_ENV = "TLACHTLI_TEST_PROC"
# pytest's own long-lived helpers, never a test's leak
_SERVICES = ("multiprocessing.resource_tracker", "multiprocessing.forkserver")
# Processes a session-scoped fixture keeps for many tests (the browser tests' one Chromium per
# worker): they and everything they start are that fixture's, which ends them, not a test's leak.
_SESSION_KEPT: set[int] = set()


@contextmanager
def kept_for_the_session(pids: Iterable[int]) -> Iterator[None]:
    """While inside, the leak guard passes ``pids`` and their descendants by: a session fixture's
    processes, which that fixture ends (on leaving, so that a reused pid is a leak again)."""
    kept = set(pids) - _SESSION_KEPT
    _SESSION_KEPT.update(kept)
    try:
        yield
    finally:
        _SESSION_KEPT.difference_update(kept)


def _table(since: int | None = None) -> dict[int, tuple[int, str, bytes]]:
    """Every readable process: pid -> (parent pid, state, environment), in one walk of /proc.

    ``since`` (``clock_ticks``): the environment only of processes started then or later, b"" for
    the others, which cannot carry a tag set after they started (reading every process's
    environment was most of the leak guard's ~10 ms a test on a busy machine)."""
    table = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
            env = b""
            if since is None or int(fields[19]) >= since:  # field 22 of stat(5): its start, in ticks
                with open(f"/proc/{entry.name}/environ", "rb") as environ:
                    env = environ.read()
        except OSError:  # gone meanwhile, or another user's
            continue
        table[int(entry.name)] = (int(fields[1]), fields[0].decode(), env)
    return table


def clock_ticks() -> int:
    """Now, as /proc/PID/stat counts a process's start (clock ticks since boot), less one tick:
    a process started from now on has this start or a later one."""
    seconds = min(time.clock_gettime(time.CLOCK_BOOTTIME), time.clock_gettime(time.CLOCK_MONOTONIC))
    return int(seconds * os.sysconf("SC_CLK_TCK")) - 1


def _tagged(table: dict[int, tuple[int, str, bytes]], wanted: bytes) -> set[int]:
    return {pid for pid, (_, _, env) in table.items() if env.startswith(wanted) or b"\0" + wanted in env}


def processes_tagged(tag: str, name: str = TAG_ENV) -> list[int]:
    """Live (not zombie) processes whose environment holds ``name=tag``, but this process's own
    services (a resource tracker started by an `arena run` in this process outlives the run)."""
    table = _table()
    me = os.getpid()
    return sorted(
        pid
        for pid in _tagged(table, f"{name}={tag}\0".encode())
        if table[pid][1] != "Z" and not (table[pid][0] == me and _is_service(pid))
    )


def _is_service(pid: int) -> bool:
    """Whether ``pid`` is a helper service of this pytest process (multiprocessing's resource tracker)."""
    try:
        return any(service in " ".join(psutil.Process(pid).cmdline()) for service in _SERVICES)
    except psutil.Error:
        return False


def leftovers(tag: str, since: int | None = None) -> list[int]:
    """Processes started under ``tag``, or descendants of this process, still alive (zombies aside).
    ``since``: when the tag was set (``clock_ticks``); no process started before can carry it."""
    table = _table(since)
    me = os.getpid()
    found = _tagged(table, f"{TAG_ENV}={tag}\0".encode())
    children: dict[int, list[int]] = {}
    for pid, (parent, _, _) in table.items():
        children.setdefault(parent, []).append(pid)
    found |= _descendants(children, [me])
    found -= _descendants(children, [pid for pid in _SESSION_KEPT if pid in table]) | _SESSION_KEPT
    found.discard(me)
    alive = [pid for pid in found if table[pid][1] != "Z"]
    return sorted(pid for pid in alive if not (table[pid][0] == me and _is_service(pid)))


def _descendants(children: dict[int, list[int]], roots: list[int]) -> set[int]:
    """Every process below ``roots`` in the ``children`` table (the roots themselves not)."""
    found: set[int] = set()
    below = [child for root in roots for child in children.get(root, [])]
    while below:
        pid = below.pop()
        found.add(pid)
        below.extend(children.get(pid, []))
    return found


def eventually_empty(probe: Callable[[], list], seconds: float = 10.0) -> list:
    """Poll ``probe`` until it finds nothing or ``seconds`` pass; what it found last."""
    deadline = time.monotonic() + seconds
    pause = 0.01
    while (found := probe()) and time.monotonic() < deadline:
        # A probe walks /proc (~10 ms of CPU on a busy machine): poll often only at first, when
        # most processes go, then back off while a slow one is still ending.
        time.sleep(pause)
        pause = min(2 * pause, 0.2)
    return found


def describe(pids: list[int]) -> str:
    """``pid: command line`` for each pid still there, for a failure message."""
    lines = []
    for pid in pids:
        try:
            lines.append(f"{pid}: {' '.join(psutil.Process(pid).cmdline())[:160]}")
        except psutil.Error:
            lines.append(f"{pid}: (gone)")
    return "\n".join(lines)


def kill_all(pids: list[int]) -> None:
    """SIGKILL each of ``pids`` (stopped ones too: SIGKILL needs no SIGCONT)."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def end(process: subprocess.Popen) -> None:
    """Kill ``process`` if it still runs, and reap it (a test's finalizer, on every path)."""
    if process.poll() is None:
        process.kill()
    try:
        process.communicate(timeout=10)
    except (subprocess.TimeoutExpired, ValueError, OSError):
        pass

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
from collections.abc import Callable
from pathlib import Path

import psutil

TAG_ENV = "TLACHTLI_TEST_PROC"
# pytest's own long-lived helpers, never a test's leak
_SERVICES = ("multiprocessing.resource_tracker", "multiprocessing.forkserver")


def processes_tagged(tag: str, name: str = TAG_ENV) -> list[int]:
    """Live (not zombie) processes whose environment holds ``name=tag``."""
    wanted = f"{name}={tag}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            if wanted not in environ.split(b"\0"):
                continue
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:  # gone meanwhile, or another user's
            continue
        if state != "Z":
            found.append(int(entry.name))
    return found


def _descendants() -> list[int]:
    """Live descendants of this (pytest) process."""
    return [child.pid for child in psutil.Process().children(recursive=True)]


def _is_leak(pid: int) -> bool:
    """Whether ``pid`` is a live process other than a service of this pytest process."""
    try:
        process = psutil.Process(pid)
        if process.status() == psutil.STATUS_ZOMBIE:
            return False
        if process.ppid() == os.getpid() and any(s in " ".join(process.cmdline()) for s in _SERVICES):
            return False  # e.g. multiprocessing's resource tracker, started by an in-process run
    except psutil.Error:
        return False
    return True


def leftovers(tag: str) -> list[int]:
    """Processes started under ``tag`` (or by this process) that are still alive."""
    found = (set(processes_tagged(tag)) | set(_descendants())) - {os.getpid()}
    return sorted(pid for pid in found if _is_leak(pid))


def eventually_empty(probe: Callable[[], list], seconds: float = 10.0) -> list:
    """Poll ``probe`` until it finds nothing or ``seconds`` pass; what it found last."""
    deadline = time.monotonic() + seconds
    while (found := probe()) and time.monotonic() < deadline:
        time.sleep(0.05)
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

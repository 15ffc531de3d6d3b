"""Runner workers forked from a fork server that has imported what a worker needs.

A spawned worker is a fresh interpreter that imports the runner, the referee and trio before its
first match (~0.7 s of CPU); with ``--jobs N`` a run paid that N times, and again for each worker
it replaced. A run's local pool instead starts multiprocessing's fork server once, which imports
those modules (``WORKER_MODULES``), and forks each worker from it (a few ms).

The server is started by the first pool that needs it and stopped when the last one closes, so
it is started from the run's process as it is then (environment, working folder, cgroup) and
does not outlive the run. A worker's parent is the server, not the run: the worker has the
kernel signal it when the server dies (``die_with_parent`` with ``server_pid()``), and closes its
copy of the server's "alive" pipe (``leave``), so that the server ends as soon as the run does,
even by kill -9, and the worker with it.

The server listens on a socket under ``TMPDIR``; where it cannot (a path too long for a socket),
``acquire`` raises OSError and the pool spawns its workers instead (arena/tournament/run/runner.py).
"""

from __future__ import annotations

import os
import signal
import threading
from multiprocessing import forkserver
from typing import Any

# What a worker imports before its first match (arena/tournament/run/worker.py, ``worker_main``);
# plugins are left out: a bot's module is user code, not to be run in the server.
WORKER_MODULES = [
    "arena.tournament.run.worker",
    "arena.match.referee",
    "arena.process.spawn",
    "arena.process.warm",
    "arena.registry.plugins",
    "trio",
]

_lock = threading.Lock()
_users = 0  # pools holding the server (several runs may share one process: threads)
# multiprocessing keeps one fork server per process; its pid and "alive" pipe have no public name
_server: Any = forkserver._forkserver


def acquire() -> None:
    """Hold the server (multiprocessing's "forkserver" context forks from it), starting it if not running."""
    global _users
    with _lock:
        if _users == 0:
            forkserver.set_forkserver_preload(WORKER_MODULES)
        forkserver.ensure_running()
        _users += 1


def server_pid() -> int:
    """The running server's pid (started again if it died): the parent of the workers forked next."""
    forkserver.ensure_running()
    pid: int = _server._forkserver_pid
    return pid


def release() -> None:
    """One pool less; the last one stops the server (its workers are gone: the pool killed them)."""
    global _users
    with _lock:
        _users -= 1
        if _users == 0 and _server._forkserver_pid is not None:
            try:
                os.kill(_server._forkserver_pid, signal.SIGKILL)  # it holds nothing to save
            except ProcessLookupError:
                pass
            _server._stop()  # closes the pipe, reaps the server


def leave() -> None:
    """In a worker: close its copy of the server's "alive" pipe (every forked child gets one), so
    that the server sees the run's end alone (a spawned worker has none)."""
    fd = _server._forkserver_alive_fd
    if fd is not None:
        os.close(fd)
        _server._forkserver_alive_fd = None

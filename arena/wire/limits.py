"""Process limits for a child process: memory and CPU rlimits, and dying with its parent.

Used by the agent spawner (arena/wire/spawn.py) and by the tournament runner's workers, which
need no more of the spawner than this.
"""

from __future__ import annotations

import ctypes
import os
import resource
import sys

_PR_SET_PDEATHSIG = 1  # prctl option (Linux): signal this process when its parent dies


def die_with_parent(signum: int, parent_pid: int) -> None:
    """Have the kernel send ``signum`` to this process when its parent dies (even by kill -9).

    Linux only (elsewhere a no-op). Call it in the child right after fork, from the thread that
    forked: the signal fires when that thread ends. Exits at once if the parent is already gone.
    """
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signum, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent_pid:  # the parent died before prctl took effect
        os._exit(1)


def set_limits(memory_mb: int | None, cpu_seconds: int | None, inherited_bytes: int = 0) -> None:
    """Set RLIMIT_AS to ``memory_mb`` on top of ``inherited_bytes`` and RLIMIT_CPU, in this process."""
    if memory_mb is not None:
        size = inherited_bytes + memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (size, size))
    if cpu_seconds is not None:
        # soft limit: SIGXCPU; the hard limit one second later: SIGKILL
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))

"""Whether an agent in a bubblewrap sandbox still holds its end of a pipe.

bwrap's own processes (the monitor outside the sandbox and its init inside) keep the agent's stdio
open for as long as the sandbox lives, so an agent that closes its stdout causes no end-of-file:
the referee would wait for its whole time bank. Asked while it waits, this says whether any
process of the sandbox other than bwrap itself still holds the pipe (by /proc: the sandbox's
processes are descendants of the bwrap the referee started).
"""

from __future__ import annotations

import functools
import os
import shutil


@functools.cache
def _bwrap_binary() -> str | None:
    found = shutil.which("bwrap")
    return os.path.realpath(found) if found else None


def _descendants(pid: int) -> list[int]:
    """``pid``'s descendants (via /proc/PID/task/TID/children); raises OSError if /proc cannot say."""
    found, todo = [], [pid]
    while todo:
        parent = todo.pop()
        for task in os.listdir(f"/proc/{parent}/task"):
            with open(f"/proc/{parent}/task/{task}/children") as handle:
                children = [int(child) for child in handle.read().split()]
            found += children
            todo += children
    return found


def _holds(pid: int, link: str) -> bool:
    try:
        names = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False  # gone meanwhile
    for name in names:
        try:
            if os.readlink(f"/proc/{pid}/fd/{name}") == link:
                return True
        except OSError:
            continue
    return False


def agent_dropped_pipe(bwrap_pid: int, pipe_fd: int) -> bool:
    """True when no process under the sandbox ``bwrap_pid`` but bwrap's own holds the other end of
    the pipe whose end ``pipe_fd`` the referee has. False whenever that cannot be told for sure."""
    binary = _bwrap_binary()
    if binary is None:
        return False
    try:
        link = f"pipe:[{os.fstat(pipe_fd).st_ino}]"
        processes = _descendants(bwrap_pid)
    except (OSError, ValueError):
        return False
    agents = 0
    for pid in processes:
        try:
            if os.readlink(f"/proc/{pid}/exe") == binary:
                continue  # bwrap's init inside the sandbox, or its child not yet exec'd
        except OSError:
            return False  # cannot tell what it is (gone meanwhile, or not ours to see)
        agents += 1
        if _holds(pid, link):
            return False
    # none yet (bwrap still setting up) or none left (the exit status will say): not a drop
    return agents > 0

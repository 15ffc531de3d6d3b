"""The CPU side of an agent's cgroup: a quota of the cores it was given, and a freezer.

A bot's processes share one CPU quota (``cpus`` cores' worth of time per period, whatever the
number of processes or sessions they make), and, unless its match allows pondering, the whole
bot is frozen while it is not deciding: it cannot take the machine from its opponent's turn.
Both work on cgroup v1 (the ``cpu`` and ``freezer`` controllers, as on these machines) and v2
(``cpu.max``, ``cgroup.freeze``). arena/process/limits.py makes the groups; see docs/security.md.
"""

from __future__ import annotations

import os
import select
import subprocess
import threading
from typing import IO

from arena.process.warm import is_kept, on_release

CPU_PERIOD_US = 100_000  # the quota's accounting period: 0.1 s
DEFAULT_CPUS = 1  # cores' worth of CPU time a bot may use at once, by default


def limit_cpu(directory: str, cpus: int) -> None:
    """Give the cgroup at ``directory`` at most ``cpus`` cores' worth of CPU time (OSError if refused)."""
    quota = cpus * CPU_PERIOD_US
    if os.path.exists(os.path.join(directory, "cpu.max")):  # v2
        _write(directory, "cpu.max", f"{quota} {CPU_PERIOD_US}")
        return
    _write(directory, "cpu.cfs_period_us", str(CPU_PERIOD_US))
    try:
        _write(directory, "cpu.cfs_quota_us", str(quota))
    except OSError:  # v1 refuses a quota above the parent's own: the parent's then bounds it
        pass


def _write(directory: str, name: str, value: str) -> None:
    with open(os.path.join(directory, name), "w") as handle:
        handle.write(value)


class Freezer:
    """Freezes and thaws every process of a cgroup at once (v1 ``freezer.state``, v2 ``cgroup.freeze``).

    The file stays open: a decision costs two writes, no open. Under v1 a frozen process cannot
    die, even of SIGKILL, until thawed: ``thaw`` follows every kill, and a guard process thaws
    the group if the referee dies outright (kill -9), so that its agents' parent-death signal
    takes effect. (v2 lets fatal signals through.) ``family``: (parent directory, name prefix)
    of this group and its siblings of the same referee process, which one guard watches.
    """

    def __init__(self, directory: str, family: tuple[str, str]) -> None:
        v2 = os.path.exists(os.path.join(directory, "cgroup.freeze"))
        name = "cgroup.freeze" if v2 else "freezer.state"
        self._states = (b"1", b"0") if v2 else (b"FROZEN", b"THAWED")
        self._fd: int | None = os.open(os.path.join(directory, name), os.O_WRONLY | os.O_CLOEXEC)
        try:
            self._guard = None if v2 else _ThawGuard.watch(*family)
        except OSError:
            os.close(self._fd)
            raise
        self.frozen = False

    def freeze(self) -> None:
        """Stop every process of the group (its children too, whatever their session)."""
        self._set(True)

    def thaw(self) -> None:
        """Let them run again."""
        self._set(False)

    def _set(self, frozen: bool) -> None:
        if self._fd is None or self.frozen == frozen:
            return
        try:
            os.write(self._fd, self._states[0 if frozen else 1])
            self.frozen = frozen
        except OSError:
            pass  # the group is being removed

    def close(self) -> None:
        """Thaw (so that killed processes can die) and close the file; idempotent."""
        if self._fd is not None:
            self.thaw()
            os.close(self._fd)
            self._fd = None
        if self._guard is not None:
            self._guard.unwatch()
            self._guard = None


class _ThawGuard:
    """A small process that thaws every v1 freezer group ``parent``/``prefix``* once its stdin
    closes: when this process dies (the only holder of the pipe), or when ``release`` ends it
    (arena/process/warm.py: after each match, unless kept warm).

    One per referee process, shared by all its agents' groups, not one per agent: starting one
    costs about 4 ms of CPU, as much as the rest of an agent's cgroup set-up.

    It leaves its parent at once (a background shell whose parent exits), so that it is no
    descendant of the referee: what kills a stuck referee with all its descendants (the
    runner's watchdog) would otherwise kill it too, and leave the bots frozen for good. In its
    own session, so that a Ctrl-C at the terminal does not end it first.
    """

    # by the (parent, prefix) watched; a forked child holds a copy of this table, not the guards
    running: dict[tuple[str, str], _ThawGuard] = {}
    lock = threading.Lock()  # referees of several threads (the web arena's matches) share them
    EXIT_WAIT_S = 2.0  # how long ``end`` waits for it to leave

    def __init__(self, parent: str, prefix: str) -> None:
        thaw = 'for state in "$0"/"$1"*/freezer.state; do echo THAWED > "$state"; done'
        starter = subprocess.Popen(
            ["/bin/sh", "-c", f"exec 3<&0; {{ cat <&3 >/dev/null; {thaw}; }} &", parent, prefix],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,  # held by the guard alone once the starter exits: EOF when it leaves
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        starter.wait()
        assert starter.stdin is not None and starter.stdout is not None
        self.pid = os.getpid()
        self.family = (parent, prefix)
        self.stdin: IO[bytes] = starter.stdin
        self.stdout: IO[bytes] = starter.stdout
        self.groups = 0  # open Freezers it watches: ended only when none is left

    @classmethod
    def watch(cls, parent: str, prefix: str) -> _ThawGuard:
        """The guard of ``parent``/``prefix``*, started if need be, counting one more group; OSError if it cannot start."""
        with cls.lock:
            guard = cls.running.get((parent, prefix))
            if guard is None or guard.pid != os.getpid():
                guard = cls.running[(parent, prefix)] = cls(parent, prefix)
            guard.groups += 1
            return guard

    def unwatch(self) -> None:
        """One group fewer to watch (its Freezer closed). The last one ends it unless this process
        keeps it warm: a group made outside a referee (a test, a tool) leaves no guard behind."""
        with self.lock:
            self.groups -= 1
            if self.groups > 0 or is_kept() or self.pid != os.getpid():
                return
            if self.running.get(self.family) is self:
                del self.running[self.family]
        self.end()

    def end(self) -> None:
        """Let it thaw its family (a no-op once its groups are gone) and wait, briefly, until it has left."""
        self.stdin.close()
        select.select([self.stdout], [], [], self.EXIT_WAIT_S)  # readable: at its end of file
        self.stdout.close()


@on_release
def _end_guards() -> None:
    """End this process's guards that watch no open group (another match of this process may
    still freeze its agents)."""
    with _ThawGuard.lock:
        for family, guard in list(_ThawGuard.running.items()):
            if guard.pid != os.getpid():
                del _ThawGuard.running[family]
            elif guard.groups <= 0:
                del _ThawGuard.running[family]
                guard.end()


def thaw_directory(directory: str) -> None:
    """Thaw a group found frozen (a stale one swept after its referee died); best effort."""
    for name, value in (("freezer.state", "THAWED"), ("cgroup.freeze", "0")):
        try:
            _write(directory, name, value)
        except OSError:
            pass

"""The CPU side of an agent's cgroup: a quota of the cores it was given, and a freezer.

A bot's processes share one CPU quota (``cpus`` cores' worth of time per period, whatever the
number of processes or sessions they make), and, unless its match allows pondering, the whole
bot is frozen while it is not deciding: it cannot take the machine from its opponent's turn.
Both work on cgroup v1 (the ``cpu`` and ``freezer`` controllers, as on these machines) and v2
(``cpu.max``, ``cgroup.freeze``). arena/wire/limits.py makes the groups; see docs/security.md.
"""

from __future__ import annotations

import os
import subprocess
from typing import IO

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
    takes effect. (v2 lets fatal signals through.)
    """

    def __init__(self, directory: str) -> None:
        v2 = os.path.exists(os.path.join(directory, "cgroup.freeze"))
        name = "cgroup.freeze" if v2 else "freezer.state"
        self._states = (b"1", b"0") if v2 else (b"FROZEN", b"THAWED")
        path = os.path.join(directory, name)
        self._fd: int | None = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
        try:
            self._guard = None if v2 else _thaw_guard(path)
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
            self._guard.close()  # its signal to thaw (a no-op now) and leave
            self._guard = None


def _thaw_guard(state_file: str) -> IO[bytes]:
    """Start a small process that thaws ``state_file``'s group once its stdin closes: when the
    freezer is closed, or when the referee, the only holder of the pipe (returned), dies.

    It leaves its parent at once (a background shell whose parent exits), so that it is no
    descendant of the referee: what kills a stuck referee with all its descendants (the
    runner's watchdog) would otherwise kill it too, and leave the bots frozen for good. In its
    own session, so that a Ctrl-C at the terminal does not end it first.
    """
    starter = subprocess.Popen(
        ["/bin/sh", "-c", 'exec 3<&0; { cat <&3 >/dev/null; echo THAWED > "$0"; } &', state_file],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    starter.wait()
    assert starter.stdin is not None
    return starter.stdin


def thaw_directory(directory: str) -> None:
    """Thaw a group found frozen (a stale one swept after its referee died); best effort."""
    for name, value in (("freezer.state", "THAWED"), ("cgroup.freeze", "0")):
        try:
            _write(directory, name, value)
        except OSError:
            pass

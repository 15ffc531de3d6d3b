"""Resource limits of one agent: per-process rlimits, and a cgroup for the bot as a whole.

Every agent process gets rlimits (set in the child before exec): address space and CPU time
(the match's ``memory_mb``/``cpu_seconds``), open files, file size, and, when it runs under a uid
of its own, a process count. Where the referee may create cgroups (root, cgroup v1 controllers
mounted), the agent and everything it starts also share one cgroup per controller: memory and
process count then hold for all its processes together, its CPU time is summed over them, and
``kill_all`` reaches children that left its session (setsid); where the ``cpu`` and ``freezer``
controllers are there too, its CPU share is bounded and it can be frozen between decisions
(arena/process/cgroups.py). See docs/security.md.
Also ``die_with_parent``, which the tournament runner's workers need too: so the runner imports
this module, not the spawner.
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import sys
import time

from arena.process.cgroups import Freezer, limit_cpu, thaw_directory

MAX_PROCESSES = 64  # processes (and threads) one bot may have at once
MAX_OPEN_FILES = 256  # open files per process
MAX_FILE_MB = 64  # largest file a bot may write (SIGXFSZ beyond)
CGROUP_ROOT = "/sys/fs/cgroup"
_CONTROLLERS = ("memory", "pids", "cpuacct")
_CPU_CONTROLLERS = ("cpu", "freezer")  # used where mounted: the CPU quota, freezing between decisions
DEFAULT_MEMORY_MB = 2048  # a bot's memory when the match sets none (see docs/security.md)


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


def set_rlimits(
    memory_mb: int | None, cpu_seconds: int | None, inherited_bytes: int = 0, processes: bool = False
) -> None:
    """Limit this process: address space (``memory_mb`` on top of ``inherited_bytes``), CPU, files.

    ``processes``: also RLIMIT_NPROC, which counts every process of this uid: only meaningful
    for a uid that the agent has to itself.
    """
    if memory_mb is not None:
        size = inherited_bytes + memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (size, size))
    if cpu_seconds is not None:
        # soft limit: SIGXCPU; the hard limit one second later: SIGKILL
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
    _lower(resource.RLIMIT_NOFILE, MAX_OPEN_FILES)
    _lower(resource.RLIMIT_FSIZE, MAX_FILE_MB * 1024 * 1024)
    if processes:
        _lower(resource.RLIMIT_NPROC, MAX_PROCESSES)


# A wait status meaning "exited with 255": what is recorded for a child reaped by someone else.
LOST_STATUS = 255 << 8
OOM_SCORE_ADJ = 1000  # an agent's: the kernel's OOM killer takes a bot before anything else


def oom_killer_first() -> None:
    """Make this process (and what it starts) the OOM killer's first choice: if memory runs out,
    a bot dies, never the referee or the runner. A process may raise its own score, and only
    a privileged one lower it again, so the bot cannot undo it."""
    try:
        with open("/proc/self/oom_score_adj", "w") as handle:
            handle.write(str(OOM_SCORE_ADJ))
    except OSError:
        pass  # not Linux


def _lower(which: int, value: int) -> None:
    soft, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(which, (value, value))


def _own_cgroup(controller: str) -> str | None:
    """This process's cgroup directory for a v1 ``controller``, or None when not mounted.

    Read once per process and controller (a referee asks for every controller of every agent,
    and never moves itself; a forked or spawned child reads its own).
    """
    key = (os.getpid(), controller)
    if key not in _own_cgroups:
        _own_cgroups[key] = _read_own_cgroup(controller)
    return _own_cgroups[key]


_own_cgroups: dict[tuple[int, str], str | None] = {}


def _read_own_cgroup(controller: str) -> str | None:
    try:
        with open("/proc/self/cgroup") as handle:
            for line in handle:
                _, names, path = line.rstrip("\n").split(":", 2)
                if controller in names.split(","):
                    directory = os.path.join(CGROUP_ROOT, controller, path.lstrip("/"))
                    return directory if os.path.isdir(directory) else None
    except OSError:
        pass
    return None


def owner_gone(name: str, prefix: str) -> bool:
    """Whether ``name`` is ``prefix`` + PID + "-" ... of a process no longer running."""
    pid = name[len(prefix) :].split("-")[0]
    return name.startswith(prefix) and pid.isdigit() and not os.path.exists(f"/proc/{pid}")


def _sweep_stale() -> None:
    """Remove the (empty) cgroups of referees that died without cleaning up (killed outright)."""
    # the freezer first: its processes, killed and thawed there, leave the other groups empty
    for controller in ("freezer",) + _CONTROLLERS + ("cpu",):
        parent = _own_cgroup(controller)
        if parent is None:
            continue
        for name in os.listdir(parent):
            if owner_gone(name, "tlachtli-"):
                _remove_cgroup(os.path.join(parent, name))


def _remove_cgroup(path: str, patience_s: float = 2.0) -> None:
    """Kill what is left in a cgroup and remove it. A killed process stays in its cgroup until it
    has fully exited, and rmdir fails while any is there: wait for that, briefly."""
    deadline = time.monotonic() + patience_s
    while True:
        try:
            with open(os.path.join(path, "cgroup.procs")) as handle:
                pids = handle.read().split()
            for pid in pids:
                os.kill(int(pid), signal.SIGKILL)
            thaw_directory(path)  # a frozen process dies of SIGKILL only once thawed
            os.rmdir(path)
            return
        except OSError:  # busy, or a process exited between the read and the kill
            if time.monotonic() > deadline:
                return  # still busy: the next sweep tries again
            time.sleep(0.02)


class BotCgroup:
    """One cgroup per controller (memory, pids, cpuacct; cpu and freezer where mounted) holding
    every process of one agent."""

    _count = 0

    def __init__(self, directories: dict[str, str]) -> None:
        self.directories = directories
        self.freezer: Freezer | None = None

    @classmethod
    def create(cls, memory_mb: int | None, cpus: int | None = None) -> BotCgroup | None:
        """A fresh cgroup under this process's own, or None where cgroups cannot be made here.

        ``cpus``: its CPU quota in cores (None: none). It can be frozen (``freeze``) where the
        freezer controller is mounted.
        """
        if os.geteuid() != 0:
            return None
        if cls._count == 0:
            _sweep_stale()
        cls._count += 1
        prefix = f"tlachtli-{os.getpid()}-"  # a guard thaws them all if this process dies (cgroups.py)
        name = f"{prefix}{cls._count}"
        directories: dict[str, str] = {}
        try:
            for controller in _CONTROLLERS + _CPU_CONTROLLERS:
                parent = _own_cgroup(controller)
                if parent is None:
                    if controller in _CPU_CONTROLLERS:
                        continue  # not mounted: no quota or freezing (docs/security.md says so)
                    raise OSError(f"no {controller} cgroup")
                directory = os.path.join(parent, name)
                # controllers mounted together (cpu,cpuacct) share one directory
                if not any(os.path.samefile(parent, os.path.dirname(d)) for d in directories.values()):
                    os.mkdir(directory)
                directories[controller] = directory
            group = cls(directories)
            if cpus is not None and "cpu" in directories:
                limit_cpu(directories["cpu"], cpus)
            if "freezer" in directories:
                group.freezer = Freezer(
                    directories["freezer"], (os.path.dirname(directories["freezer"]), prefix)
                )
            group._write("pids", "pids.max", MAX_PROCESSES)
            if memory_mb is not None:
                group._write("memory", "memory.limit_in_bytes", memory_mb * 1024 * 1024)
                if os.path.exists(os.path.join(directories["memory"], "memory.memsw.limit_in_bytes")):
                    group._write("memory", "memory.memsw.limit_in_bytes", memory_mb * 1024 * 1024)
            return group
        except OSError:
            cls(directories).remove()
            return None

    def _write(self, controller: str, name: str, value: int) -> None:
        with open(os.path.join(self.directories[controller], name), "w") as handle:
            handle.write(str(value))

    def enter(self) -> None:
        """Move the calling process into the group (in the child, before it drops privileges)."""
        for controller in self.directories:
            self._write(controller, "cgroup.procs", os.getpid())

    def freeze(self) -> None:
        """Stop all its processes (between its decisions); a no-op without the freezer."""
        if self.freezer is not None:
            self.freezer.freeze()

    def thaw(self) -> None:
        """Let them run again."""
        if self.freezer is not None:
            self.freezer.thaw()

    def cpu_seconds(self) -> float:
        """CPU time used by all the group's processes so far, live and ended."""
        try:
            with open(os.path.join(self.directories["cpuacct"], "cpuacct.usage")) as handle:
                return int(handle.read()) / 1e9
        except (OSError, ValueError):
            return 0.0

    def pids(self) -> list[int]:
        try:
            with open(os.path.join(self.directories["pids"], "cgroup.procs")) as handle:
                return [int(line) for line in handle if line.strip()]
        except OSError:
            return []

    def kill_all(self) -> None:
        """SIGKILL every process in the group (repeated: a fork may race the first sweep)."""
        for _ in range(50):
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            self.thaw()  # a frozen process dies only once thawed
            time.sleep(0.002)

    def remove(self) -> None:
        """Delete the group (empty once its processes are gone and reaped); best effort."""
        if self.freezer is not None:
            self.freezer.close()
        for directory in set(self.directories.values()):
            for _ in range(100):
                try:
                    os.rmdir(directory)
                    break
                except FileNotFoundError:
                    break
                except OSError:  # EBUSY: a killed process not yet gone
                    time.sleep(0.01)

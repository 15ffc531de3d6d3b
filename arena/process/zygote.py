"""Warm starts for sandboxed Python agents: a zygote that forks a freshly sandboxed child per agent.

Exec'ing ``python -m arena.wire.host`` costs a new interpreter and its imports (~150-200 ms of CPU)
per agent per match. A zygote is a process that paid that once: ``python -m arena.process.zygote``,
started by the referee's process in a bubblewrap sandbox of its own (the same view of the host
and environment as an agent's, arena/process/host_view.py), imports Tlachtli and discovers the
plugins, as the referee itself does, then forks one child per agent on request. It builds no
agent, runs no bot method and never sees a match: it gets only the child's pipes, its cgroup
files and its limits. Each child, before any bot code runs, enters every isolation an exec'd
agent has (docs/security.md), per agent per match:

- the zygote forks it as the first process of a new PID namespace (it sees only its own
  processes, and dies with its children when it ends), reaps it and reports its exit status;
- the child joins its agent's cgroup (memory, pids, CPU quota, freezer), then unshares new mount,
  network, IPC, UTS and cgroup namespaces, mounts a fresh private tmpfs on /tmp (its home and
  working directory), binds again, read-only, what the zygote's sandbox showed below /tmp (a
  checkout or a plugin folder in the temp directory), and mounts its own /proc;
- its own random streams (arena/process/reseed.py: nothing drawn from a generator the zygote held),
  a new session keyring, ``oom_score_adj`` 1000, the rlimits, then its seat uid (groups cleared,
  every capability dropped, bounding set too), no new privileges, the seccomp filter
  (arena/process/seccomp.py), the parent-death signal, its own session, and only its three pipes.

The zygote keeps the capabilities that needs (CAP_SYS_ADMIN, CAP_SETUID, CAP_SETGID,
CAP_SETPCAP, inside its sandbox); no child keeps any. Used with ``TLACHTLI_AGENT_START=zygote``
where the referee runs as root with bubblewrap (``zygote_supported``); executables, and every
agent elsewhere, start as before. A referee process keeps its zygotes between matches inside
``kept_warm()`` (the runner's workers; arena/process/warm.py), else ends them after each match.
A kept zygote also starts the next match's children ahead (``Zygote.prestart``, once a match's
handshakes are done): each forks and enters its sandbox, in a fresh uid and cgroup, while the
match plays, then waits, running no bot code, for the name of the agent it plays (its first
bytes on stdin) until its own match starts; ending the zygote ends them.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import gc
import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn

from arena.process import seccomp, spawn  # the fork machinery (its children's) and PipedChild
from arena.process.host_view import agent_environment, sandbox_pythonpath
from arena.process.limits import LOST_STATUS, BotCgroup, die_with_parent, oom_killer_first, set_rlimits
from arena.process.reseed import Generators, module_generators, reseed_generators
from arena.process.sandbox import PACKAGE_MOUNT, PACKAGES_MOUNT, PRIVATE_TMPFS_MB, Jail, bwrap_works
from arena.process.warm import on_release

if TYPE_CHECKING:
    from arena.registry.plugins import Registry

# trio is imported by the referee's side (_Slot, PipedChild) where it is used, not above: the
# zygote process itself never needs it, and importing it cost each zygote's start ~130 ms of CPU.
# What a child needs is imported by ``serve`` before any fork, so that no child imports it again.

PRESTARTED = 4  # children a zygote keeps started ahead of their match, at most
START_TIMEOUT_S = 60.0  # a zygote's start: a Python start and the plugins' imports, under load
_MESSAGE_LIMIT = 65536
# unshare(2) flags
_CLONE_NEWNS, _CLONE_NEWCGROUP, _CLONE_NEWUTS = 0x00020000, 0x02000000, 0x04000000
_CLONE_NEWIPC, _CLONE_NEWPID, _CLONE_NEWNET = 0x08000000, 0x20000000, 0x40000000
# mount(2) flags
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_REMOUNT, _MS_BIND = 1, 2, 4, 8, 32, 4096
_MS_REC, _MS_PRIVATE = 0x4000, 0x40000
# prctl(2) options
_PR_SET_PDEATHSIG, _PR_SET_SECCOMP, _PR_CAPBSET_DROP, _PR_SET_NO_NEW_PRIVS = 1, 22, 24, 38
_SECCOMP_MODE_FILTER = 2
_LAST_CAPABILITY = 63
_CAPABILITY_VERSION_3 = 0x20080522


@functools.cache  # asked for every agent: the filter is built to check it
def zygote_supported() -> bool:
    """Whether agents can start from a zygote here: root (seat uids), bubblewrap, the seccomp filter."""
    return os.geteuid() == 0 and bwrap_works() and seccomp.program() is not None and hasattr(os, "pidfd_open")


# -- the referee's side ------------------------------------------------------------------------


class Zygote:
    """A running zygote seen from the referee's process: ``spawn`` asks it for a child."""

    def __init__(self, packages: str | None = None) -> None:
        self._ready: list[_Slot] = []  # children started ahead of their match (``prestart``)
        # ``packages``: the folder of bot packages its children take theirs from (``package_handover``)
        self.jail = Jail("bwrap", packages=packages)
        self.control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        argv = self.jail.wrap(
            [sys.executable, "-m", "arena.process.zygote", str(theirs.fileno())], zygote=True
        )
        parent = os.getpid()
        try:
            self.process = subprocess.Popen(
                argv,
                pass_fds=(theirs.fileno(),),
                env=self.jail.environment(),
                cwd=self.jail.directory,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                start_new_session=True,
                # dies with this process even if it is killed outright, as every agent does
                preexec_fn=lambda: die_with_parent(signal.SIGKILL, parent),
            )
        except OSError:
            self.control.close()
            self.jail.remove()
            raise
        finally:
            theirs.close()
        self.control.settimeout(START_TIMEOUT_S)
        try:
            ready = self.control.recv(_MESSAGE_LIMIT)
        except OSError as error:
            ready = f"no answer ({error})".encode()
        if ready != b"ready":
            self.close()
            raise OSError(
                f"the zygote did not start: {ready.decode('utf-8', 'replace')[:200] or 'it exited'}"
            )
        self.control.settimeout(None)

    def alive(self) -> bool:
        return self.process.poll() is None

    def _request(self, limits: Limits) -> _Slot:
        """Ask for a new child under ``limits``, in a fresh jail (seat uid) and cgroup; OSError if impossible.

        Returns at once: the zygote forks it and it enters its sandbox meanwhile, then waits for
        the name of the agent it plays (``_Slot.hand_over``).
        """
        jail = Jail("bwrap")
        cgroup: BotCgroup | None = None
        ours: list[int] = []  # stdin's write end, stdout's and stderr's read ends
        theirs: list[int] = []  # the child's: stdin, stdout, stderr, status, cgroup files
        status: socket.socket | None = None
        try:
            cgroup = BotCgroup.create(limits.bot_memory_mb, limits.cpus)
            for direction in range(3):
                read, write = os.pipe2(os.O_CLOEXEC)
                ours.append(write if direction == 0 else read)
                theirs.append(read if direction == 0 else write)
            status, status_theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            theirs.append(status_theirs.detach())
            for directory in sorted(set(cgroup.directories.values())) if cgroup else ():
                theirs.append(os.open(os.path.join(directory, "cgroup.procs"), os.O_WRONLY | os.O_CLOEXEC))
            request = {
                "memory_mb": limits.memory_mb,
                "cpu_seconds": limits.cpu_seconds,
                "uid": jail.uid,
                "packages": self.jail.packages is not None,
            }
            socket.send_fds(self.control, [json.dumps(request).encode()], theirs)
        except OSError:
            for fd in ours:
                os.close(fd)
            if status is not None:
                status.close()
            _remove(jail, cgroup)
            raise
        finally:
            for fd in theirs:
                os.close(fd)
        return _Slot(limits, jail, cgroup, status, ours)

    async def spawn(self, agent: str, limits: Limits) -> tuple[ZygoteChild, Jail, BotCgroup | None]:
        """A child playing plugin agent ``agent`` under ``limits``, with its own jail (seat uid) and
        cgroup, which the caller removes once it has ended; OSError if impossible.

        One started ahead for these limits (``prestart``) if there is one still waiting, else a
        new one: either way a child that never played, which learns its agent only here.
        """
        ahead = self._take(limits)
        if ahead is not None:
            with contextlib.suppress(OSError):  # it failed or ended meanwhile: start one now
                return await ahead.handed_over(agent)
        return await self._request(limits).handed_over(agent)

    def prestart(self, limits: Limits) -> None:
        """Start a child under ``limits`` ahead of the next match (a runner's worker, while a match
        plays): it forks and enters its sandbox now, and waits, doing nothing, for the agent it
        will play. At most PRESTARTED are kept (the oldest go); best effort."""
        try:
            self._ready.append(self._request(limits))
        except OSError:
            return
        while len(self._ready) > PRESTARTED:
            self._ready.pop(0).discard()

    def _take(self, limits: Limits) -> _Slot | None:
        for slot in self._ready:
            if slot.limits == limits:
                self._ready.remove(slot)
                return slot
        return None

    def close(self) -> None:
        """End the zygote (and every child it started ahead): its control socket closes (it exits),
        then it is killed if it lingers."""
        while self._ready:
            self._ready.pop().discard()
        self.control.close()
        try:
            self.process.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        self.jail.remove()


@dataclass(frozen=True)
class Limits:
    """What a child is started under: its cgroup's memory and CPU quota, its rlimits."""

    bot_memory_mb: int | None
    cpus: int | None
    memory_mb: int | None
    cpu_seconds: int | None


class _Slot:
    """A child asked of the zygote, with its jail and cgroup, until it is handed its agent."""

    def __init__(
        self, limits: Limits, jail: Jail, cgroup: BotCgroup | None, status: socket.socket, ours: list[int]
    ) -> None:
        self.limits = limits
        self.jail: Jail | None = jail
        self.cgroup = cgroup
        self._status: socket.socket | None = status
        self._ours = ours  # its stdin's write end, its stdout's and stderr's read ends
        self._pidfd: int | None = None

    async def started(self) -> None:
        """Wait until the zygote has forked it (OSError if it could not)."""
        import trio

        if self._pidfd is None:
            assert self._status is not None
            await trio.lowlevel.wait_readable(self._status)
            _, fds, _, _ = socket.recv_fds(self._status, _MESSAGE_LIMIT, 1)
            if len(fds) != 1:
                raise OSError("the zygote's child did not start")
            self._pidfd = fds[0]

    async def handed_over(self, agent: str) -> tuple[ZygoteChild, Jail, BotCgroup | None]:
        """Once started, the child told to play ``agent``, with its jail and cgroup; OSError (and
        the slot discarded) if it could not start or has ended."""
        try:
            await self.started()
            child = self.hand_over(agent)
        except BaseException:  # cancelled (the handshake clock) as well: nothing may be left
            self.discard()
            raise
        if child is None:
            self.discard()
            raise OSError("the zygote's child ended before it started")
        assert self.jail is not None
        return child, self.jail, self.cgroup

    def hand_over(self, agent: str) -> ZygoteChild | None:
        """Tell the (started) child the plugin agent it plays, its first bytes on stdin; the child,
        or None if it has ended (then ``discard`` it)."""
        assert self._pidfd is not None and self._status is not None
        name = agent.encode()
        try:
            os.write(self._ours[0], len(name).to_bytes(2, "big") + name)
        except OSError:
            return None
        if select.select([self._pidfd], [], [], 0)[0]:  # a pidfd is readable once its process ended
            return None
        child = ZygoteChild(self._pidfd, self._status, *self._ours)
        self._pidfd, self._status, self._ours = None, None, []
        return child

    def discard(self) -> None:
        """End the child, whatever it got to, and remove its cgroup and jail; idempotent."""
        if self._pidfd is not None:
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)
            os.close(self._pidfd)
            self._pidfd = None
        for fd in self._ours:  # its stdin closes: a child still waiting for its agent leaves
            os.close(fd)
        self._ours = []
        if self._status is not None:
            self._status.close()
            self._status = None
        _remove(self.jail, self.cgroup)
        self.jail, self.cgroup = None, None


def _remove(jail: Jail | None, cgroup: BotCgroup | None) -> None:
    if cgroup is not None:
        cgroup.kill_all()
        cgroup.remove()
    if jail is not None:
        jail.remove()


class ZygoteChild(spawn.PipedChild):
    """An agent forked by a zygote.

    ``pid``: its pid in the referee's namespace (the first process of its own PID namespace:
    killing it ends every process it started). Its exit status comes from the zygote, on ``status``.
    """

    def __init__(
        self,
        pidfd: int,
        status: socket.socket,
        stdin: int,
        stdout: int,
        stderr: int,
    ) -> None:
        super().__init__(_pidfd_pid(pidfd), stdin, stdout, stderr)
        self._pidfd = pidfd
        self._status = status

    def _end_handle(self) -> socket.socket:
        return self._status

    def _collect(self, block: bool) -> None:
        if self._returncode is not None:
            # Read already: a waiter woken as readable can run after a `returncode` poll that read
            # the status and closed both descriptors (a second close could hit a reused number).
            return
        try:
            data = self._status.recv(64, 0 if block else socket.MSG_DONTWAIT)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        code = (
            os.waitstatus_to_exitcode(int(data)) if data.isdigit() else os.waitstatus_to_exitcode(LOST_STATUS)
        )
        self._returncode = code
        import trio

        with contextlib.suppress(RuntimeError):  # outside trio: nobody can be waiting
            trio.lowlevel.notify_closing(self._status)
        self._status.close()
        os.close(self._pidfd)

    def kill(self) -> None:
        """SIGKILL it (and so every process of its PID namespace), unless its end was reported."""
        if self._returncode is None:
            with contextlib.suppress(OSError):  # ended meanwhile
                signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)


def _pidfd_pid(pidfd: int) -> int:
    """The pid, in this process's namespace, of the process ``pidfd`` refers to."""
    with open(f"/proc/self/fdinfo/{pidfd}") as info:
        for line in info:
            if line.startswith("Pid:"):
                return int(line.split()[1])
    raise OSError("cannot read the agent's pid")


ZygoteKey = tuple[tuple[str, str], ...]  # the agent environment a zygote's children get
_zygotes: dict[ZygoteKey, Zygote] = {}
PACKAGES_ENV = "TLACHTLI_PACKAGES"  # the folder of bot packages a process's zygote holds, if any
_PACKAGES_KEY = "\0packages"  # the key's entry naming the folder of bot packages (no variable's name)
_LAUNCH_MODULE = "arena.wire.package_host"


def zygote_key(packages: str | None = None) -> ZygoteKey:
    """Which zygote the current agent environment needs (as a sandboxed agent's: ~0.1 ms to build);
    ``packages``: the folder of the bot packages its children play, if any, else ``$TLACHTLI_PACKAGES``
    (`arena run` of a ladder with submitted bots: its plugin agents fork from the same zygote as
    its packages, one zygote a worker, not two)."""
    packages = packages or os.environ.get(PACKAGES_ENV) or None
    key = tuple(sorted(agent_environment("/tmp", sandbox_pythonpath()).items()))
    return key + ((_PACKAGES_KEY, packages),) if packages else key


def zygote(key: ZygoteKey | None = None) -> Zygote:
    """This process's zygote for the agent environment ``key`` (None: the current one, ``zygote_key``),
    started if need be (OSError if it cannot)."""
    key = zygote_key() if key is None else key
    found = _zygotes.get(key)
    if found is not None and not found.alive():
        found.close()
        found = None
    if found is None:
        packages = dict(key).get(_PACKAGES_KEY)
        found = _zygotes[key] = Zygote(packages) if packages else Zygote()
    return found


def package_launch(argv: Sequence[str]) -> list[str] | None:
    """The launcher's arguments of a Python bot package's command (``launch_argv``); None for another command."""
    return list(argv[3:]) if list(argv[1:3]) == ["-m", _LAUNCH_MODULE] else None


def package_handover(package: str, argv: Sequence[str]) -> str:
    """What a zygote's child is told to play a Python bot package (instead of a plugin agent's name):
    the package's folder name among the zygote's packages, and the launcher's arguments."""
    return json.dumps({"package": os.path.basename(package), "launch": package_launch(argv)})


@on_release
def _end_zygotes() -> None:
    """End this process's zygotes (arena/process/warm.py calls it after a match unless kept warm)."""
    while _zygotes:
        _zygotes.popitem()[1].close()


# -- the zygote's side -------------------------------------------------------------------------

_libc = ctypes.CDLL(None, use_errno=True)
_registry: Registry | None = None  # the zygote's plugins, discovered once before any child
_generators: Generators = []  # the random generators its imports made: each child reseeds them
_under_tmp: tuple[str, ...] = ()  # what the zygote's sandbox binds below /tmp, found once before any child


def _check(result: int, what: str) -> None:
    if result != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"{what}: {os.strerror(code)}")


def serve(control: socket.socket) -> int:
    """The zygote: discover the plugins, say ready, then fork a child per request until closed,
    and report each child's exit status on its status socket."""
    from arena.registry.plugins import discover
    from arena.wire.protocol import msgspec_codec

    global _registry, _generators, _under_tmp
    _registry = discover(games=False)  # the plugins' imports, paid once
    import arena.wire.package_host  # noqa: F401  (a bot package's launcher: Tlachtli's own code, not the package's)

    _under_tmp = _mounts_under("/tmp")
    msgspec_codec()  # and msgspec's: the children's frames are read and written with it
    _generators = module_generators()
    own_pid_namespace = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
    seccomp.program()  # built once here (cached), not in every child
    gc.freeze()  # what is imported stays in pages every child shares
    control.send(b"ready")
    children: dict[int, tuple[int, socket.socket]] = {}  # by our pidfd of it: its pid, its status socket
    while True:
        ready, _, _ = select.select([control.fileno(), *children], [], [])
        for pidfd in ready:
            if pidfd in children:  # readable: it exited
                _report(pidfd, *children.pop(pidfd))
        if control.fileno() not in ready:
            continue
        try:
            data, fds, _, _ = socket.recv_fds(control, _MESSAGE_LIMIT, 16)
        except OSError:
            return 0
        if not data:
            return 0  # the referee's process closed it: done
        status = socket.socket(fileno=fds[3])
        try:
            pid = _fork_child(json.loads(data), fds, own_pid_namespace)
            children[os.pidfd_open(pid)] = (pid, status)
            theirs = os.pidfd_open(pid)  # the referee's: it learns the pid from it
            try:
                socket.send_fds(status, [b"started"], [theirs])
            finally:
                os.close(theirs)
        except OSError as error:
            print(f"zygote: cannot fork: {error}", file=sys.stderr)
            if all(held is not status for _, held in children.values()):
                status.close()  # no child: the referee reads that it did not start
        finally:
            for fd in fds[:3] + fds[4:]:
                os.close(fd)


def _fork_child(request: dict[str, Any], fds: list[int], own_pid_namespace: int) -> int:
    """Fork the agent as the first process of a PID namespace of its own; its pid (OSError if impossible).

    unshare(CLONE_NEWPID) gives the next fork a new namespace, and only from the caller's own
    one: the zygote goes back to its own first (setns), so every child gets a fresh namespace
    and the zygote reaps it itself (no process in between).
    """
    _check(_libc.setns(own_pid_namespace, _CLONE_NEWPID), "setns")
    _check(_libc.unshare(_CLONE_NEWPID), "unshare")
    pid = os.fork()
    if pid == 0:
        _child(request, fds)
    return pid


def _report(pidfd: int, pid: int, status: socket.socket) -> None:
    """Reap an ended child and send its wait status to the referee (who may have left: ignored)."""
    try:
        _, code = os.waitpid(pid, 0)
    except ChildProcessError:
        code = LOST_STATUS
    with contextlib.suppress(OSError):
        status.send(str(code).encode())
    status.close()
    os.close(pidfd)


def _child(request: dict[str, Any], fds: list[int]) -> NoReturn:
    """The agent: its cgroup, namespaces, mounts, uid and filter, then the bot. Never returns."""
    stdio, status, cgroup_files = fds[:3], fds[3], fds[4:]
    os.close(status)
    try:
        for fd in cgroup_files:  # joined first: everything below counts in its limits
            os.write(fd, b"0")
            os.close(fd)
    except OSError:
        os._exit(1)
    mask = {signal.Signals(signum) for signum in signal.pthread_sigmask(signal.SIG_BLOCK, [])}

    agent: list[str] = []
    packages = bool(request.get("packages"))

    def learn_agent() -> None:
        name = _agent_name()
        if name is None:
            raise SystemExit(0)  # started ahead and never used: ended by the referee
        if name.startswith("{") and not packages:
            raise OSError("this zygote serves no bot package")
        if packages:  # its own package alone, if it plays one; no other package, ever
            _mount_package(json.loads(name)["package"] if name.startswith("{") else None)
        agent.append(name)

    def enter_sandbox() -> None:
        _own_namespaces()
        oom_killer_first()
        seccomp.join_fresh_session_keyring()
        set_rlimits(
            request.get("memory_mb"), request.get("cpu_seconds"), spawn._address_space(), processes=True
        )
        if packages:
            # A zygote serving bot packages: its child learns its agent before the uid change, for
            # its package is mounted with the zygote's capabilities; until then it waits, running
            # no bot code. Elsewhere a child started ahead waits as its seat uid already.
            learn_agent()
        _become(int(request["uid"]))
        _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # after the uid change, which clears it
        _load_filter()
        reseed_generators(_generators)  # its own random streams, not the zygote's copied ones

    def run() -> int:
        from arena.registry.plugins import PluginError
        from arena.wire.host import claim_stdio, host_agent
        from arena.wire.package_host import host_package

        if not agent:
            learn_agent()
        inp, out = claim_stdio()
        if agent[0].startswith("{"):
            launch = json.loads(agent[0])["launch"]
            spawn._fresh_std_streams(launch[1])
            return host_package(launch, inp, out)
        spawn._fresh_std_streams(agent[0])
        try:
            assert _registry is not None
            spec = _registry.agent(agent[0])
        except PluginError as error:
            print(f"arena.wire.host: {error}", file=sys.stderr)
            return 2
        return host_agent(spec, inp, out)

    spawn._child(run, (stdio[0], stdio[1], stdio[2]), mask, 0, enter_sandbox, "/tmp", (), execs=False)


def _agent_name() -> str | None:
    """The plugin agent to play: the first bytes on stdin (a 2-byte length, the name); None at end of file."""
    data = b""
    size = 2
    while len(data) < size:
        chunk = os.read(0, size - len(data))
        if not chunk:
            return None
        data += chunk
        if size == 2 and len(data) == 2:
            size += int.from_bytes(data, "big")
    return data[2:].decode()


def _mount_package(name: str | None) -> None:
    """Its bot package ``name`` (None: it plays none) alone, read-only at PACKAGE_MOUNT; the zygote's
    folder of packages hidden under an empty read-only tmpfs (no bot sees another's code)."""
    if name is not None:
        if not name or "/" in name or name in (".", ".."):
            raise OSError(f"bad package name {name!r}")
        source = f"{PACKAGES_MOUNT}/{name}".encode()
        _check(
            _libc.mount(source, PACKAGE_MOUNT.encode(), None, _MS_BIND | _MS_REC, None), "mount the package"
        )
        flags = _MS_REMOUNT | _MS_BIND | _MS_RDONLY | _MS_NOSUID | _MS_NODEV
        _check(_libc.mount(None, PACKAGE_MOUNT.encode(), None, flags, None), "remount the package read-only")
    hide = _MS_RDONLY | _MS_NOSUID | _MS_NODEV | _MS_NOEXEC
    _check(
        _libc.mount(b"tmpfs", PACKAGES_MOUNT.encode(), b"tmpfs", hide, b"size=4096,mode=0555"),
        "hide the packages",
    )


def _own_namespaces() -> None:
    """New mount, network, IPC, UTS and cgroup namespaces; a fresh private /tmp and its own /proc."""
    _check(
        _libc.unshare(_CLONE_NEWNS | _CLONE_NEWNET | _CLONE_NEWIPC | _CLONE_NEWUTS | _CLONE_NEWCGROUP),
        "unshare",
    )
    _check(_libc.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None), "mount --make-rprivate /")
    hidden = [os.open(path, os.O_PATH | os.O_CLOEXEC) for path in _under_tmp]  # before the tmpfs hides them
    size = f"size={PRIVATE_TMPFS_MB << 20},mode=1777".encode()
    _check(_libc.mount(b"tmpfs", b"/tmp", b"tmpfs", _MS_NOSUID | _MS_NODEV, size), "mount /tmp")
    _bind_again(_under_tmp, hidden)
    _check(_libc.mount(b"proc", b"/proc", b"proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, None), "mount /proc")


def _mounts_under(folder: str) -> tuple[str, ...]:
    """The mount points strictly below ``folder`` in this process's mount namespace, in mount order:
    in the zygote's sandbox, the folders bubblewrap bound over its /tmp (a checkout, a virtual
    environment or a plugin folder that lies in the temp directory: arena/process/host_view.py)."""
    found = []
    with open("/proc/self/mountinfo") as table:
        for line in table:
            # the mount point is the 5th field, with space, tab, newline and backslash octal-escaped
            point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), line.split()[4])
            if point.startswith(folder.rstrip("/") + "/") and point not in found:
                found.append(point)
    return tuple(found)


def _bind_again(paths: tuple[str, ...], fds: list[int]) -> None:
    """Bind each of ``paths`` (open in ``fds``, from under the tmpfs now over them) read-only at its
    place again, with world-readable folders above it: the child sees what an exec'd agent sees."""
    for path, fd in zip(paths, fds, strict=True):
        os.makedirs(os.path.dirname(path), mode=0o755, exist_ok=True)
        if os.path.isdir(f"/proc/self/fd/{fd}"):
            os.makedirs(path, mode=0o755, exist_ok=True)
        else:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o644))
        target = path.encode()
        _check(_libc.mount(f"/proc/self/fd/{fd}".encode(), target, None, _MS_BIND | _MS_REC, None), "bind")
        flags = _MS_REMOUNT | _MS_BIND | _MS_RDONLY | _MS_NOSUID | _MS_NODEV
        _check(_libc.mount(None, target, None, flags, None), "remount read-only")
        os.close(fd)


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


def _become(uid: int) -> None:
    """Drop to ``uid`` (its own group, no others) with no capability left, bounding set included."""
    for capability in range(_LAST_CAPABILITY + 1):
        _libc.prctl(_PR_CAPBSET_DROP, capability, 0, 0, 0)  # EINVAL past the kernel's last: ignored
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    header, data = _CapHeader(_CAPABILITY_VERSION_3, 0), (_CapData * 2)()
    _check(_libc.capset(ctypes.byref(header), data), "capset")


class _Filter(ctypes.Structure):
    _fields_ = [("length", ctypes.c_ushort), ("program", ctypes.c_void_p)]


def _load_filter() -> None:
    """No new privileges, then the seccomp filter every sandboxed agent runs under."""
    program = seccomp.program()  # built by the zygote before it forked
    assert program is not None  # zygote_supported() checked it
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = _Filter(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    _check(_libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no new privileges")
    _check(_libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0), "seccomp")


def main(argv: list[str] | None = None) -> int:
    """``python -m arena.process.zygote FD``: serve the referee on the socket at descriptor FD."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or not args[0].isdigit():
        print(
            "usage: python -m arena.process.zygote FD   (started by the referee; see docs/security.md)",
            file=sys.stderr,
        )
        return 2
    try:
        return serve(socket.socket(fileno=int(args[0])))
    except Exception as error:  # discovery failed: say so to the referee, which reports it
        with contextlib.suppress(OSError):
            socket.socket(fileno=int(args[0])).send(f"{type(error).__name__}: {error}".encode())
        return 1


if __name__ == "__main__":
    sys.exit(main())

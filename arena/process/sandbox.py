"""Where an agent runs: a bubblewrap sandbox ("bwrap") or none, with a private working directory.

Under "bwrap" every agent, Python or executable, is exec'd inside its own ``bwrap``: its own PID
namespace (it sees and can signal only its own processes, and its /proc is its own), no network,
a read-only view of only what it needs (system directories, the Python installation, the plugins'
own folders, the directory of its executable: arena/process/host_view.py), a private writable /tmp
that is also its working directory (a tmpfs of PRIVATE_TMPFS_MB, counted in its memory), only
documented environment variables, a seccomp filter (arena/process/seccomp.py: no file locks, kernel
keys, namespaces, ptrace, mounts), and, when the referee runs as root, a uid of its own
(``setpriv`` drops to it inside the sandbox). ``--die-with-parent`` ends the whole sandbox with
the referee. Under "none" the
agent runs as the referee's user with the same private working directory and limits. Either way
the directory is deleted when the agent ends. See docs/security.md for the trust model.
"""

from __future__ import annotations

import functools
import itertools
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence

from arena.process import seccomp
from arena.process.host_view import agent_environment, sandbox_pythonpath, visible_paths
from arena.process.limits import owner_gone
from arena.registry.manifest import PACKAGE_MOUNT

SANDBOXES = ("bwrap", "none")
SANDBOX_ENV = "TLACHTLI_SANDBOX"  # overrides the default (the strongest available)
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")
DIRECTORY_PREFIX = "tlachtli-agent-"  # + the referee's pid: found and deleted if it died
SEAT_UID_BASE = 1_000_000_000  # seat uids: far above any real account's
SEATS_PER_REFEREE = 64
PRIVATE_TMPFS_MB = 256  # the size of a sandboxed agent's private /tmp (a tmpfs: never the disk)
# what a zygote keeps inside its sandbox to give each child its own namespaces and uid
ZYGOTE_CAPABILITIES = ("CAP_SYS_ADMIN", "CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP")
# No pseudo-terminal: an empty read-only folder hides the devpts instance bwrap's --dev mounts (and
# /dev/ptmx, its link into it, leads nowhere). A shared instance (a zygote's, which all its
# children inherited) let two seats read each other's pty numbers, and one agent could hold the
# machine's whole pty pool; bots talk through pipes and need none.
NO_PTYS = ["--perms", "0555", "--size", "4096", "--tmpfs", "/dev/pts", "--remount-ro", "/dev/pts"]
PACKAGES_MOUNT = "/packages"  # a zygote's view of the folder of bot packages (hidden from its children)
PID_MAX = 4_194_304  # Linux's largest pid_max: a referee's pid fits below it
_seat_numbers = itertools.count()


def seat_uid(referee: int, seat_number: int) -> int:
    """The uid of a referee's seat: unique to that referee process on this machine."""
    return SEAT_UID_BASE + (referee % PID_MAX) * SEATS_PER_REFEREE + seat_number % SEATS_PER_REFEREE


def seat_referee(uid: int) -> int | None:
    """The pid of the referee that gave out seat uid ``uid`` (None: not a seat uid)."""
    return (uid - SEAT_UID_BASE) // SEATS_PER_REFEREE if uid >= SEAT_UID_BASE else None


class SandboxError(ValueError):
    """A sandbox that is unknown or cannot run on this machine."""


@functools.cache
def bwrap_works() -> bool:
    """Whether bubblewrap is installed and can make the namespaces the sandbox needs, here."""
    if shutil.which("bwrap") is None or shutil.which("setpriv") is None:
        return False
    try:
        probe = subprocess.run(
            ["bwrap", "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "--proc", "/proc", "true"],
            capture_output=True,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return probe.returncode == 0


def choose_sandbox(requested: str | None) -> str:
    """The sandbox in force: ``$TLACHTLI_SANDBOX`` (set by ``--sandbox``), else ``requested`` (the
    ladder's), else the strongest this machine can run. SandboxError if it cannot run here."""
    return check_sandbox(os.environ.get(SANDBOX_ENV, "").strip() or requested)


def strongest_sandbox() -> str:
    return "bwrap" if bwrap_works() else "none"


def check_sandbox(name: str | None) -> str:
    """``name`` (None: the strongest) if it can run here; SandboxError with what to do otherwise."""
    if name is None:
        return strongest_sandbox()
    if name not in SANDBOXES:
        raise SandboxError(f"unknown sandbox {name!r}: use 'bwrap' or 'none'")
    if name == "bwrap" and not bwrap_works():
        raise SandboxError(
            "sandbox 'bwrap' cannot run here: install bubblewrap (apt-get install bubblewrap) "
            "or use --sandbox none for trusted bots"
        )
    return name


@functools.cache
def _sweep_stale_directories() -> None:
    """Delete private directories left by referees that died without cleaning up (kill -9)."""
    root = tempfile.gettempdir()
    for name in os.listdir(root):
        if owner_gone(name, DIRECTORY_PREFIX):
            shutil.rmtree(os.path.join(root, name), ignore_errors=True)


class Jail:
    """One agent's confinement: its private directory, its uid, and the command that wraps it."""

    def __init__(
        self, sandbox: str, network: bool = False, package: str | None = None, packages: str | None = None
    ) -> None:
        self.sandbox = sandbox
        self.network = network
        # a bot package's folder, bound read-only at PACKAGE_MOUNT; a zygote's ``packages``: the folder
        # holding them, bound at PACKAGES_MOUNT for its children to take their own from (arena/process/zygote.py)
        self.package = package
        self.packages = packages
        self.extra: list[str] = []  # more bwrap arguments (a build's folders: arena/submissions/build.py)
        _sweep_stale_directories()
        # A uid of its own when we may give one (root): unique to this referee process and
        # agent, so no two live agents, nor the referee, share it.
        self.uid: int | None = None
        if sandbox == "bwrap" and os.geteuid() == 0:
            self.uid = seat_uid(os.getpid(), next(_seat_numbers))
        self._directory: str | None = None
        self.seccomp_fd: int | None = None  # the filter bwrap reads, open from wrap() until started()

    @property
    def directory(self) -> str:
        """The private directory on the host, made at first use: an agent forked from a zygote
        has a tmpfs of its own instead (arena/process/zygote.py) and never needs one."""
        if self._directory is None:
            self._directory = tempfile.mkdtemp(prefix=f"{DIRECTORY_PREFIX}{os.getpid()}-")
            if self.uid is not None:
                os.chown(self._directory, self.uid, self.uid)
            # 0711 for a seat uid: bwrap (root without its capabilities) must still enter it
            os.chmod(self._directory, 0o711 if self.uid is not None else 0o700)
        return self._directory

    @property
    def own_uid(self) -> bool:
        return self.uid is not None

    def wrap(self, argv: Sequence[str], zygote: bool = False) -> list[str]:
        """The command that runs ``argv`` in this jail (``argv`` itself without a sandbox).

        ``zygote``: for arena/process/zygote.py, which sandboxes each child itself: as root, with the
        capabilities that takes, without the filter and the seat uid (its children get them).
        """
        if self.sandbox == "none":
            return list(argv)
        # No user namespace for root: the seat uid (setpriv below) must be a real one.
        args = ["bwrap", "--unshare-pid", "--unshare-ipc", "--unshare-uts"]
        args += ["--unshare-cgroup-try"] if not zygote else ["--cap-drop", "ALL"]
        for capability in ZYGOTE_CAPABILITIES if zygote else ():
            args += ["--cap-add", capability]
        args += ["--die-with-parent", "--new-session"]
        if os.geteuid() != 0:
            args.append("--unshare-user")
        if not self.network:
            args.append("--unshare-net")
        for path in SYSTEM_DIRS:
            if os.path.islink(path):
                args += ["--symlink", os.readlink(path), path]
            elif os.path.isdir(path):
                args += ["--ro-bind", path, path]
        args += ["--proc", "/proc", "--dev", "/dev"] + NO_PTYS + private_tmpfs("/tmp")
        program = sys.executable if argv[0].startswith(PACKAGE_MOUNT + "/") else argv[0]
        for path in visible_paths(program):  # after /tmp: a program may live under /tmp
            args += _ancestors(path) + ["--ro-bind", path, path]
        if self.package is not None:
            args += ["--ro-bind", self.package, PACKAGE_MOUNT]
        if self.packages is not None:
            args += ["--ro-bind", self.packages, PACKAGES_MOUNT, "--dir", PACKAGE_MOUNT]
        args += self.extra
        args += (self._seccomp_args() if not zygote else []) + ["--chdir", "/tmp", "--"]
        if self.uid is not None and not zygote:
            uid = str(self.uid)
            args += ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]
            args += ["--inh-caps=-all", "--bounding-set=-all", "--"]
        return args + list(argv)

    def environment(self) -> dict[str, str]:
        """The agent's whole environment: the documented variables only (arena/process/host_view.py)."""
        if self.sandbox == "none":
            path = [
                os.path.abspath(entry)
                for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep)
                if entry
            ]
            return agent_environment(self.directory, path)
        return agent_environment("/tmp", sandbox_pythonpath())

    def _seccomp_args(self) -> list[str]:
        """``--seccomp FD`` with a fresh copy of the filter (none on a machine it is not built for)."""
        program = seccomp.program()
        if program is None:
            return []
        self.close_fds()
        self.seccomp_fd = seccomp.program_fd(program)
        return ["--seccomp", str(self.seccomp_fd)]

    @property
    def pass_fds(self) -> tuple[int, ...]:
        """Descriptors the wrapped command must inherit (the seccomp filter's)."""
        return () if self.seccomp_fd is None else (self.seccomp_fd,)

    def close_fds(self) -> None:
        """Close what ``wrap`` opened for the command (once it started, or failed to); idempotent."""
        if self.seccomp_fd is not None:
            os.close(self.seccomp_fd)
            self.seccomp_fd = None

    def remove(self) -> None:
        """Delete the private directory and whatever the agent left in it."""
        self.close_fds()
        if self._directory is not None:
            shutil.rmtree(self._directory, ignore_errors=True)


def private_tmpfs(path: str) -> list[str]:
    """bwrap arguments mounting a fresh tmpfs of PRIVATE_TMPFS_MB at ``path``, writable by the seat
    uid: what the bot writes fills memory its cgroup counts, never the disk, and a write past
    the size fails with ENOSPC."""
    return ["--perms", "1777", "--size", str(PRIVATE_TMPFS_MB << 20), "--tmpfs", path]


def _ancestors(path: str) -> list[str]:
    """bwrap arguments making every parent of ``path`` a world-readable directory (not the original's mode)."""
    args: list[str] = []
    parts = path.strip("/").split("/")[:-1]
    for depth in range(1, len(parts) + 1):
        args += ["--perms", "0755", "--dir", "/" + "/".join(parts[:depth])]
    return args

"""Test plugin: ``hostile``, a Python bot that attacks what it can reach, then plays option 0.

Loaded through ``TLACHTLI_PLUGINS`` by tests/arena/process/test_sandbox.py. ``agent_options["attack"]`` picks
the attack, made at its first decision; it reports on stderr (kept in the match record) lines
``FOUND: ...`` for anything it got that it should not have, and ``RESULT: ...`` for figures.
"""

from __future__ import annotations

import collections
import ctypes
import fcntl
import gc
import os
import platform
import signal
import stat
import struct
import sys
import time
from typing import Any

from arena.registry.plugins import AgentSpec, hookimpl
from arena.wire.agent import Agent


def report(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def other_pids() -> list[int]:
    me = os.getpid()
    return [int(e) for e in os.listdir("/proc") if e.isdigit() and int(e) != me]


def spawn(body) -> int:
    """Fork a child that leaves the session (setsid) and runs ``body``; its pid (0 if refused)."""
    try:
        pid = os.fork()
    except OSError:
        return 0
    if pid == 0:
        try:
            os.setsid()
            body()
        finally:
            os._exit(0)
    return pid


# System call numbers of the key attacks, by machine (libc has no keyctl wrapper).
KEY_SYSCALLS = {"x86_64": {"add_key": 248, "keyctl": 250}, "aarch64": {"add_key": 217, "keyctl": 219}}
KEY_SPEC_USER_KEYRING = -4
KEYCTL_SETPERM, KEYCTL_READ, KEYCTL_SET_TIMEOUT = 5, 11, 15
LOCK_BASE = 1 << 20  # byte offsets of the lock channel: LOCK_BASE + seat
FLOCK = struct.Struct("hhqqi4x")  # struct flock on 64-bit Linux: type, whence, start, len, pid


def key_syscall(name: str, *args) -> int:
    """A key system call through libc's syscall(); -errno when refused."""
    libc = ctypes.CDLL(None, use_errno=True)
    number = KEY_SYSCALLS[platform.machine()][name]
    result = libc.syscall(ctypes.c_long(number), *args)
    return -ctypes.get_errno() if result == -1 else result


def locked_by_another(fd: int, offset: int) -> bool:
    """Whether another process holds a lock on byte ``offset`` of ``fd``'s file (F_GETLK)."""
    probe = FLOCK.pack(fcntl.F_WRLCK, os.SEEK_SET, offset, 1, 0)
    kind = FLOCK.unpack(fcntl.fcntl(fd, fcntl.F_GETLK, probe))[0]
    return kind != fcntl.F_UNLCK


def spin(seconds: float) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


class Hostile(Agent):
    name = "hostile"
    version = "1"

    def setup(self, hello: dict[str, Any]) -> None:
        self.options = hello["agent_options"]
        self.done = False
        self.seat = hello["seat"]
        if self.options.get("attack") == "spy":
            self.spy()
        if self.options.get("attack") == "locks":
            self.publish_locks()

    def act(self, observation: dict[str, Any], decision: dict[str, Any]) -> int:
        if self.options.get("attack") == "locks":
            self.read_locks()
        elif not self.done:
            self.done = True
            getattr(self, self.options["attack"].replace("-", "_"))()
        elif self.options["attack"] == "ticker":
            with open("/tmp/ticks") as ticks:
                report(f"RESULT: ticks {ticks.read().strip() or 0}")
        return 0

    # -- attacks -------------------------------------------------------------------------

    def kill_others(self) -> None:
        """SIGKILL every process it can see but itself: the opponent, the referee, anything."""
        hit = 0
        for pid in other_pids():
            try:
                os.kill(pid, signal.SIGKILL)
                hit += 1
            except OSError:
                pass
        report(f"RESULT: killed {hit}")

    def stop_parent(self) -> None:
        for signum in (signal.SIGSTOP, signal.SIGKILL):
            try:
                os.kill(os.getppid(), signum)
            except OSError as error:
                report(f"RESULT: parent {signum.name}: {error.strerror}")

    def spy(self) -> None:
        """Look for the referee's match: its frames, its objects, its /proc, the seed, the store."""
        referee_kinds = ("Match", "MatchSpec", "Seat", "AgentProcess", "SeatPlan")
        frame = sys._getframe()
        while frame is not None:
            for name, value in dict(frame.f_locals).items():
                if type(value).__name__ in referee_kinds:
                    report(f"FOUND: frame local {name}: {type(value).__name__}")
            frame = frame.f_back
        gc.unfreeze()  # what a forked child inherited was frozen out of gc's lists
        found: collections.Counter[str] = collections.Counter()
        for thing in gc.get_objects():
            if isinstance(thing, type):
                continue
            kind = type(thing).__name__
            if kind in referee_kinds or (
                hasattr(type(thing), "to_act") and hasattr(type(thing), "observation")
            ):
                found[kind] += 1
        # once per kind: a forked child inherits every state its parent held (a test worker's
        # many), and a line per object overflowed the record's stderr tail
        for kind, count in sorted(found.items()):
            report(f"FOUND: object {kind} (x{count})")
        secret = str(self.options.get("seed"))
        for pid in [os.getppid(), *other_pids()]:
            for part in ("cmdline", "environ"):
                try:
                    with open(f"/proc/{pid}/{part}", "rb") as handle:
                        text = handle.read().decode(errors="replace")
                except OSError:
                    continue
                if f"--seed\0{secret}" in text or f"seed={secret}" in text or f"--seed={secret}" in text:
                    report(f"FOUND: seed in /proc/{pid}/{part}")
        try:
            with open(f"/proc/{os.getppid()}/mem", "rb") as mem:
                mem.read(1)
            report("FOUND: the parent's memory")
        except OSError:
            pass
        for path in self.options.get("private", []):
            try:
                with open(path, "rb") as handle:
                    handle.read(1)
                report(f"FOUND: read {path}")
            except OSError:
                pass
        report("RESULT: spy done")

    def leave_file(self) -> None:
        with open(os.path.join(os.environ.get("TMPDIR", "/tmp"), "hand.txt"), "w") as note:
            note.write("my hand")
        with open("left-here.txt", "w") as note:  # the working directory
            note.write("my hand")

    def find_file(self) -> None:
        for path in (
            "/tmp/hand.txt",
            "left-here.txt",
            os.path.join(os.environ.get("TMPDIR", "/tmp"), "hand.txt"),
        ):
            if os.path.exists(path):
                report(f"FOUND: {path}")

    def setsid_children(self) -> None:
        """Grandchildren that leave the session and live on, one spinning."""
        for _ in range(3):
            spawn(lambda: time.sleep(600))
        spawn(lambda: spin(600))
        report("RESULT: children started")

    def memory_spread(self) -> None:
        """Three children, started one after another, each holding 100 MB (under a 150 MB limit
        for the bot), then how many hold it at once. Not how many ever held it: the cgroup's
        OOM killer ends the largest process of the group, i.e. an earlier holder, and lets the
        next one through."""

        def hold() -> None:
            block = bytearray(100 * 1024 * 1024)
            for i in range(0, len(block), 4096):
                block[i] = 1
            open(f"holding-{os.getpid()}", "w").close()  # noqa: SIM115 - a mark in the private dir
            report("RESULT: holding 100 MB")
            time.sleep(600)

        def running(pid: int) -> bool:
            return os.waitpid(pid, os.WNOHANG) == (0, 0)  # reaps it if it ended

        children = []
        for _ in range(3):
            pid = spawn(hold)
            children.append(pid)
            deadline = time.monotonic() + 10
            while (
                pid and not os.path.exists(f"holding-{pid}") and running(pid) and time.monotonic() < deadline
            ):
                time.sleep(0.02)
        time.sleep(0.5)
        holding = [pid for pid in children if pid and os.path.exists(f"holding-{pid}") and running(pid)]
        report(f"RESULT: holding at once {len(holding)}")

    def cpu_spread(self) -> None:
        """A relay of children, each staying under a per-process 1 s CPU limit, 4 s in all."""
        for _ in range(5):
            pid = spawn(lambda: spin(0.8))
            if pid:
                try:
                    os.waitpid(pid, 0)
                except ChildProcessError:
                    pass
        report("RESULT: relay finished")

    def fork_bomb(self) -> None:
        count = 0
        while count < 10_000 and spawn(lambda: time.sleep(600)):
            count += 1
        report(f"RESULT: processes {count}")

    def open_files(self) -> None:
        files = []
        try:
            while len(files) < 100_000:
                files.append(open(os.devnull))  # noqa: SIM115
        except OSError:
            pass
        report(f"RESULT: open files {len(files)}")
        for handle in files:
            handle.close()

    def huge_file(self) -> None:
        written = 0
        chunk = b"x" * (1024 * 1024)
        try:
            with open("huge.bin", "wb") as handle:
                while written < 1024 * chunk.__len__():
                    handle.write(chunk)
                    handle.flush()
                    written += len(chunk)
        except OSError as error:
            report(f"RESULT: stopped at {written // (1024 * 1024)} MB: {error.strerror}")
        os.remove("huge.bin")

    def stderr_flood(self) -> None:
        line = b"y" * 1023 + b"\n"
        for _ in range(50 * 1024):  # 50 MB
            os.write(2, line)

    def cpu_hog(self) -> None:
        """Steal the opponent's clock: sixty spinning processes, each in a session of its own
        (so each its own scheduler autogroup), left running while the opponent decides."""
        started = [
            pid for pid in (spawn(lambda: spin(600)) for _ in range(self.options.get("spinners", 60))) if pid
        ]
        report(f"RESULT: spinners {len(started)}")

    def memfd_fill(self) -> None:
        """Hold memory the address-space limit never sees: unmapped memfd files, filled in 64 MiB
        steps up to ``mb`` (default 3 GiB, so the machine is never at risk), stopping at the
        first refusal. Reports what it holds after each 256 MiB."""
        chunk = b"m" * (1 << 20)
        held = 0
        files = []
        try:
            while held < self.options.get("mb", 3072):
                fd = os.memfd_create(f"hoard-{len(files)}")
                files.append(fd)
                for _ in range(64):
                    os.write(fd, chunk)
                    held += 1
                if held % 256 == 0:
                    report(f"RESULT: memfd holds {held} MB")
        except OSError as error:
            report(f"RESULT: memfd stopped at {held} MB: {error.strerror}")
            return
        report(f"RESULT: memfd held all {held} MB")

    def fill_tmp(self) -> None:
        """Fill the private directory with files under the per-file cap, up to ``mb`` (default 1 GiB)."""
        with open("/proc/self/mountinfo") as mounts:
            if any(line.split()[4] == "/tmp" and " - tmpfs " in line for line in mounts):
                report("RESULT: tmp is tmpfs")
        chunk = b"d" * (1 << 20)
        written = 0
        try:
            while written < self.options.get("mb", 1024):
                with open(f"/tmp/fill-{written}", "wb") as handle:
                    for _ in range(32):
                        handle.write(chunk)
                        handle.flush()
                        written += 1
        except OSError as error:
            report(f"RESULT: tmp full at {written} MB: {error.strerror}")
            return
        report(f"RESULT: tmp took all {written} MB")

    def fill_disk(self) -> None:
        """Fill the disk holding ``dir`` (a small tmpfs mounted by the test; the bot runs without a
        sandbox) with ``dir``/filler: once, if ``dir``/please-fill is there (removed first), and
        never more than 32 MiB."""
        try:
            os.remove(os.path.join(self.options["dir"], "please-fill"))
        except OSError:
            return
        chunk = b"f" * 4096
        written = 0
        try:
            with open(os.path.join(self.options["dir"], "filler"), "wb") as filler:
                while written < 32 << 20:
                    filler.write(chunk)
                    filler.flush()
                    written += len(chunk)
        except OSError as error:
            report(f"RESULT: disk full at {written} bytes: {error.strerror}")

    def ticker(self) -> None:
        """Work between its decisions: a child (own session) counting 10 ms ticks in /tmp/ticks,
        reported at each later decision."""

        def tick() -> None:
            count = 0
            while True:
                time.sleep(0.01)
                count += 1
                with open("/tmp/ticks.new", "w") as ticks:
                    ticks.write(str(count))
                os.replace("/tmp/ticks.new", "/tmp/ticks")

        open("/tmp/ticks", "w").close()  # noqa: SIM115
        spawn(tick)

    def reserve(self) -> None:
        """Reserve 4 GiB of address space without touching it, as a JVM does at start."""
        import mmap

        try:
            mmap.mmap(-1, 4 << 30, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS).close()
            report("RESULT: reserved 4096 MB")
        except OSError as error:
            report(f"RESULT: reserve refused: {error.strerror}")

    def oom_score(self) -> None:
        with open("/proc/self/oom_score_adj") as score:
            report(f"RESULT: oom_score_adj {score.read().strip()}")

    def stdout_flood(self) -> None:
        """Write junk on the protocol pipe itself (found among its open files)."""
        for fd in map(int, os.listdir("/proc/self/fd")):
            if fd > 2 and os.readlink(f"/proc/self/fd/{fd}").startswith("pipe:"):
                try:
                    os.write(fd, b"\xff" * 65536)
                except OSError:
                    pass

    # -- channels between agents running at the same time, or one after another --------------

    def publish_locks(self) -> None:
        """Hold a read lock at byte LOCK_BASE + seat of a file every sandbox sees (this module):
        the other rotation of the deal, running at the same time, reads who is where (its hand,
        in a real attack) with F_GETLK; nothing is written anywhere."""
        self.lock_fd = os.open(__file__, os.O_RDONLY)
        try:
            fcntl.fcntl(
                self.lock_fd,
                fcntl.F_SETLK,
                FLOCK.pack(fcntl.F_RDLCK, os.SEEK_SET, LOCK_BASE + self.seat, 1, 0),
            )
            report(f"RESULT: lock published at seat {self.seat}")
        except OSError as error:
            report(f"RESULT: lock refused: {error.strerror}")

    def read_locks(self) -> None:
        """Look for the locks of other agents (each decision: they may start later)."""
        time.sleep(float(self.options.get("linger_s", 0.0)))  # overlap with a concurrent match
        for seat in range(8):
            try:
                if locked_by_another(self.lock_fd, LOCK_BASE + seat):
                    report(f"FOUND: another agent's lock at seat {seat}")
            except OSError as error:
                report(f"RESULT: F_GETLK refused: {error.strerror}")
                return

    def key_store(self) -> None:
        """Leave a key readable by every uid in its user keyring, for a later agent to find."""
        description = f"tlachtli-hand-{self.options['tag']}".encode()
        serial = key_syscall(
            "add_key",
            b"user",
            description,
            b"my hand",
            ctypes.c_size_t(7),
            ctypes.c_long(KEY_SPEC_USER_KEYRING),
        )
        if serial < 0:
            report(f"RESULT: add_key refused: {os.strerror(-serial)}")
            return
        key_syscall("keyctl", ctypes.c_long(KEYCTL_SET_TIMEOUT), ctypes.c_long(serial), ctypes.c_long(120))
        granted = key_syscall(
            "keyctl", ctypes.c_long(KEYCTL_SETPERM), ctypes.c_long(serial), ctypes.c_long(0x3F3F3F3F)
        )
        report(f"RESULT: key stored {serial} (setperm {granted})")

    def key_find(self) -> None:
        """Look for a key an earlier agent left (/proc/keys lists what this uid may view) and read it."""
        wanted = f"tlachtli-hand-{self.options['tag']}"
        with open("/proc/keys") as keys:
            lines = keys.readlines()
        report(f"RESULT: keys in view {' '.join(line.split()[0] for line in lines)}")
        serials = [int(line.split()[0], 16) for line in lines if wanted in line]
        for serial in serials:
            buffer = ctypes.create_string_buffer(64)
            size = key_syscall(
                "keyctl", ctypes.c_long(KEYCTL_READ), ctypes.c_long(serial), buffer, ctypes.c_size_t(64)
            )
            got = buffer.raw[: max(0, size)].decode(errors="replace") if size >= 0 else os.strerror(-size)
            report(f"FOUND: key {wanted} in /proc/keys, read: {got}")
        report("RESULT: key search done")

    def namespaces(self) -> None:
        """Try to leave the sandbox's namespaces or reach past them: a new user namespace (root in
        it), a new mount namespace, ptrace. Reports each as allowed or refused."""
        libc = ctypes.CDLL(None, use_errno=True)
        clone_newuser, clone_newns, ptrace_traceme = 0x10000000, 0x00020000, 0
        tries = {
            "unshare user": lambda: libc.unshare(clone_newuser),
            "unshare mount": lambda: libc.unshare(clone_newns),
            "ptrace": lambda: libc.ptrace(ptrace_traceme, 0, None, None),
        }
        for what, call in tries.items():
            refused = call() == -1
            report(
                f"RESULT: {what} {'refused: ' + os.strerror(ctypes.get_errno()) if refused else 'allowed'}"
            )

    def env(self) -> None:
        """Report every environment variable's name (a referee's secret must not be among them)."""
        report(f"RESULT: env {','.join(sorted(os.environ))}")

    def close_stdout(self) -> None:
        """Close the protocol's output pipe and keep running (never answer)."""
        stderr = os.fstat(2).st_ino
        for fd in map(int, os.listdir("/proc/self/fd")):
            try:
                info = os.fstat(fd)
                writing = fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_WRONLY
            except OSError:
                continue
            if fd > 2 and stat.S_ISFIFO(info.st_mode) and writing and info.st_ino != stderr:
                os.close(fd)
        report("RESULT: stdout closed")
        time.sleep(600)


class Steady(Agent):
    """The victim: the same CPU work at every decision (``loops`` iterations of a plain loop), so
    that its decision times, recorded by the referee, show only what others take from it."""

    name = "steady"
    version = "1"

    def setup(self, hello: dict[str, Any]) -> None:
        self.loops = hello["agent_options"].get("loops", 2_000_000)

    def act(self, observation: dict[str, Any], decision: dict[str, Any]) -> int:
        total = 0
        for i in range(self.loops):
            total += i
        return 0


@hookimpl
def tlachtli_agents() -> list[AgentSpec]:
    return [
        AgentSpec(name="hostile", description="attacks what it can reach", factory=Hostile, version="1"),
        AgentSpec(name="steady", description="fixed CPU work per decision", factory=Steady, version="1"),
    ]

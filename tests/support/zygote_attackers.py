"""A bot that tries to leave a note for the next match played from the same zygote.

Agent ``note`` (a plugin, loaded through TLACHTLI_PLUGINS), agent option ``phase``:
- ``leave``: writes ``tag`` through every channel a forked model might offer, reads each back in
  the same match and reports ``LEFT: <channel>`` for those that held (so the probes are real);
- ``look``: reports ``FOUND: <channel>`` for each note of ``tag`` it finds, then ``LOOKED``;
- ``both``: leaves, then looks, in one match (the control: every note left is found);
- ``inspect``: reports what it is: ``FACT: name=value`` lines (uid, visible pids, capabilities,
  seccomp mode, open descriptors, /tmp's contents, environment names);
- ``slow``: takes 0.1 s a decision;
- ``linger``: at ``end``, reports ``ENDED``, closes its stdout and stderr and spins, never exiting.
Notes go to stderr, which the referee keeps in the record.
"""

from __future__ import annotations

import ctypes
import os
import signal
import socket
import sys
import time
import zlib
from typing import Any

from arena.registry.plugins import AgentSpec, hookimpl
from arena.wire.agent import Agent

NOTES: list[str] = []  # a module global: changed in one match's child, seen by the next?
KEEPERS: list[int] = []  # its own socket keepers: spared by the signals it sends
_libc = ctypes.CDLL(None, use_errno=True)
_libc.shmat.restype = ctypes.c_void_p
IPC_CREAT, SHM_SIZE = 0o1000, 4096
PTRACE_ATTACH = 16
WRITABLE_CANDIDATES = (
    "/",
    "/var/tmp",
    "/dev",
    "/dev/shm",
    "/run",
    "/var/lock",
    "/etc",
    "/usr",
    "/proc/self/cwd",
)


def report(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _shm_key(tag: str) -> int:
    return zlib.crc32(tag.encode()) & 0x7FFFFFFF


def _socket_name(tag: str) -> bytes:
    return f"\0tlachtli-note-{tag}".encode()


class Channels:
    """Each channel's ``leave`` and ``look`` (True: the note of ``tag`` is there)."""

    def __init__(self, tag: str) -> None:
        self.tag = tag

    # module global
    def leave_global(self) -> None:
        NOTES.append(self.tag)

    def look_global(self) -> bool:
        return self.tag in NOTES

    # files in its private directory, its home, and any other folder it can write
    def leave_files(self) -> None:
        for folder in ("/tmp", os.path.expanduser("~"), *WRITABLE_CANDIDATES):
            try:
                with open(os.path.join(folder, f"note-{self.tag}"), "w") as note:
                    note.write(self.tag)
            except OSError:
                continue

    def look_files(self) -> bool:
        return any(
            os.path.exists(os.path.join(folder, f"note-{self.tag}"))
            for folder in ("/tmp", os.path.expanduser("~"), *WRITABLE_CANDIDATES)
        )

    # an abstract unix socket, held open by a process of its own that outlives its parent
    def leave_socket(self) -> None:
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(_socket_name(self.tag))
        server.listen(8)
        keeper = os.fork()
        if keeper == 0:  # a keeper: answers anyone who connects
            try:
                os.setsid()
                for fd in (0, 1, 2):
                    os.close(fd)
                while True:
                    server.accept()[0].close()
            finally:
                os._exit(0)
        KEEPERS.append(keeper)
        server.close()

    def look_socket(self) -> bool:
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(_socket_name(self.tag))
            return True
        except OSError:
            return False
        finally:
            probe.close()

    # SysV shared memory (IPC namespace)
    def leave_shm(self) -> None:
        segment = _libc.shmget(_shm_key(self.tag), SHM_SIZE, IPC_CREAT | 0o666)
        if segment >= 0:
            address = _libc.shmat(segment, None, 0)
            ctypes.memmove(address, self.tag.encode(), len(self.tag))

    def look_shm(self) -> bool:
        return _libc.shmget(_shm_key(self.tag), SHM_SIZE, 0) >= 0

    # the host name (UTS namespace)
    def leave_hostname(self) -> None:
        name = self.tag[:32].encode()
        _libc.sethostname(name, len(name))

    def look_hostname(self) -> bool:
        return socket.gethostname() == self.tag[:32]

    # the zygote or any earlier process: signals, ptrace
    def leave_signals(self) -> None:
        for pid in set(_other_pids()) - set(KEEPERS):
            for signum in (signal.SIGUSR1, signal.SIGSTOP):
                try:
                    os.kill(pid, signum)
                except OSError:
                    pass
            _libc.ptrace(PTRACE_ATTACH, pid, None, None)

    def look_signals(self) -> bool:
        return False  # a zygote signalled or stopped would fail this match's start instead

    # the environment it was forked with
    def leave_environment(self) -> None:
        os.environ["TLACHTLI_NOTE"] = self.tag

    def look_environment(self) -> bool:
        return os.environ.get("TLACHTLI_NOTE") == self.tag


CHANNELS = ("global", "files", "socket", "shm", "hostname", "signals", "environment")


def _other_pids() -> list[int]:
    me = os.getpid()
    return [int(entry) for entry in os.listdir("/proc") if entry.isdigit() and int(entry) != me]


def leave(tag: str) -> None:
    channels = Channels(tag)
    for name in CHANNELS:
        try:
            getattr(channels, f"leave_{name}")()
        except OSError as error:
            report(f"REFUSED: {name}: {error.strerror}")
        if getattr(channels, f"look_{name}")():
            report(f"LEFT: {name}")


def look(tag: str) -> None:
    channels = Channels(tag)
    for name in CHANNELS:
        if getattr(channels, f"look_{name}")():
            report(f"FOUND: {name}")
    report("LOOKED")


def inspect() -> None:
    with open("/proc/self/status") as status:
        fields = dict(line.rstrip("\n").split(":\t", 1) for line in status if ":\t" in line)
    report(f"FACT: uid={os.getuid()}")
    report(f"FACT: pids={len(_other_pids()) + 1}")
    report(f"FACT: cap_eff={fields['CapEff'].strip()} cap_bnd={fields['CapBnd'].strip()}")
    report(f"FACT: seccomp={fields['Seccomp'].strip()} no_new_privs={fields['NoNewPrivs'].strip()}")
    targets = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue  # the listing's own descriptor, closed meanwhile
        targets.add("pipe" if target.startswith("pipe:") else target)
    report(f"FACT: fds={','.join(sorted(targets))}")
    report(f"FACT: tmp={','.join(sorted(os.listdir('/tmp')))} cwd={os.getcwd()}")
    report(f"FACT: env={','.join(sorted(os.environ))}")
    report(
        f"FACT: net={','.join(sorted(socket.if_nameindex()[i][1] for i in range(len(socket.if_nameindex()))))}"
    )


class NoteLeaver(Agent):
    name = "note"
    version = "1"

    def setup(self, hello: dict[str, Any]) -> None:
        options = hello["agent_options"]
        phase, tag = options["phase"], str(options.get("tag", ""))
        self.phase = phase
        if phase in ("leave", "both"):
            leave(tag)
        if phase in ("look", "both"):
            look(tag)
        if phase == "inspect":
            inspect()

    def act(self, observation: dict[str, Any], decision: dict[str, Any]) -> int:
        if self.phase == "slow":  # a match long enough to be interrupted
            time.sleep(0.1)
        return 0

    def end(self, result: dict[str, Any]) -> None:
        if self.phase == "linger":  # closes its files, then keeps the CPU busy
            report(f"ENDED uid={os.getuid()}")
            os.close(1)
            os.close(2)
            while True:
                pass


@hookimpl
def tlachtli_agents() -> list[AgentSpec]:
    return [
        AgentSpec(name="note", description="leaves notes for its next match", factory=NoteLeaver, version="1")
    ]


def start_python_agents_from_a_zygote(monkeypatch) -> None:
    """This test's Python agents start from a zygote (with these bots among its plugins), in the sandbox."""
    from arena.process.sandbox import SANDBOX_ENV
    from arena.process.spawn import START_ENV

    monkeypatch.setenv("TLACHTLI_PLUGINS", os.environ["TLACHTLI_PLUGINS"] + ",tests.support.zygote_attackers")
    monkeypatch.setenv(START_ENV, "zygote")
    monkeypatch.delenv(SANDBOX_ENV, raising=False)

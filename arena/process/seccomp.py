"""The seccomp filter of every sandboxed agent: a classic-BPF program built with the stdlib.

bubblewrap loads it (``bwrap --seccomp FD``) just before it execs the agent's command, after its
own setup, so nothing bwrap needs is refused. It closes the channels a namespace does not: between
agents running at the same time (file locks, inotify), or one after another (kernel keys), and
the ways out of the sandbox's namespaces. Refused calls fail with EPERM; the program goes on.

- keys: ``add_key``, ``request_key``, ``keyctl`` (a key in a user keyring outlives the agent);
- namespaces and mounts: ``unshare``, ``setns``, ``clone`` with a CLONE_NEW* flag, ``mount``,
  ``umount2``, ``pivot_root`` and the new mount API; ``clone3`` answers ENOSYS (its flags sit in
  memory a filter cannot read) so libc falls back to ``clone``, which is checked;
- other processes and the kernel: ``ptrace``, ``process_vm_readv``/``writev``, ``bpf``,
  ``perf_event_open``;
- file locks, on any file (a filter sees no paths): ``flock`` and ``fcntl`` F_GETLK, F_SETLK,
  F_SETLKW, their OFD and 64-bit forms, and F_SETLEASE; and file-access watches: ``inotify_*``,
  ``fanotify_*`` (a read of a shared file is an event another agent can watch for).

Only the machine's own system-call table is allowed: a call made through another ABI (32-bit
x86, x32) kills the process. Built for x86_64 and aarch64; elsewhere ``program()`` returns None
and the sandbox runs without the filter (docs/security.md). See docs/security.md for why this
is built here rather than with libseccomp.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import platform
import struct

# struct seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6] (little-endian)
_NR, _ARCH, _ARG0, _ARG1 = 0, 4, 16, 24
# classic BPF opcodes
_LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ, _JGE, _JSET = 0x15, 0x35, 0x45  # BPF_JMP | BPF_JEQ / BPF_JGE / BPF_JSET, with BPF_K
_RET = 0x06  # BPF_RET | BPF_K
ALLOW = 0x7FFF0000
KILL_PROCESS = 0x80000000
REFUSE = 0x00050000 | errno.EPERM  # SECCOMP_RET_ERRNO
NOT_THERE = 0x00050000 | errno.ENOSYS

# CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET (clone's low byte is its signal)
CLONE_NEW_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000
# F_GETLK, F_SETLK, F_SETLKW, F_GETLK64..F_SETLKW64 (32-bit forms), F_OFD_GETLK..F_OFD_SETLKW, F_SETLEASE
LOCK_COMMANDS = (5, 6, 7, 12, 13, 14, 36, 37, 38, 1024)
X32_SYSCALL_BIT = 0x40000000


class Machine:
    """One architecture's audit id and the numbers of the calls the filter looks at."""

    def __init__(
        self, arch: int, refused: dict[str, int], clone: int, clone3: int, fcntl: int, x32: bool
    ) -> None:
        self.arch = arch
        self.refused = refused
        self.clone = clone
        self.clone3 = clone3
        self.fcntl = fcntl
        self.x32 = x32  # the x32 ABI shares the arch id: its calls carry X32_SYSCALL_BIT


MACHINES = {
    "x86_64": Machine(
        0xC000003E,  # AUDIT_ARCH_X86_64
        {
            "keyctl": 250,
            "add_key": 248,
            "request_key": 249,
            "unshare": 272,
            "setns": 308,
            "ptrace": 101,
            "process_vm_readv": 310,
            "process_vm_writev": 311,
            "mount": 165,
            "umount2": 166,
            "pivot_root": 155,
            "bpf": 321,
            "perf_event_open": 298,
            "flock": 73,
            "open_tree": 428,
            "move_mount": 429,
            "fsopen": 430,
            "fsconfig": 431,
            "fsmount": 432,
            "fspick": 433,
            "mount_setattr": 442,
            "inotify_init": 253,
            "inotify_init1": 294,
            "inotify_add_watch": 254,
            "fanotify_init": 300,
            "fanotify_mark": 301,
        },  # fmt: skip
        clone=56,
        clone3=435,
        fcntl=72,
        x32=True,
    ),
    "aarch64": Machine(
        0xC00000B7,  # AUDIT_ARCH_AARCH64
        {
            "keyctl": 219,
            "add_key": 217,
            "request_key": 218,
            "unshare": 97,
            "setns": 268,
            "ptrace": 117,
            "process_vm_readv": 270,
            "process_vm_writev": 271,
            "mount": 40,
            "umount2": 39,
            "pivot_root": 41,
            "bpf": 280,
            "perf_event_open": 241,
            "flock": 32,
            "open_tree": 428,
            "move_mount": 429,
            "fsopen": 430,
            "fsconfig": 431,
            "fsmount": 432,
            "fspick": 433,
            "mount_setattr": 442,
            "inotify_init1": 26,
            "inotify_add_watch": 27,
            "fanotify_init": 262,
            "fanotify_mark": 263,
        },  # fmt: skip
        clone=220,
        clone3=435,
        fcntl=25,
        x32=False,
    ),
}


class _Assembler:
    """Classic BPF with labels: jumps name their targets, resolved to forward offsets at the end."""

    def __init__(self) -> None:
        self.code: list[tuple[int, object, object, int]] = []
        self.labels: dict[str, int] = {}

    def load(self, offset: int) -> None:
        self.code.append((_LD_W_ABS, 0, 0, offset))

    def jump(self, op: int, value: int, true: str | int = 0, false: str | int = 0) -> None:
        """If ``op`` holds for ``value``: go to label ``true``, else ``false`` (0: the next instruction)."""
        self.code.append((op, true, false, value))

    def ret(self, action: int) -> None:
        self.code.append((_RET, 0, 0, action))

    def label(self, name: str) -> None:
        self.labels[name] = len(self.code)

    def assemble(self) -> bytes:
        """The program as an array of struct sock_filter {u16 code; u8 jt, jf; u32 k}."""
        out = bytearray()
        for here, (code, true, false, value) in enumerate(self.code):
            jt, jf = (self._offset(here, target) for target in (true, false))
            out += struct.pack("=HBBI", code, jt, jf, value)
        return bytes(out)

    def _offset(self, here: int, target: object) -> int:
        if isinstance(target, int):
            return target
        offset = self.labels[str(target)] - here - 1
        if not 0 <= offset <= 255:
            raise ValueError(f"BPF jump to {target!r} out of range ({offset})")
        return offset


def build(machine: Machine) -> bytes:
    """The filter for ``machine`` (see the module's docstring)."""
    bpf = _Assembler()
    bpf.load(_ARCH)
    bpf.jump(_JEQ, machine.arch, false="kill")
    bpf.load(_NR)
    if machine.x32:
        bpf.jump(_JGE, X32_SYSCALL_BIT, true="kill")
    for number in sorted(set(machine.refused.values())):
        bpf.jump(_JEQ, number, true="refuse")
    bpf.jump(_JEQ, machine.clone3, true="not-there")
    bpf.jump(_JEQ, machine.clone, true="clone")
    bpf.jump(_JEQ, machine.fcntl, true="fcntl")
    bpf.ret(ALLOW)
    bpf.label("clone")  # flags: the first argument's low 32 bits
    bpf.load(_ARG0)
    bpf.jump(_JSET, CLONE_NEW_FLAGS, true="refuse")
    bpf.ret(ALLOW)
    bpf.label("fcntl")  # the command: the second argument
    bpf.load(_ARG1)
    for command in LOCK_COMMANDS:
        bpf.jump(_JEQ, command, true="refuse")
    bpf.ret(ALLOW)
    bpf.label("refuse")
    bpf.ret(REFUSE)
    bpf.label("not-there")
    bpf.ret(NOT_THERE)
    bpf.label("kill")
    bpf.ret(KILL_PROCESS)
    return bpf.assemble()


@functools.cache  # built once per process: every agent's start asks for it
def program(machine: str | None = None) -> bytes | None:
    """The filter for this machine (or ``machine``, as ``platform.machine()`` names it); None if unsupported."""
    found = MACHINES.get(machine or platform.machine())
    return build(found) if found is not None else None


def program_fd(filter_program: bytes) -> int:
    """A fresh file (memfd, read from its start) holding ``filter_program``, for ``bwrap --seccomp``."""
    fd = os.memfd_create("tlachtli-seccomp", 0)  # inheritable: bwrap reads it after exec
    try:
        os.write(fd, filter_program)
        os.lseek(fd, 0, os.SEEK_SET)
    except OSError:
        os.close(fd)
        raise
    return fd


KEYCTL_JOIN_SESSION_KEYRING = 1


def join_fresh_session_keyring() -> None:
    """Give the calling process (an agent's child, before exec) a new anonymous session keyring.

    Otherwise it would share the referee's session keyring (bwrap keeps it) with every other
    agent; the filter refuses keyctl afterwards, so the agent can neither fill nor leave it.
    Best effort: a kernel without keys, or an unknown machine, changes nothing.
    """
    machine = MACHINES.get(platform.machine())
    if machine is None:
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall(
            ctypes.c_long(machine.refused["keyctl"]), ctypes.c_long(KEYCTL_JOIN_SESSION_KEYRING), None
        )
    except (OSError, AttributeError):
        pass

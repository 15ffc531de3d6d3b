"""A package's build command, run in the same bubblewrap sandbox as a match, then frozen.

The unpacked package is mounted read-only at /src and copied (arena/submissions/build_inside.py)
into /bot, a tmpfs of ``build_mb`` (the disk cap: a write past it fails with ENOSPC). The build
runs there as a seat uid with no network (unless the ladder's ``build_network``), the match's seccomp filter, a cgroup (memory, 64
processes), the per-process limits, and a wall clock of ``build_seconds``; its output is cut to
its last ``OUTPUT_LIMIT`` bytes for the owner's log. What it leaves in /bot comes back as a
.tar.gz and is unpacked under the same checks as an upload (sizes, files, no links).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import IO

from arena.process.limits import BotCgroup, die_with_parent, oom_killer_first, set_rlimits
from arena.process.sandbox import PACKAGE_MOUNT, Jail, private_tmpfs
from arena.process.seccomp import join_fresh_session_keyring
from arena.submissions.archive import PackageRejected, unpack
from arena.tournament.plan.submission_limits import MIB, SubmissionLimits

OUTPUT_LIMIT = 10 * 1024  # the build's output kept for its owner (the tail)


def run_build(
    source: Path, command: tuple[str, ...], target: Path, limits: SubmissionLimits, log: Callable[[str], None]
) -> None:
    """Build the package unpacked in ``source`` into ``target``, its output (cut) to ``log``;
    PackageRejected with one line if it fails, runs past its clock or leaves a result the caps refuse."""
    jail = Jail("bwrap", network=limits.build_network)
    jail.extra = ["--ro-bind", str(source), "/src", *_sized_tmpfs(PACKAGE_MOUNT, limits.build_mb)]
    cgroup = BotCgroup.create(limits.build_mb * 2)  # its tmpfs's pages count in its memory too
    argv = jail.wrap([sys.executable, "-m", "arena.submissions.build_inside", *command])
    parent = os.getpid()

    def prepare() -> None:
        die_with_parent(signal.SIGKILL, parent)
        if cgroup is not None:
            cgroup.enter()
        oom_killer_first()
        join_fresh_session_keyring()
        set_rlimits(None, None, processes=jail.own_uid)

    result = bytearray()
    output = bytearray()
    overflow: list[bool] = []
    try:
        process = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=jail.environment(),
            cwd=jail.directory,
            pass_fds=jail.pass_fds,
            start_new_session=True,
            preexec_fn=prepare,
        )
    except OSError as error:
        _clean(jail, cgroup)
        raise PackageRejected(f"the build could not start: {error.strerror or error}") from None
    jail.close_fds()
    cap = limits.unpacked_bytes + MIB
    assert process.stdout is not None and process.stderr is not None
    readers = [
        threading.Thread(target=_drain, args=(process.stdout, result, cap, overflow), daemon=True),
        threading.Thread(target=_drain, args=(process.stderr, output, OUTPUT_LIMIT, None), daemon=True),
    ]
    for reader in readers:
        reader.start()
    started = time.monotonic()
    try:
        status = process.wait(timeout=limits.build_seconds)
    except subprocess.TimeoutExpired:
        status = None
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        if cgroup is not None:
            cgroup.kill_all()
        process.wait()
        for reader in readers:
            reader.join(timeout=5)
        _clean(jail, cgroup)
    text = output.decode("utf-8", "replace")
    cut = f"(only its last {OUTPUT_LIMIT // 1024} KiB kept)\n" if len(output) >= OUTPUT_LIMIT else ""
    log(f"build: {' '.join(command)} ({time.monotonic() - started:.1f} s, status {status})\n{cut}{text}")
    if status is None:
        raise PackageRejected(f"the build ran past its {limits.build_seconds} s (submissions.build_seconds)")
    if status != 0:
        raise PackageRejected(f"the build failed (exit status {status}); see its log: {_last_line(text)}")
    if overflow:
        raise PackageRejected(f"the build left more than {limits.unpacked_mb} MiB (submissions.unpacked_mb)")
    unpack(bytes(result), "tar.gz", target, replace(limits, ratio=10**6))  # the build's own bytes: no ratio


def _sized_tmpfs(path: str, size_mb: int) -> list[str]:
    args = private_tmpfs(path)
    args[args.index("--size") + 1] = str(size_mb * MIB)
    return args


def _drain(stream: IO[bytes], into: bytearray, cap: int, overflow: list[bool] | None) -> None:
    """Read ``stream`` to its end: the result (``overflow`` given) whole or flagged past ``cap``;
    a log, its last ``cap`` bytes."""
    while chunk := stream.read1(65536):  # type: ignore[attr-defined]
        into += chunk
        if len(into) <= cap:
            continue
        if overflow is not None:
            overflow.append(True)
            into.clear()  # read on to the end (the build must not block), keep nothing
        else:
            del into[: len(into) - cap]


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:200] if lines else "no output"


def _clean(jail: Jail, cgroup: BotCgroup | None) -> None:
    if cgroup is not None:
        cgroup.kill_all()
        cgroup.remove()
    jail.remove()

"""Test plugin: ``hostile``, a Python bot that attacks what it can reach, then plays option 0.

Loaded through ``TLACHTLI_PLUGINS`` by tests/arena/wire/test_sandbox.py. ``agent_options["attack"]`` picks
the attack, made at its first decision; it reports on stderr (kept in the match record) lines
``FOUND: ...`` for anything it got that it should not have, and ``RESULT: ...`` for figures.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
import time
from typing import Any

from arena.agent import Agent
from arena.plugins import AgentSpec, hookimpl


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
        if self.options.get("attack") == "spy":
            self.spy()

    def act(self, observation: dict[str, Any], decision: dict[str, Any]) -> int:
        if not self.done:
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
        for thing in gc.get_objects():
            if isinstance(thing, type):
                continue
            kind = type(thing).__name__
            if kind in referee_kinds or (
                hasattr(type(thing), "to_act") and hasattr(type(thing), "observation")
            ):
                report(f"FOUND: object {kind}")
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
        started = [pid for pid in (spawn(lambda: spin(600)) for _ in range(self.options.get("spinners", 60))) if pid]
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

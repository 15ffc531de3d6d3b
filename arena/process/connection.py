"""One agent subprocess seen from the referee: spawn, frames in and out, stderr capture, kill.

The agent runs in its own session (so its own process group, out of reach of the terminal's
Ctrl-C), in its sandbox (arena/process/sandbox.py) with a private working directory, under the limits
of arena/process/limits.py (a cgroup for all its processes where the machine allows). It is started by
one of arena/process/launchers.py: exec'd (an executable, or ``python -m arena.wire.host`` for a
Python plugin agent), forked from the referee when asked for (trusted bots, no sandbox), or forked
from a warm zygote (sandboxed Python agents, where asked for). ``kill`` kills the whole
group and cgroup, and deletes the directory; the referee calls it on every exit path. Every
failure is turned into an ``AgentFault`` naming what went wrong.
"""

from __future__ import annotations

import math
import os
import select
import signal
from collections.abc import Mapping, Sequence
from typing import Any

import trio

from arena.process.launchers import Launcher, ZygoteLauncher, launcher_for
from arena.process.limits import DEFAULT_MEMORY_MB, BotCgroup
from arena.process.memory import default_memory_mb, machine_memory_mb, oom_note, rank_for_oom
from arena.process.pipe_holders import agent_dropped_pipe
from arena.process.sandbox import Jail
from arena.process.spawn import ForkedProcess
from arena.process.warm import is_kept
from arena.process.zygote import ZygoteChild, package_handover, package_launch
from arena.registry.plugins import AgentSpec
from arena.wire.faults import AgentFault
from arena.wire.protocol import AGENT_FRAME_LIMIT, FrameBuffer, decode_body, encode, msgspec_codec

# The referee encodes its frames with msgspec: imported with this module, before any match runs,
# not at a match's first frame inside trio, where a Ctrl-C may cut an import short.
msgspec_codec()

STDERR_LIMIT = 16 * 1024  # bytes of an agent's stderr kept for the record (the tail)
EXIT_GRACE_S = 1.0  # how long an agent may take to exit after `end` (or to report its status)
CPU_CHECK_S = 0.2  # how often a cgroup's summed CPU time is checked against the limit
PIPE_CHECK_S = (
    0.5  # how often a sandboxed agent that keeps the referee waiting is checked for a dropped stdout
)


class DeadlineExceeded(Exception):
    """The agent did not answer (or take the message) before the deadline."""


def describe_status(returncode: int | None, pipe: str = "stdout", sandboxed: bool = False) -> tuple[str, str]:
    """(fault kind, detail) for an agent that stopped talking, from its exit status.

    ``pipe``: the pipe found closed, "stdout" (reading) or "stdin" (sending to it).
    ``sandboxed``: the status is bwrap's, which exits with 128 + N when its command got signal N.
    """
    if sandboxed and returncode is not None and 128 < returncode < 128 + signal.NSIG:
        returncode = 128 - returncode
    if returncode is None:
        return "exit", f"closed its {pipe} but is still running"
    if returncode == 0:
        return "exit", "exited with status 0 before the match ended"
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return "crash", f"killed by {name}"
    return "crash", f"exited with status {returncode}"


class AgentProcess:
    """A running agent: ``start`` it, ``send``/``receive`` messages, ``kill`` it.

    ``hosted``: the Python plugin agent to fork from this process instead of exec'ing ``argv``
    (only without a sandbox). ``plugin``: the name of the Python plugin agent ``argv`` hosts,
    forked from a zygote (arena/process/zygote.py) instead where the start method says so. ``sandbox``: "bwrap" or "none" (see arena/process/sandbox.py).
    ``cpus``: its CPU quota in cores; ``ponder``: whether it may run while not deciding (else
    the referee freezes it between decisions with ``pause``, where the freezer is available).
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        hosted: AgentSpec | None = None,
        memory_mb: int | None = None,
        cpu_seconds: int | None = None,
        frame_limit: int = AGENT_FRAME_LIMIT,
        sandbox: str = "none",
        cpus: int | None = None,
        ponder: bool = True,
        plugin: str | None = None,
        package: str | None = None,
    ) -> None:
        self.argv = list(argv)
        # a bot package's folder (arena/submissions/): mounted read-only in its sandbox, never run outside one
        self.package = package
        self.hosted = hosted if sandbox == "none" else None
        self.plugin = plugin if sandbox == "bwrap" else None
        if package is not None and sandbox == "bwrap" and package_launch(self.argv) is not None:
            # a Python bot package forks from a zygote as a plugin does: told its package, not a plugin
            self.plugin = package_handover(package, self.argv)
        self.sandbox = sandbox
        self.in_bwrap = sandbox != "none"  # exec'd in its own bwrap, whose processes hold its pipes too
        self.jail: Jail | None = None
        self.cgroup: BotCgroup | None = None
        self.limit_note = ""  # why the referee killed it, added to its fault
        self.memory_mb = memory_mb
        self.cpu_seconds = cpu_seconds
        # all its processes together (cgroup); `arena run` lowers the default where the caps do not fit
        self.bot_memory_mb = memory_mb or default_memory_mb(DEFAULT_MEMORY_MB)
        self.cpus = cpus
        self.ponder = ponder
        self.buffer = FrameBuffer(frame_limit)
        self.process: ForkedProcess | ZygoteChild | None = None
        self._stderr_tail = bytearray()
        self._stderr_total = 0
        self._stderr_done = trio.Event()
        # ``_watch``'s scope: cancelled when the agent is left to end in the background
        self._watching = trio.CancelScope()
        self._unasked_poll: select.poll | None = None
        # a sandboxed Python plugin agent may start from a zygote (when the start method says so)
        self._from_zygote = ZygoteLauncher(self.plugin, package) if self.plugin is not None else None

    def _launcher(self) -> Launcher:
        """How it starts: asked each time, as the start method stands then."""
        return launcher_for(self, self._from_zygote)

    def prepare(self) -> None:
        """The referee's own start-up for this agent, done before its handshake clock runs: the
        zygote it forks from, which a worker starts at its first match (a Python start and every
        plugin's import: seconds on a loaded machine, none of them the agent's)."""
        try:
            self._launcher().prepare(self)
        except OSError as error:
            raise self._spawn_fault(error) from None

    async def start(self, nursery: trio.Nursery) -> None:
        """Spawn the agent; its stderr is drained by a task in ``nursery`` until it closes."""
        try:
            await self._launcher().launch(self)
        except OSError as error:
            self._clean_up()
            raise self._spawn_fault(error) from None
        nursery.start_soon(self._drain_stderr)
        nursery.start_soon(self._watch)

    def _spawn_fault(self, error: OSError) -> AgentFault:
        what = f"fork agent {self.hosted.name!r}" if self.hosted else f"start {self.argv[0]!r}"
        return AgentFault("spawn", f"cannot {what}: {error.strerror or error}")

    def prestart_successor(self) -> None:
        """Where this process keeps its zygotes between matches (a runner's worker), have the zygote
        start a child ahead for the next match, under this agent's limits: it forks and enters its
        own sandbox while this match plays, then waits for the agent it will play. Called once the
        handshakes are done; a no-op for agents that do not start from a zygote."""
        if is_kept():
            self._launcher().prestart_successor(self)

    def pause(self) -> None:
        """Freeze all its processes until ``resume``: it is not deciding and may not ponder."""
        if not self.ponder and self.cgroup is not None:
            self.cgroup.freeze()

    def resume(self) -> None:
        """Thaw it: before each decision, and before ``end`` or a kill."""
        if self.cgroup is not None:
            self.cgroup.thaw()

    async def _watch(self) -> None:
        # When the agent dies, kill its group at once: a child it left behind may hold the
        # stdout pipe open, and then the referee would never see end-of-file.
        process = self.process
        with self._watching:
            await self._watch_until_dead()
        if process is self.process:  # else left to end in the background, which killed it
            self._killpg()

    async def _watch_until_dead(self) -> None:
        process, cgroup, limit = self.process, self.cgroup, self.cpu_seconds
        assert process is not None
        if cgroup is None:
            await process.wait()
            return
        machine, memory, score = machine_memory_mb(), cgroup.directories.get("memory"), None
        while True:
            with trio.move_on_after(CPU_CHECK_S):
                await process.wait()
                break
            # CPU time summed over all its processes, with RLIMIT_CPU's one second of grace
            if limit is not None and cgroup.cpu_seconds() > limit + 1:
                self.limit_note = f" (over its {limit} s CPU limit, all its processes together)"
                break
            if machine is not None and memory is not None:  # the bot holding the most dies first
                score = rank_for_oom(memory, cgroup.pids, machine, score)

    def _killpg(self) -> None:
        assert self.process is not None
        if self.cgroup is not None:
            self.cgroup.kill_all()  # also what left its session (setsid)
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass  # the group is gone already
        if self.process.returncode is None:  # not reaped, so the pid is still this agent's
            # A forked agent may not have made its own group yet (setsid is its first act):
            # then it has no children either, and killing it alone is enough.
            try:
                os.kill(self.process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    async def _drain_stderr(self) -> None:
        # Always drained: an agent blocked on a full stderr pipe would look like a timeout.
        assert self.process is not None and self.process.stderr is not None
        try:
            while data := await self.process.stderr.receive_some(65536):
                self._stderr_total += len(data)
                self._stderr_tail += data
                del self._stderr_tail[:-STDERR_LIMIT]
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            pass
        finally:
            self._stderr_done.set()

    def stderr_text(self) -> str:
        """The captured stderr (its last STDERR_LIMIT bytes, with a note when cut)."""
        text = self._stderr_tail.decode("utf-8", "replace")
        dropped = self._stderr_total - len(self._stderr_tail)
        return f"[{dropped} earlier bytes dropped]\n{text}" if dropped else text

    async def send(
        self, message: Mapping[str, Any], deadline: float = math.inf, resume: bool = False
    ) -> None:
        """Send one message by trio time ``deadline`` (else DeadlineExceeded); a dead agent raises its fault.

        ``resume``: thaw the agent (``resume``) once the message's first bytes are in its pipe, not
        before: a frozen agent then wakes once, with its message there to read, instead of once
        for the thaw and again for the message (a wake-up on another core costs more than a quick
        bot's decision). It is thawed before any wait, so a message larger than the pipe still goes.
        """
        assert self.process is not None and self.process.stdin is not None
        data = encode(message)
        try:
            # Fast path: one write on the non-blocking pipe (trio's send_all costs a scheduler
            # round per call); the rest, if the pipe is full, goes through trio.
            try:
                written = os.write(self.process.stdin.fileno(), data)
            except BlockingIOError:
                written = 0
            finally:  # on every path: a frozen agent could neither read the rest nor exit
                if resume:
                    self.resume()
            if written < len(data):
                with trio.move_on_at(deadline) as scope:
                    await self.process.stdin.send_all(data[written:])
                if scope.cancelled_caught:
                    raise DeadlineExceeded()
        except (trio.BrokenResourceError, trio.ClosedResourceError, BrokenPipeError, ValueError):
            raise await self._stopped_fault("stdin") from None

    async def receive(self, deadline: float = math.inf, linger_ms: float = 0.0) -> dict[str, Any]:
        """The next message, a msgpack map with str keys, by trio time ``deadline`` (else DeadlineExceeded).

        A bad frame or a dead agent raises its fault. The caller checks the message's schema
        (protocol.check_message), which also types every field, so nested values are not walked.

        ``linger_ms`` > 0 first waits that long for the answer in a plain ``poll`` call, holding
        the event loop: an agent that answers at once is then read without a scheduler round
        trip. Only worth it when no other agent is being waited for.
        """
        assert self.process is not None and self.process.stdout is not None
        while True:
            body = self.buffer.next_body()
            if body is not None:
                return decode_body(body, deep=False)
            data = await self._read_stdout(deadline, linger_ms)
            if not data:
                fault = await self._stopped_fault()
                if self.buffer.pending:
                    fault = AgentFault(fault.kind, fault.detail + " (in the middle of a frame)")
                raise fault
            self.buffer.feed(data)

    def wrote_unasked(self) -> bool:
        """True when the agent has written anything since its last message was read (no waiting).

        Called before each ``decide``: an answer sent before its question (a guessed id) is a fault.
        """
        assert self.process is not None and self.process.stdout is not None
        try:
            if self._unasked_poll is None:  # one poll object per agent: about 1 us per check
                self._unasked_poll = select.poll()
                self._unasked_poll.register(self.process.stdout.fileno(), select.POLLIN)
            if self._unasked_poll.poll(0):
                self.buffer.feed(os.read(self.process.stdout.fileno(), 65536))
        except (OSError, ValueError, trio.ClosedResourceError):
            pass  # nothing yet, or closed: the next receive reports a closed pipe
        return self.buffer.pending

    async def _read_stdout(self, deadline: float, linger_ms: float) -> bytes:
        """Bytes from the agent's stdout (b"" at end of file), waiting only when none are there.

        The cancel scope enforcing ``deadline`` is only entered on the slow path: it costs more
        than the rest of a quick decision.
        """
        assert self.process is not None and self.process.stdout is not None
        try:
            fd = self.process.stdout.fileno()
            if linger_ms > 0:
                poller = select.poll()
                poller.register(fd, select.POLLIN)
                poller.poll(linger_ms)
            while True:
                try:
                    return os.read(fd, 65536)
                except BlockingIOError:
                    if not await self._wait_readable(fd, deadline):
                        return b""
        except (trio.ClosedResourceError, OSError, ValueError):
            return b""

    async def _wait_readable(self, fd: int, deadline: float) -> bool:
        """Wait until stdout ``fd`` is readable (True) or the agent dropped its end (False: as end of
        file); DeadlineExceeded at ``deadline``. Under bwrap, which keeps the agent's stdio open, a
        dropped stdout causes no end of file: it is looked for every PIPE_CHECK_S instead."""
        assert self.process is not None
        while True:
            wake = deadline if not self.in_bwrap else min(deadline, trio.current_time() + PIPE_CHECK_S)
            with trio.move_on_at(wake) as scope:
                await trio.lowlevel.wait_readable(fd)
            if not scope.cancelled_caught:
                return True
            if trio.current_time() >= deadline:
                raise DeadlineExceeded()
            if agent_dropped_pipe(self.process.pid, fd):
                return False

    async def _stopped_fault(self, pipe: str = "stdout") -> AgentFault:
        """The fault of an agent whose ``pipe`` closed: crash or exit, from its status."""
        assert self.process is not None
        with trio.move_on_after(EXIT_GRACE_S):
            await self.process.wait()
        with trio.move_on_after(0.2):  # let the last stderr lines arrive: they say why
            await self._stderr_done.wait()
        kind, detail = describe_status(self.process.returncode, pipe, self.in_bwrap)
        if self.cgroup is not None and "memory" in self.cgroup.directories:
            detail += oom_note(self.cgroup.directories["memory"], self.bot_memory_mb)
        detail += self.limit_note
        last = self.stderr_text().strip().splitlines()
        if last:
            detail += f"; stderr: {last[-1][:200]}"
        return AgentFault(kind, detail)

    async def finish(self, goodbye: dict[str, Any] | None) -> None:
        """Say goodbye (best effort), let the agent exit briefly, then kill its group. Never raises."""
        if self.process is None:
            return
        early = isinstance(self.process, ZygoteChild) and is_kept()
        with trio.move_on_after(EXIT_GRACE_S):
            if goodbye is None:
                self.resume()  # a frozen agent could not exit
            else:
                try:
                    await self.send(goodbye, resume=True)  # thawed with `end` in its pipe
                except AgentFault:
                    pass
            if self.process.stdin is not None:
                await self.process.stdin.aclose()
            if early:
                await self._stderr_done.wait()  # it closed its files: its stderr is all there
            else:
                await self.process.wait()
        if early:
            self._end_in_background()
        else:
            await self.kill()

    def _end_in_background(self) -> None:
        """Kill the agent now and leave its reaping and clean-up (cgroup, jail) to a background task
        of this trio run: a worker's next match need not wait for the kernel to tear down a process
        whose files are closed (its memory, its namespaces) nor for its zygote's report. Only for a
        zygote's child, the first process of its own PID namespace: killing it kills all it started.
        """
        process, self.process = self.process, None  # ``kill`` has nothing left to do
        assert isinstance(process, ZygoteChild)
        self._watching.cancel()
        self.resume()  # a frozen process dies of SIGKILL only once thawed
        process.kill()
        trio.lowlevel.spawn_system_task(self._reap, process, name="reap an ended agent")

    async def _reap(self, process: ZygoteChild) -> None:
        with trio.CancelScope(shield=True):  # the run waits for it, even when it is ending
            try:
                await process.wait()
                for stream in (process.stdin, process.stdout, process.stderr):
                    await stream.aclose()
            finally:
                self._clean_up()

    async def kill(self) -> None:
        """Kill the agent's whole process group and reap it; safe to call again, even when cancelled."""
        if self.process is None:
            return
        with trio.CancelScope(shield=True):
            self._killpg()
            await self.process.wait()
            for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
                if stream is not None:
                    await stream.aclose()
            self._clean_up()

    def _clean_up(self) -> None:
        """Remove the cgroup (killing what is left in it) and the private directory; idempotent."""
        if self.cgroup is not None:
            self.cgroup.kill_all()
            self.cgroup.remove()
            self.cgroup = None
        if self.jail is not None:
            self.jail.remove()
            self.jail = None

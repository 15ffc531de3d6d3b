"""How an agent process starts: exec of a command (the default), or fork of the referee for a Python bot.

Both give the referee (arena/process/connection.py) a process with the same surface as ``trio.Process``:
``pid``, ``stdin``/``stdout``/``stderr`` trio streams, ``returncode`` (polls) and ``wait()``.
Either way the agent leads its own session (so its own process group), dies with the referee
(parent-death signal, set in the child before exec), runs under the match's limits
(arena/process/limits.py), and has the three pipes as its only open files.

Python agents are exec'd as ``python -m arena.wire.host NAME`` (inside the sandbox, arena/process/sandbox.py):
a fresh process holds nothing of the referee's. ``TLACHTLI_AGENT_START=fork`` forks them from the
referee instead, without a sandbox: ~70-80 ms of CPU faster per agent, but the child inherits the
referee's memory (the match state, every seat's hidden cards), so only for bots you trust.
``TLACHTLI_AGENT_START=zygote`` (the default of ``arena run``'s workers) forks sandboxed ones from
a zygote that holds no match (arena/process/zygote.py), where it can run.
"""

from __future__ import annotations

import fcntl
import gc
import os
import resource
import signal
import sys
import traceback
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from typing import Any, NoReturn

from arena.process.limits import LOST_STATUS, die_with_parent, set_rlimits
from arena.registry.plugins import AgentSpec
from arena.wire.host import claim_stdio, host_agent

START_ENV = "TLACHTLI_AGENT_START"  # "exec" (the default), "zygote" or "fork" (trusted bots, no sandbox)
START_METHODS = ("fork", "exec", "zygote")
# Signals blocked in the referee around fork(), so that the child never runs a handler it
# inherited (trio's, the runner's) before resetting them.
_FORK_BLOCKED = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGALRM}


def fork_supported() -> bool:
    """Whether Python agents can be forked here (Linux >= 5.3: fork and pidfd_open)."""
    if not hasattr(os, "fork") or not hasattr(os, "pidfd_open"):
        return False
    try:
        os.close(os.pidfd_open(os.getpid()))
    except OSError:  # an old kernel (ENOSYS) or a sandbox refusing it
        return False
    return True


def agent_start_method() -> str:
    """How Python agents start in this process: ``$TLACHTLI_AGENT_START``, else exec.

    Raises ValueError for a value that is not a start method, or "fork" where it is not supported.
    """
    wanted = os.environ.get(START_ENV, "").strip().lower()
    if wanted and wanted not in START_METHODS:
        raise ValueError(
            f"{START_ENV}={wanted!r}: use 'exec' (the default) or 'fork' (or 'zygote': warm sandboxed starts)"
        )
    if wanted != "fork":
        return wanted or "exec"
    if not fork_supported():
        raise ValueError(f"{START_ENV}=fork: this system cannot fork agents (needs Linux 5.3+); use 'exec'")
    return "fork"


def exec_agent(
    argv: Sequence[str],
    prepare: Callable[[], None],
    cwd: str | None = None,
    env: dict[str, str] | None = None,
    pass_fds: Sequence[int] = (),
) -> ForkedProcess:
    """Start ``argv`` with pipes on stdin/stdout/stderr; OSError if it cannot start.

    Forked here (from the calling thread, not a helper thread whose end would fire the
    parent-death signal), given its own session, the parent-death signal and ``prepare``
    (limits, cgroup), then exec'd: it dies with the referee even if that is killed outright.
    ``env``: its whole environment (None: this process's); ``pass_fds``: descriptors it keeps
    (inheritable ones, at the same numbers), besides the three pipes.
    """
    report_r, report_w = os.pipe2(os.O_CLOEXEC)  # carries exec's errno; closed by a good exec

    def run() -> int:
        try:
            if env is None:
                os.execvp(argv[0], list(argv))
            os.execvpe(argv[0], list(argv), env)
        except OSError as error:
            os.write(report_w, str(error.errno).encode())
        return 127

    try:
        process = _start(run, prepare, cwd, keep=(report_w, *pass_fds), execs=True)
    except OSError:
        os.close(report_r)
        raise
    finally:
        os.close(report_w)
    with open(report_r, "rb") as report:  # blocks until exec (closes it) or the child gives up
        failed = report.read()
    if failed:
        process.reap_now()
        code = int(failed) if failed.isdigit() else 0
        raise OSError(code, os.strerror(code) if code else "exec failed")
    return process


class PipedChild:
    """An agent process seen from the referee, with the surface of ``trio.Process`` that it uses:
    ``pid``, its three pipes as trio streams, ``returncode`` and ``wait``.

    A subclass says how its end is learnt: ``_end_handle`` (a descriptor or socket that becomes
    readable when it has ended) and ``_collect`` (reads the exit status into ``_returncode`` and
    closes what only served to learn it; idempotent, never raises).
    trio is imported in the methods, not with this module: a zygote (arena/process/zygote.py) imports
    the fork machinery below for its children and never runs trio (~130 ms of CPU at its start).
    """

    def __init__(self, pid: int, stdin: int, stdout: int, stderr: int) -> None:
        import trio

        self.pid = pid
        self._returncode: int | None = None
        self._wait_lock = trio.Lock()
        self.stdin = trio.lowlevel.FdStream(stdin)
        self.stdout = trio.lowlevel.FdStream(stdout)
        self.stderr = trio.lowlevel.FdStream(stderr)

    def _end_handle(self) -> Any:
        raise NotImplementedError

    def _collect(self, block: bool) -> None:
        raise NotImplementedError

    @property
    def returncode(self) -> int | None:
        """The exit status (negative: killed by that signal), or None while it runs."""
        if self._returncode is None:
            self._collect(block=False)
        return self._returncode

    async def wait(self) -> int:
        """Wait for the process to end, without blocking trio; its exit status."""
        import trio

        async with self._wait_lock:  # one waiter on the handle at a time, as trio requires
            while self._returncode is None:
                try:
                    await trio.lowlevel.wait_readable(self._end_handle())
                except trio.ClosedResourceError:
                    break  # collected meanwhile by a `returncode` poll
                self._collect(block=True)
        assert self._returncode is not None
        return self._returncode


class ForkedProcess(PipedChild):
    """A child forked (and perhaps exec'd) by the referee; its end is learnt from a pidfd and waitpid."""

    def __init__(self, pid: int, pidfd: int, stdin: int, stdout: int, stderr: int) -> None:
        super().__init__(pid, stdin, stdout, stderr)
        self._pidfd: int | None = pidfd

    def _end_handle(self) -> int | None:
        return self._pidfd

    def _collect(self, block: bool) -> None:
        """Reap the child if it ended (waiting for it with ``block``).

        Several paths reap (a ``returncode`` poll, ``wait``): whichever comes second finds the
        status kept. ChildProcessError means it was reaped outside this object: its status is lost.
        """
        if self._returncode is not None:
            return
        try:
            pid, status = os.waitpid(self.pid, 0 if block else os.WNOHANG)
        except ChildProcessError:
            pid, status = self.pid, LOST_STATUS
        if pid == 0:
            return  # still running
        self._returncode = os.waitstatus_to_exitcode(status)
        if self._pidfd is not None:
            import trio

            trio.lowlevel.notify_closing(self._pidfd)  # a task waiting on it wakes up
            os.close(self._pidfd)
            self._pidfd = None

    def reap_now(self) -> None:
        """Kill and reap it at once (a child that failed to start)."""
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self._collect(block=True)
        for stream in (self.stdin, self.stdout, self.stderr):
            stream.close()  # through the stream: closing the number alone, its collection closed it again


def fork_agent(
    spec: AgentSpec,
    memory_mb: int | None,
    cpu_seconds: int | None,
    prepare: Callable[[], None] = lambda: None,
    cwd: str | None = None,
) -> ForkedProcess:
    """Fork this process into plugin agent ``spec`` speaking the protocol on pipes; OSError if impossible.

    ``prepare`` runs in the child before the limits (e.g. joining a cgroup); ``cwd``: its working
    directory. Called from the referee's trio thread; the child never returns into the caller.
    """

    def run() -> int:
        set_rlimits(memory_mb, cpu_seconds, _address_space() if memory_mb is not None else 0)
        inp, out = claim_stdio()
        _fresh_std_streams(spec.name)
        return host_agent(spec, inp, out)

    return _start(run, prepare, cwd)


def _start(
    run: Callable[[], int],
    prepare: Callable[[], None],
    cwd: str | None,
    keep: Sequence[int] = (),
    execs: bool = False,
) -> ForkedProcess:
    """Fork a child with pipes on 0-2 that runs ``run`` (its exit status); ``keep``: more fds it keeps.

    ``execs``: ``run`` execs another program, which gets SIGPIPE's default too (as subprocess does).
    """
    pipes: list[int] = []
    try:
        for _ in range(3):
            pipes.extend(os.pipe())
    except OSError:
        _close(pipes)
        raise
    stdin_r, stdin_w, stdout_r, stdout_w, stderr_r, stderr_w = pipes
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, _FORK_BLOCKED)
    referee = os.getpid()
    try:
        pid = os.fork()
        if pid == 0:
            _child(run, (stdin_r, stdout_w, stderr_w), mask, referee, prepare, cwd, keep, execs)
    except OSError:
        _close(pipes)
        raise
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # the parent only: the child never gets here
    _close([stdin_r, stdout_w, stderr_w])
    try:
        pidfd = os.pidfd_open(pid)
    except OSError:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        _close([stdin_w, stdout_r, stderr_r])
        raise
    return ForkedProcess(pid, pidfd, stdin_w, stdout_r, stderr_r)


def _close(fds: list[int]) -> None:
    for fd in fds:
        os.close(fd)


def _child(
    run: Callable[[], int],
    stdio: tuple[int, int, int],
    mask: AbstractSet[int],  # the signals to block again (Signals are ints)
    referee: int,
    prepare: Callable[[], None],
    cwd: str | None,
    keep: Sequence[int],
    execs: bool,
) -> NoReturn:
    """The forked agent: its own session, clean signals and files, ``prepare``, then ``run``. Never returns."""
    status = 1
    _inherited = (sys.stdin, sys.stdout, sys.stderr)  # kept referenced: their finalizers would close fds
    try:
        # The referee's objects are never collected here: a finalizer could close an fd number
        # the agent reuses, and a full collection would touch (so copy) every inherited page.
        gc.freeze()
        os.setsid()
        # A referee killed outright (kill -9) runs no clean-up: the kernel stops its agents then.
        # Safe here because the referee forks from its main thread, which lives as long as it does.
        die_with_parent(signal.SIGKILL, referee)
        _reset_signals(keep_sigpipe=not execs)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        # The pipes onto 0, 1, 2 (moved above 2 first, in case one of them is 0..2), then no
        # other file: no other agent's pipe, nor the referee's, stays open in this process.
        moved = [fcntl.fcntl(fd, fcntl.F_DUPFD, 3) for fd in stdio]
        for target, fd in enumerate(moved):
            os.dup2(fd, target)
        low = 3
        for fd in sorted(keep):
            os.closerange(low, fd)
            low = fd + 1
        os.closerange(low, os.sysconf("SC_OPEN_MAX"))
        prepare()
        if cwd is not None:
            os.chdir(cwd)
        status = run()
    except SystemExit as leaving:  # the bot called sys.exit(): same status as an exec'd Python
        code = leaving.code
        status = code if isinstance(code, int) else (0 if code is None else 1)
        if not isinstance(code, int | None):
            print(code, file=sys.stderr)
    except BaseException:
        try:
            traceback.print_exc()
        except BaseException:
            pass
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:
                pass
        # Its pipes close before the kernel tears down its memory (~1-2 ms): the referee, waiting
        # for the end of its stderr after `end`, goes on that much sooner.
        os.closerange(0, os.sysconf("SC_OPEN_MAX"))
        os._exit(status)  # never back into the referee's trio code


def _reset_signals(keep_sigpipe: bool) -> None:
    """Default dispositions for every signal: nothing of the referee's, nor of its own parents'.

    Handlers the referee set in Python (trio's, the runner's) go, and so do ignored signals: a
    referee started from a background shell job ignores SIGINT, and an agent inheriting that
    could not be interrupted. ``keep_sigpipe``: a forked Python agent keeps ignoring SIGPIPE as
    every Python program does (a closed pipe raises BrokenPipeError instead of killing it).
    """
    try:
        signal.set_wakeup_fd(-1)  # trio's wake-up socket belongs to the referee
    except ValueError:
        pass  # not the main thread: no wake-up fd was set from here
    for signum in signal.valid_signals():
        if keep_sigpipe and signum == signal.SIGPIPE:
            continue
        try:
            if signal.getsignal(signum) != signal.SIG_DFL:
                signal.signal(signum, signal.SIG_DFL)
        except (OSError, ValueError, TypeError):
            continue  # SIGKILL, SIGSTOP and the like: cannot be changed


def _address_space() -> int:
    """Bytes of address space this process has (inherited from the referee when just forked)."""
    with open("/proc/self/statm", "rb") as statm:
        return int(statm.read().split()[0]) * resource.getpagesize()


def _fresh_std_streams(name: str) -> None:
    """New sys.stdin/stdout/stderr on fds 0-2 (stdout already points at stderr), line buffered.

    Also names the process after the agent (``ps -o comm``) and points faulthandler, if the
    referee had it on, at the agent's stderr.
    """
    sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115 (lives until os._exit)
    sys.stdout = open(1, "w", buffering=1, encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", buffering=1, encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115
    try:
        with open("/proc/self/comm", "w") as comm:
            comm.write(f"agent:{name}"[:15])
    except OSError:
        pass
    import faulthandler

    if faulthandler.is_enabled():
        faulthandler.enable(file=sys.stderr)

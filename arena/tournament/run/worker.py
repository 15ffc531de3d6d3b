"""A runner's worker process: it plays each match its parent sends and answers with the outcome.

Forked from the run's fork server (arena/tournament/run/fork_server.py), which imports this module
ahead, so it holds only what playing needs (the referee, trio, the plugins), not the parent's
progress display, store or scheduling (arena/tournament/run/runner.py).
"""

from __future__ import annotations

import os
import signal
import time
from multiprocessing.connection import Connection

from arena.match.spec import MatchSpec
from arena.process.limits import die_with_parent
from arena.registry.plugins import Registry, discover
from arena.tournament.run import fork_server
from arena.tournament.run.replies import Done, Failed, PlayReply, Started


async def play_in_trio(spec: MatchSpec, registry: Registry, live: str | None = None) -> PlayReply:
    """Play one match inside the worker's trio loop (kept from match to match: starting one costs
    ~2 ms a match): its reply, ``Done`` (outcome, seconds) or ``Failed`` (why); ``live``: the file
    its steps go to as they are played (arena/match/live.py). ``Terminated`` (SIGTERM) passes through."""
    from arena.match.referee import Terminated, play_unless_terminated, single_errors

    started = time.perf_counter()
    try:
        with single_errors():  # out of trio's nurseries, as ``run_match`` raises them
            outcome = await play_unless_terminated(spec, registry, None, live)
    except Terminated:
        raise
    except Exception as error:  # the referee refused or broke: the parent reports it
        return Failed(f"{type(error).__name__}: {error}")
    return Done(outcome, time.perf_counter() - started)


def worker_main(conn: Connection, parent_pid: int, environ: dict[str, str] | None = None) -> None:
    """A worker process: play each match the parent sends on ``conn``, answer with its outcome.

    ``parent_pid``: the process it was started from, the run's or its fork server's
    (arena/tournament/run/fork_server.py); ``environ``: the run's environment, for a worker forked from
    the server (which has the environment the run had when it started the server).
    It leads its own process group (the terminal's Ctrl-C reaches the parent only, which stops
    the workers deliberately) and gets SIGTERM if the run dies, even by kill -9. SIGTERM
    during a match makes the referee stop it and kill its agents (``Terminated``); between
    matches the worker leaves, ending what it keeps warm (its zygote, the agents it started ahead
    for its next match and their cgroups: arena/process/warm.py).
    """
    os.setpgrp()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(signal.SIGTERM, parent_pid)
    fork_server.leave()
    if environ is not None:
        os.environ.clear()
        os.environ.update(environ)
    # here: the parent never needs trio; the zygotes (arena/process/zygote.py) last as long as the worker
    import trio

    from arena.match.referee import Terminated
    from arena.process.spawn import START_ENV
    from arena.process.warm import kept_warm

    # Sandboxed Python agents start warm, forked from this worker's zygote, where it can run
    # (root with bubblewrap; docs/security.md): as isolated as exec'd ones, ~1/6 of the CPU a match.
    os.environ.setdefault(START_ENV, "zygote")
    registry = discover()

    async def serve() -> None:  # one trio loop for every match of this worker
        async with trio.open_nursery() as nursery:
            nursery.start_soon(leave_on_sigterm, nursery.cancel_scope)
            await play_all()
            nursery.cancel_scope.cancel()

    async def leave_on_sigterm(scope: trio.CancelScope) -> None:
        # Between matches only: a match's referee takes SIGTERM itself (the innermost receiver gets it).
        with trio.open_signal_receiver(signal.SIGTERM) as signals:
            async for _ in signals:
                scope.cancel()

    async def play_all() -> None:
        while True:
            try:
                await trio.lowlevel.wait_readable(conn.fileno())
                task = conn.recv()
            except (EOFError, OSError):  # the parent is gone
                return
            if task is None:
                return
            spec, live = task
            conn.send(Started())  # the watchdog counts from here: worker start-up is not the match's
            try:
                reply = await play_in_trio(spec, registry, live)
            except Terminated:
                return
            conn.send(reply)

    with kept_warm():
        trio.run(serve)

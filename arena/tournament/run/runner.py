"""Runs a ladder's pending matches in parallel local worker processes; the parent stores results.

Each worker process plays one match at a time through the referee (``arena.match.referee.run_match``,
trio inside), and talks to the parent over a pipe of its own (the workers are forked from a fork
server that imported what they need: arena/tournament/run/fork_server.py): workers share no queue or lock,
so one killed at any moment costs only its own match. The parent is the only writer of the
database: it marks a match running when it hands it out and commits each outcome the moment it
arrives, so a crash or ``kill -9`` loses at most the matches in flight, which the next run plays
again.

Watchdog: a worker whose referee is stopped (SIGSTOP) or runs past its match's wall-clock bound
(``watchdog_seconds``) is killed with its agents, like one that died; the match is played again
by a fresh worker, and recorded as aborted, with the reason, once its worker was lost
MAX_FAILURES times, so a bot that kills or stops its referee cannot keep a ladder from finishing.

Ctrl-C or SIGTERM: no new match starts, workers are told to stop theirs (the referee then kills
its agents) and killed after STOP_GRACE_S (at once on a second Ctrl-C); finished matches stay
stored, unfinished ones go back to pending. A full disk (the store refuses a write) stops the
run the same way, with one error saying so; the rerun, once there is space, goes on.

The loop that hands out matches and stores what comes back (``run_pending``) sees the workers
through a small seam, ``Pool``: the local ``_Pool`` here, or a Dask cluster (arena/tournament/run/cluster.py),
whose tasks play each match on a ``WatchedWorker``: a worker process as here, under the same watchdog.
"""

from __future__ import annotations

import math
import multiprocessing
import multiprocessing.connection as mp_connection
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.context import BaseContext
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any, Protocol

import psutil
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from arena.match.live import (
    live_file,
    make_private_folder,
    remove_live_folder,
    remove_quietly,
    tournament_live_folder,
)
from arena.match.spec import MatchSpec
from arena.tournament.plan.schedule import deal_key, take_next
from arena.tournament.run import fork_server
from arena.tournament.run.replies import (
    Done,
    Failed,
    Lost,
    PlayReply,
    Recovered,
    Reply,
    Started,
    Stop,
    WorkerReply,
)
from arena.tournament.run.worker import worker_main
from arena.tournament.store.api import AlreadyStored, DiskFullError, StoredMatch, StoreError, TournamentStore

MAX_FAILURES = 3  # a match whose worker is lost this many times (over all runs) is aborted
STOP_GRACE_S = 5.0  # after Ctrl-C or SIGTERM: how long workers get to stop their match cleanly
STOPPED_GRACE_S = 2.0  # a worker seen stopped (SIGSTOP) this long is killed
WATCHDOG_DECISIONS = 2000  # decisions per match the watchdog allows for (see watchdog_seconds)
WATCHDOG_MARGIN_S = 30.0  # on top of the clocks: engine work, process starts, a loaded machine
EXIT_WAIT_S = 10.0  # a worker whose pipe closed is exiting: how long to wait for its exit status
POLL_S = 0.25  # how often the loops waiting for replies look at signals, the watchdog and cancellations


def default_jobs() -> int:
    """The number of cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


@dataclass
class RunReport:
    """What a call to ``run_pending`` did."""

    played: int = 0
    failed: int = 0
    aborted: int = 0  # matches recorded as aborted (worker lost MAX_FAILURES times)
    lost_workers: int = 0  # workers that died, stopped or hung during a match
    interrupted: bool = False
    signal: int | None = None  # what interrupted it: SIGINT (Ctrl-C) or SIGTERM
    seconds: float = 0.0
    errors: list[str] = field(default_factory=list)

    @property
    def rate(self) -> float:
        """Matches per second of wall time."""
        return self.played / self.seconds if self.seconds > 0 else 0.0


# -- parent side -------------------------------------------------------------------------------


class _RateColumn(ProgressColumn):
    """Matches per second since the start of this run (matches done by an earlier run excluded)."""

    def render(self, task: Task) -> Text:
        elapsed = task.elapsed or 0.0
        played = task.completed - task.fields.get("done_before", 0)
        rate = played / elapsed if elapsed > 0 else 0.0
        return Text(f"{rate:5.2f} matches/s", style="progress.data.speed")


def _progress(console: Console, show: bool) -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        _RateColumn(),
        TextColumn("elapsed"),
        TimeElapsedColumn(),
        TextColumn("left"),
        TimeRemainingColumn(),
        console=console,
        disable=not show,
    )


def watchdog_seconds(spec: MatchSpec) -> float:
    """The wall-clock bound of one match, after which the runner kills its worker.

    The referee's own clocks end any match sooner: each decision waits at most ``move_ms`` plus
    what is left of the seat's bank, and the handshake ``handshake_ms``. So a match takes at most
    handshake + every seat's bank + decisions x move_ms; the bound assumes WATCHDOG_DECISIONS
    decisions (about 5 times the longest bundled game, a 4-player Teotihuacan) plus a margin.
    Only a stopped or broken referee ever meets it.
    """
    return (
        spec.handshake_ms + spec.players * spec.bank_ms + WATCHDOG_DECISIONS * spec.move_ms
    ) / 1000 + WATCHDOG_MARGIN_S


class PoolStopped(Exception):
    """The pool cannot go on (workers that cannot start, a refused or lost cluster): its message says why."""


class Pool(Protocol):
    """What ``run_pending`` needs of the workers that play its matches.

    A reply (arena/tournament/run/replies.py) is what ``play`` returns (``Done``, ``Failed``), or
    ``Lost``: the match's worker was lost, or ``Recovered``: it was lost but the pool played the
    match again itself (a Dask cluster), its outcome follows, or ``Stop``: the pool cannot go on
    (``run_pending`` stops the run with its reason as the error).
    """

    size: int  # matches it plays at once

    def has_room(self) -> bool:
        """Whether ``hand`` may be called now."""

    def hand(self, match: StoredMatch) -> None:
        """Start playing ``match``."""

    def in_flight(self) -> int:
        """Matches handed and not yet answered."""

    def events(self, timeout: float) -> list[tuple[StoredMatch, Reply]]:
        """Wait up to ``timeout`` s; each match answered since, with its reply."""

    def stop(self, stop: _Stop, collect: Callable[[StoredMatch, Reply], None]) -> None:
        """End every match in flight (Ctrl-C, SIGTERM, the end), passing on replies that still arrive."""

    def close(self) -> None:
        """Release every worker and process it holds; safe to call again."""


@dataclass
class _Worker:
    """One worker process the parent owns, its end of their pipe, and the match it is playing."""

    process: BaseProcess
    conn: Connection
    match: StoredMatch | None = None
    deadline: float = math.inf  # monotonic time after which the watchdog kills it
    stopped_since: float | None = None  # when it was first seen stopped (SIGSTOP)

    @property
    def pid(self) -> int:
        assert self.process.pid is not None
        return self.process.pid

    def hand(self, match: StoredMatch, live: str | None = None) -> None:
        """Send it a match (and the live file it plays it into); the watchdog starts when it says
        it has begun (see ``_Pool.events``)."""
        self.match = match
        self.deadline = math.inf
        self.conn.send((match.spec, live))

    def signal(self, signum: int) -> None:
        try:
            os.kill(self.pid, signum)
        except ProcessLookupError:
            pass

    def kill(self) -> None:
        """SIGKILL it and every process it started that is still its descendant (agents), then reap it."""
        try:
            family = psutil.Process(self.pid).children(recursive=True)
        except psutil.Error:
            family = []
        self.signal(signal.SIGKILL)
        for process in family:
            try:
                process.kill()  # psutil refuses a pid reused by another process
            except psutil.Error:
                pass
        self.process.join(5)
        self.conn.close()


class _Pool:
    """Worker processes owned one by one, each with its own pipe.

    Unlike a shared task queue, nothing is shared between workers: one killed at any moment
    (kill -9, the OOM killer, a bot killing its referee) costs only the match it was playing,
    and the parent replaces it.
    """

    def __init__(self, size: int, live: Path | None = None, preloaded: bool = True) -> None:
        self.size = size
        self.live = live  # the folder of the matches' live files (arena/match/live.py); None: not followed
        # Workers are forked from a fork server that imported what they need (arena/tournament/run/fork_server.py),
        # or spawned (a fresh interpreter each): never forked from the parent, which holds SQLite.
        self.preloaded = preloaded
        self._holds_server = False
        self.workers: list[_Worker] = []
        self._lost: list[tuple[StoredMatch, Reply]] = []  # losses noticed while handing out

    def has_room(self) -> bool:
        return any(worker.match is None for worker in self.workers) or len(self.workers) < self.size

    def hand(self, match: StoredMatch) -> None:
        worker = self.idle()
        assert worker is not None, "hand() without room"
        live = None
        if self.live is not None:
            make_private_folder(self.live)
            live = str(live_file(self.live, match.id))
        try:
            worker.hand(match, live)
        except OSError:  # it died before taking the match
            self._lose(worker, _death(worker), self._lost)

    def in_flight(self) -> int:
        return len(self.busy())

    def events(self, timeout: float) -> list[tuple[StoredMatch, Reply]]:
        found, self._lost = self._lost, []
        for worker, reply in self._replies(0 if found else timeout):
            if reply is None:
                self._lose(worker, _death(worker), found)
            elif worker.match is not None:
                found.append((worker.match, reply))
                worker.match, worker.deadline = None, math.inf
        for worker, reason in self.overdue(time.monotonic()):
            self._lose(worker, reason, found)
        return found

    def _lose(self, worker: _Worker, reason: str, found: list[tuple[StoredMatch, Reply]]) -> None:
        """Kill a lost worker; its match, if any, is reported lost (``began``: after it started)."""
        match, began = worker.match, worker.deadline < math.inf
        self.drop(worker)
        if match is not None:
            found.append((match, Lost(reason, began, 1)))

    def start_worker(self) -> _Worker:
        context: BaseContext
        if self.preloaded and not self._holds_server:
            try:
                fork_server.acquire()
                self._holds_server = True
            except OSError:  # its socket cannot be made (e.g. TMPDIR's path too long for one): spawn
                self.preloaded = False
        if self.preloaded:
            context = multiprocessing.get_context("forkserver")
            args: tuple[object, ...] = (fork_server.server_pid(), dict(os.environ))
        else:
            context, args = multiprocessing.get_context("spawn"), (os.getpid(),)
        ours, theirs = context.Pipe()
        process = context.Process(target=worker_main, args=(theirs, *args), name="arena-worker", daemon=True)
        process.start()
        theirs.close()
        worker = _Worker(process, ours)
        self.workers.append(worker)
        return worker

    def idle(self) -> _Worker | None:
        """A worker free for a match (a new one while the pool is not full), or None."""
        for worker in self.workers:
            if worker.match is None:
                return worker
        return self.start_worker() if len(self.workers) < self.size else None

    def busy(self) -> list[_Worker]:
        return [worker for worker in self.workers if worker.match is not None]

    def drop(self, worker: _Worker) -> None:
        """Kill ``worker`` (and its agents) and forget it."""
        worker.kill()
        self.workers.remove(worker)

    def _replies(self, timeout: float) -> list[tuple[_Worker, PlayReply | None]]:
        """Wait up to ``timeout`` s; each worker that answered (its reply) or died (None)."""
        waiting: dict[Any, _Worker] = {worker.conn: worker for worker in self.workers}  # pipes, sentinels
        waiting.update({worker.process.sentinel: worker for worker in self.workers})
        ready = mp_connection.wait(list(waiting), timeout)
        found: dict[int, _Worker] = {id(waiting[thing]): waiting[thing] for thing in ready}
        events: list[tuple[_Worker, PlayReply | None]] = []
        for worker in found.values():
            while True:  # every reply waiting in the pipe (Started, then maybe the outcome)
                try:
                    if not worker.conn.poll():
                        if not worker.process.is_alive():
                            events.append((worker, None))
                        break
                    reply = worker.conn.recv()
                except (EOFError, OSError):
                    events.append((worker, None))
                    break
                if isinstance(reply, Started):
                    if worker.match is not None:
                        worker.deadline = time.monotonic() + watchdog_seconds(worker.match.spec)
                else:
                    events.append((worker, reply))
        return events

    def overdue(self, now: float) -> list[tuple[_Worker, str]]:
        """Busy workers the watchdog must end: stopped (SIGSTOP) too long, or past their match's bound."""
        found = []
        for worker in self.busy():
            try:
                stopped = psutil.Process(worker.pid).status() in (
                    psutil.STATUS_STOPPED,
                    psutil.STATUS_TRACING_STOP,
                )
            except psutil.Error:
                continue  # gone: the next wait reports it
            if not stopped:
                worker.stopped_since = None
            elif worker.stopped_since is None:
                worker.stopped_since = now
            elif now - worker.stopped_since >= STOPPED_GRACE_S:
                found.append(
                    (worker, f"its worker (referee) was stopped (SIGSTOP) for {STOPPED_GRACE_S:.0f} s")
                )
                continue
            if now > worker.deadline:
                bound = watchdog_seconds(worker.match.spec) if worker.match else 0
                found.append((worker, f"no result within the watchdog's {bound:.0f} s"))
        return found

    def stop(self, stop: _Stop, collect: Callable[[StoredMatch, Reply], None]) -> None:
        """Stop every worker: SIGTERM (the referee kills its agents), wait up to STOP_GRACE_S for them
        to leave, passing on outcomes that still arrive, then kill what is left. A repeated
        Ctrl-C or SIGTERM cuts the wait short.
        """
        for worker in self.workers:
            worker.signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE_S
        while stop.count < 2 and time.monotonic() < deadline:
            if not any(worker.process.is_alive() for worker in self.workers):
                break
            for worker, reply in self._replies(0.05):
                if reply is not None and worker.match is not None:
                    match, worker.match = worker.match, None
                    collect(match, reply)
        self.close()

    def close(self) -> None:
        for worker in list(self.workers):
            self.drop(worker)
        if self._holds_server:  # a kept pool (a swiss run's) acquires it again for its next worker
            self._holds_server = False
            fork_server.release()


class WatchedWorker:
    """One worker process of its own, watched as ``_Pool`` watches its workers, for a caller that
    plays one match at a time: a Dask task (arena/tournament/run/cluster.py) plays its match here, so
    that a stopped, hung or killed referee is handled by the same watchdog as a local one.
    """

    def __init__(self) -> None:
        self._pool = _Pool(1, preloaded=False)  # one worker, kept: a fork server would not pay

    def play(self, match: StoredMatch, cancelled: Callable[[], bool]) -> WorkerReply | None:
        """``match``'s reply (``play``'s, or ``Lost`` if the watchdog ended its
        worker), or None once ``cancelled()`` is true (the match is stopped as on Ctrl-C)."""
        self._pool.hand(match)
        while True:
            for _, reply in self._pool.events(POLL_S):
                assert isinstance(reply, Done | Failed | Lost)  # all a local pool reports
                return reply
            if cancelled():
                self._pool.stop(_Stop(), lambda match, reply: None)
                return None

    def close(self) -> None:
        """Kill its worker process and the agents it started (it starts a new one if used again)."""
        self._pool.close()


class _Stop:
    """Ctrl-C (SIGINT) and SIGTERM during a run: the first stops it cleanly, a repeat at once.

    The handler only counts: nothing is raised in the middle of a database write.
    """

    def __init__(self) -> None:
        self.count = 0
        self.signum: int | None = None

    def press(self, signum: int = signal.SIGINT, frame: object = None) -> None:
        self.count += 1
        self.signum = self.signum or signum

    @contextmanager
    def installed(self) -> Iterator[None]:
        """Handle SIGINT and SIGTERM with ``press`` while inside (main thread only: signals land there)."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        previous = {signum: signal.signal(signum, self.press) for signum in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)


def run_pending(
    store: TournamentStore,
    matches: Sequence[StoredMatch],
    jobs: int,
    *,
    pool: Pool | None = None,
    total: int | None = None,
    done_before: int = 0,
    label: str = "matches",
    show_progress: bool = True,
    console: Console | None = None,
) -> RunReport:
    """Play ``matches`` with ``jobs`` worker processes, committing each outcome as it arrives.

    ``pool`` plays them instead of local workers (a Dask cluster: arena/tournament/run/cluster.py); it is closed
    at the end either way. ``total`` and ``done_before`` size the progress bar for a resumed run.
    A match whose referee raises (e.g. the engine refuses the setup) is left pending and its
    error reported; an agent that crashes or stalls is not an error but a fault, stored with the
    match. A match whose worker is lost (killed, stopped, past the watchdog) is played again by
    a new worker, and aborted after MAX_FAILURES losses.
    """
    report = RunReport()
    if not matches:
        if pool is not None:
            pool.close()
        return report
    console = console or Console(stderr=True)
    started = time.perf_counter()
    live = tournament_live_folder(store.path)
    pool = pool or _Pool(max(1, min(jobs, len(matches))), live)
    queue = list(matches)
    queue.reverse()  # pop() from the end hands matches out in schedule order
    stop = _Stop()
    stillborn: list[str] = []  # workers in a row that died before starting their match
    playing: dict[int, tuple[str, int]] = {}  # match id -> deal, for each match handed out
    # The handlers stay in place until the cleanup below is done: a second Ctrl-C landing after
    # they were restored raised KeyboardInterrupt there and left matches marked running.
    with stop.installed():
        try:
            with _progress(console, show_progress) as progress:
                task = progress.add_task(
                    label, total=total or len(matches), completed=done_before, done_before=done_before
                )

                def collect(match: StoredMatch, reply: Reply) -> None:
                    try:
                        _collect(match, reply)
                    finally:
                        if live is not None and not isinstance(
                            reply, Recovered | Stop
                        ):  # stored, or to be played again
                            remove_quietly(live_file(live, match.id))

                def _collect(match: StoredMatch, reply: Reply) -> None:
                    match reply:
                        case Stop(reason):
                            raise PoolStopped(reason)
                        case Lost(reason, began, times):
                            lost(match, reason, began, times)
                        case Recovered(_, times):  # counted like a loss, but its outcome follows
                            report.lost_workers += times
                            store.count_recovered_losses(match.id, times)
                        case Done() | Failed():
                            if _store_reply(store, match, reply, report):
                                progress.advance(task)

                def lost(match: StoredMatch, reason: str, began: bool, times: int) -> None:
                    if not began:  # died starting up: not the match's fault, but a broken setup stops the run
                        store.mark_pending([match.id])
                        queue.append(match)
                        stillborn.append(reason)
                        if len(stillborn) >= MAX_FAILURES * pool.size:
                            raise PoolStopped(
                                f"{len(stillborn)} worker processes in a row died before starting a match "
                                f"(last: {reason}); nothing was played by them, unfinished matches stay pending"
                            )
                        return
                    stillborn.clear()
                    report.lost_workers += times
                    if store.record_lost_worker(match.id, reason, MAX_FAILURES, times):
                        report.aborted += 1  # its reason is stored: `arena matches --status aborted`
                        progress.advance(task)
                    else:
                        queue.append(match)  # next in line, for a fresh worker

                def hand_out() -> None:
                    if not pool.in_flight():
                        playing.clear()  # nothing is out: no deal can be playing
                    while queue and pool.has_room():
                        match = take_next(queue, set(playing.values()))
                        if match is None:
                            break  # every waiting match's deal is being played
                        if not store.mark_running(match.id):
                            continue  # another runner of a shared store claimed it, or it is done
                        playing[match.id] = deal_key(match.spec)
                        pool.hand(match)

                try:
                    while (queue or pool.in_flight()) and not stop.count:
                        store.heartbeat()  # this runner's claims live on (a shared store)
                        hand_out()
                        # a short timeout: the signal handler only counts, the loop notices it
                        events = pool.events(POLL_S)
                        for match, reply in events:
                            if not isinstance(reply, Recovered):  # that match's outcome is still to come
                                playing.pop(match.id, None)
                        if all(isinstance(reply, Done | Failed) for _, reply in events):
                            hand_out()  # the freed workers play on while the outcomes are stored
                        for match, reply in events:
                            collect(match, reply)
                except KeyboardInterrupt:  # only when not in the main thread (no handler installed)
                    stop.press()
                except (PoolStopped, DiskFullError) as error:
                    report.errors.append(str(error))
                report.interrupted = stop.count > 0
                report.signal = stop.signum

                def late(match: StoredMatch, reply: Reply) -> None:
                    """An outcome arriving while the workers stop: stored if the store still can."""
                    if not isinstance(reply, Stop):
                        try:
                            collect(match, reply)
                        except DiskFullError:
                            pass  # played again by the next run

                pool.stop(stop, late)
        finally:
            pool.close()  # an exception on the way: no worker outlives the run
            # whatever was handed out and not stored goes back to pending, to be played next time
            _put_back(store, matches)
            if live is not None:
                remove_live_folder(live)
            report.seconds = time.perf_counter() - started
    return report


def _put_back(store: TournamentStore, matches: Sequence[StoredMatch]) -> None:
    """Mark ``matches`` not done pending again. On a full disk, with the space the store kept in
    reserve for this; if even that fails, the next run puts them back (``reset_interrupted``)."""
    ids = [match.id for match in matches]
    try:
        store.mark_pending(ids)
    except DiskFullError:
        store.make_room()
        try:
            store.mark_pending(ids)
        except DiskFullError:
            pass


def _death(worker: _Worker) -> str:
    """How a worker ended, in words (for the abort reason). Its pipe has closed, so it is on its way
    out: its interpreter's teardown can take seconds on a loaded machine."""
    worker.process.join(EXIT_WAIT_S)
    code = worker.process.exitcode
    if code is None:
        return "its worker process stopped answering"
    if code < 0:
        return f"its worker process was killed by {signal.Signals(-code).name}"
    return f"its worker process exited with status {code}"


def _store_reply(store: TournamentStore, match: StoredMatch, reply: Done | Failed, report: RunReport) -> bool:
    """Store a worker's reply for ``match`` (or note its error); True if an outcome was stored."""
    if isinstance(reply, Done):
        try:
            store.record_outcome(match, reply.outcome, reply.seconds)
        except DiskFullError:
            raise  # not this match's fault: the run stops (run_pending)
        except StoreError as error:
            if isinstance(error, AlreadyStored) and not store.exclusive:
                # a shared store: this runner's lease ran out while it played (a stalled machine),
                # and another runner played the match again and stored it first: done once
                return False
            reply = Failed(f"{type(error).__name__}: {error}")
        else:
            report.played += 1
            return True
    store.mark_pending([match.id])  # played again next time (a match already done stays done)
    report.failed += 1
    report.errors.append(f"match {match.idx} ({match.key}): {reply.error}")
    return False

"""Runs a ladder's pending matches in parallel local worker processes; the parent stores results.

Each worker process plays one match at a time through the referee (``arena.referee.run_match``,
trio inside). The parent is the only writer of the database: it marks a match running when it
hands it out and commits each outcome the moment it arrives, so a crash or ``kill -9`` loses at
most the matches in flight, which the next run plays again.

Ctrl-C: pending matches are cancelled, workers are asked to stop their current match (the
referee then kills its agents), finished matches stay stored, running ones go back to pending.
"""

from __future__ import annotations

import concurrent.futures as futures
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

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

from arena.match import MatchOutcome, MatchSpec
from arena.plugins import Registry, discover
from arena.spawn import die_with_parent
from arena.store import Store, StoredMatch


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
    interrupted: bool = False
    seconds: float = 0.0
    errors: list[str] = field(default_factory=list)

    @property
    def rate(self) -> float:
        """Matches per second of wall time."""
        return self.played / self.seconds if self.seconds > 0 else 0.0


# -- worker side -------------------------------------------------------------------------------


@dataclass
class _Worker:
    """The state of one worker process (one per process, set up by ``_init_worker``)."""

    registry: Registry | None = None
    parent_pid: int = 0
    stopping: Any = None  # a multiprocessing Event the parent sets on Ctrl-C
    in_match: bool = False
    parent_gone: bool = False


_worker = _Worker()


def _init_worker(parent_pid: int, stopping: Any) -> None:
    """Prepare a worker: own process group, SIGINT only during a match, leave with the parent."""
    os.setpgrp()  # the terminal's Ctrl-C reaches the parent only; it forwards it deliberately
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _on_parent_death)
    die_with_parent(signal.SIGTERM, parent_pid)  # killed parent (even -9): the kernel sends SIGTERM
    _worker.registry = discover()
    _worker.parent_pid = parent_pid
    _worker.stopping = stopping


def _on_parent_death(signum: int, frame: object) -> None:
    """SIGTERM (the parent died, or someone stops us): stop the match cleanly, then exit."""
    _worker.parent_gone = True
    if _worker.in_match:
        os.kill(os.getpid(), signal.SIGINT)  # trio cancels the match; the referee reaps its agents
    else:
        os._exit(1)  # idle: nothing to clean up, and no one will ever send us work again


def _play(spec: MatchSpec) -> tuple[MatchOutcome, float]:
    """Play one match in a worker; SIGINT (from the parent) cancels it through trio."""
    from arena.referee import run_match

    started = time.perf_counter()
    _worker.in_match = True
    try:
        # trio installs its own Ctrl-C handling only over the default handler
        signal.signal(signal.SIGINT, signal.default_int_handler)
        # checked after SIGINT is armed, so a stop is never missed: a queued match never starts
        if _worker.stopping is not None and _worker.stopping.is_set():
            raise KeyboardInterrupt
        outcome = run_match(spec, _worker.registry)
    finally:
        _worker.in_match = False
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        # the referee turns SIGTERM into its own clean stop during a match, so our handler may not
        # have seen the parent die: check again, and leave rather than wait for work forever
        if _worker.parent_gone or os.getppid() != _worker.parent_pid:
            os._exit(1)
    return outcome, time.perf_counter() - started


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


def run_pending(
    store: Store,
    matches: Sequence[StoredMatch],
    jobs: int,
    *,
    total: int | None = None,
    done_before: int = 0,
    label: str = "matches",
    show_progress: bool = True,
    console: Console | None = None,
) -> RunReport:
    """Play ``matches`` with ``jobs`` worker processes, committing each outcome as it arrives.

    ``total`` and ``done_before`` size the progress bar for a resumed run. A match whose
    referee raises (e.g. the engine refuses the setup) is left pending and its error reported;
    an agent that crashes or stalls is not an error but a fault, stored with the match.
    """
    report = RunReport()
    if not matches:
        return report
    console = console or Console(stderr=True)
    started = time.perf_counter()
    context = multiprocessing.get_context("spawn")  # no fork of a parent holding SQLite and threads
    stopping = context.Event()
    executor = futures.ProcessPoolExecutor(
        max_workers=max(1, min(jobs, len(matches))),
        mp_context=context,
        initializer=_init_worker,
        initargs=(os.getpid(), stopping),
    )
    running: dict[futures.Future, StoredMatch] = {}
    queue = list(matches)
    queue.reverse()  # pop() from the end hands matches out in schedule order
    window = 2 * max(1, jobs)  # a few queued ahead keep workers busy; the rest stay cancellable
    ctrl_c = _CtrlC(executor, stopping)
    try:
        with ctrl_c.installed(), _progress(console, show_progress) as progress:
            task = progress.add_task(
                label, total=total or len(matches), completed=done_before, done_before=done_before
            )
            try:
                while (queue or running) and not ctrl_c.pressed:
                    while queue and len(running) < window:
                        match = queue.pop()
                        store.mark_running(match.id)
                        running[executor.submit(_play, match.spec)] = match
                    # a short timeout: the Ctrl-C handler only sets a flag, the loop notices it
                    finished, _ = futures.wait(running, timeout=0.25, return_when=futures.FIRST_COMPLETED)
                    for future in finished:
                        if _collect(store, running, future, report):
                            progress.advance(task)
            except KeyboardInterrupt:  # only when not in the main thread (no handler installed)
                ctrl_c.press()
            except BrokenProcessPool as error:
                report.errors.append(f"a worker process died ({error}); unfinished matches stay pending")
            report.interrupted = ctrl_c.pressed > 0
            executor.shutdown(wait=True, cancel_futures=True)
            for future in list(running):  # matches that finished while we were stopping are kept
                if future.done() and not future.cancelled() and future.exception() is None:
                    _collect(store, running, future, report)
    finally:
        # whatever was handed out and not stored goes back to pending, to be played next time
        store.mark_pending([match.id for match in running.values()])
        report.seconds = time.perf_counter() - started
    return report


class _CtrlC:
    """Ctrl-C during a run: the first stops it cleanly, a repeat makes the workers leave at once.

    The handler raises nothing, so no KeyboardInterrupt lands in the middle of a database write
    or of the pool's shutdown (which, abandoned half-way, would leave workers waiting forever).
    """

    def __init__(self, executor: futures.ProcessPoolExecutor, stopping: Any) -> None:
        self.executor = executor
        self.stopping = stopping
        self.pressed = 0

    def press(self, signum: int = signal.SIGINT, frame: object = None) -> None:
        """React to one Ctrl-C."""
        self.pressed += 1
        if self.pressed == 1:
            self.stopping.set()  # before the signal: see _play
            _signal_workers(self.executor, signal.SIGINT)
        else:
            _signal_workers(self.executor, signal.SIGTERM)

    @contextmanager
    def installed(self) -> Iterator[None]:
        """Handle Ctrl-C with ``press`` while inside (main thread only: signals are delivered there)."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        previous = signal.signal(signal.SIGINT, self.press)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, previous)


def _collect(
    store: Store, running: dict[futures.Future, StoredMatch], future: futures.Future, report: RunReport
) -> bool:
    """Store a finished future's outcome (or note its error); True if stored. It then leaves ``running``."""
    match = running[future]
    try:
        outcome, seconds = future.result()
        store.record_outcome(match, outcome, seconds)
    except BrokenProcessPool:
        raise
    except Exception as error:  # the referee refused or broke, or the store refused: report it
        store.mark_pending([match.id])  # played again next time (a match already done stays done)
        report.failed += 1
        report.errors.append(f"match {match.idx} ({match.key}): {type(error).__name__}: {error}")
        del running[future]
        return False
    report.played += 1
    del running[future]  # only once stored: an interrupt before this leaves it to the reset
    return True


def _signal_workers(executor: futures.ProcessPoolExecutor, signum: int) -> None:
    """Send ``signum`` to every live worker: SIGINT stops its match, SIGTERM makes it leave.

    Either way the referee kills the match's agents on the way out.
    """
    for process in list((executor._processes or {}).values()):  # no public API lists the workers
        if process.pid is not None and process.is_alive():
            try:
                os.kill(process.pid, signum)
            except ProcessLookupError:
                pass

"""Play a ladder: the one entry point for `arena run`, the benchmarks, the tests and later callers.

``play_ladder`` opens (or resumes) the ladder's run in the store, puts back matches a stopped run
left running, and plays what is pending on local workers or a Dask cluster. It prints nothing of
its own: a resumed run is announced through ``notify``, the progress bar through ``progress``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.console import Console

from arena.match.live import tournament_live_folder
from arena.tournament.formats import FORMATS
from arena.tournament.plan.ladder import Ladder
from arena.tournament.plan.runs import RunPlan, plan_run
from arena.tournament.run.replies import Reply
from arena.tournament.run.runner import Pool, RunReport, _Pool, _Stop, default_jobs, run_pending
from arena.tournament.store.api import LadderRun, StoredMatch, TournamentStore
from arena.tournament.store.base import lease_seconds

if TYPE_CHECKING:
    from arena.tournament.run.cluster import ClusterTarget


@dataclass(frozen=True)
class RunSummary:
    """What ``play_ladder`` did: the run, its match counts after playing, and the runner's report."""

    run: LadderRun
    report: RunReport
    counts: dict[str, int]  # matches by status once it stopped: pending, running, done, aborted
    total: int
    done_before: int  # matches already done when it started (a resumed run)
    reset: int  # matches a stopped run left running, played again now
    workers: int  # local worker processes (unused with a cluster)


def play_ladder(
    ladder: Ladder,
    store: TournamentStore,
    *,
    jobs: int | None = None,
    progress: bool = False,
    cluster: str | ClusterTarget | None = None,
    new: bool = False,
    console: Console | None = None,
    notify: Callable[[str], None] | None = None,
    on_start: Callable[[], None] | None = None,
) -> RunSummary:
    """Play ``ladder``'s pending matches into ``store``, resuming its run (``new``: start another).

    ``jobs`` local workers (default: the ladder's ``concurrency``, else one per core), or the Dask
    ``cluster`` at that address, or that ``ClusterTarget`` (arena/tournament/run/cluster.py). Raises StoreError when the store is
    held by another run or has an edited ladder of that name, ClusterError when the cluster is
    unusable. ``on_start`` is called just before the first match is handed out (not when nothing
    is pending): `arena run` names the sandbox in force there. An interrupted run returns with ``report.interrupted`` set; what finished is stored.
    The run is settled first (``plan_run``, arena/tournament/plan/runs.py), then played (``play_run``).
    """
    plan = plan_run(store, ladder, new=new)
    return play_run(
        store,
        plan,
        jobs=jobs,
        progress=progress,
        cluster=cluster,
        console=console,
        notify=notify,
        on_start=on_start,
    )


def play_run(
    store: TournamentStore,
    plan: RunPlan,
    *,
    jobs: int | None = None,
    progress: bool = False,
    cluster: str | ClusterTarget | None = None,
    console: Console | None = None,
    notify: Callable[[str], None] | None = None,
    on_start: Callable[[], None] | None = None,
) -> RunSummary:
    """Play the pending matches of a run ``plan_run`` settled (``store`` claimed by it); the
    arguments as for ``play_ladder``."""
    run, ladder = plan.run, plan.ladder
    if plan.growth is not None and plan.growth.changed and notify is not None:
        notify(f"growing {ladder.name!r}: {plan.growth.describe()}")
    if FORMATS[ladder.format].adaptive:
        return _play_adaptive(store, run, ladder, jobs, progress, cluster, console, on_start)
    reset = store.reset_interrupted(run.id)
    pending = store.pending(run.id)
    total = sum(store.counts(run.id).values())
    done_before = total - len(pending)
    workers = jobs or ladder.concurrency or default_jobs()
    pool = None
    if cluster and pending:
        from arena.tournament.run.cluster import connect  # dask is imported only for a cluster: start-up time

        pool = connect(cluster)
    if done_before and notify is not None:
        notify(
            f"resuming {ladder.name!r}: {done_before} of {total} matches already played"
            + (f", {reset} interrupted match(es) will be replayed" if reset else "")
        )
    if pending and on_start is not None:
        on_start()
    report = run_pending(
        store,
        pending,
        workers,
        pool=pool,
        total=total,
        done_before=done_before,
        label=ladder.name,
        show_progress=progress,
        console=console,
    )
    while cluster and getattr(pool, "taken_back", None) and not report.interrupted and not report.errors:
        # a distrusted worker's matches of this run: forgotten, and played on the workers left
        from arena.tournament.run.cluster import connect

        taken = sorted(pool.taken_back)  # type: ignore[union-attr]
        store.take_back(taken)
        pool = connect(cluster)
        again = run_pending(store, store.pending(run.id), workers, pool=pool, total=total, label=ladder.name)
        report.played += again.played - len(taken)
        report.lost_workers += again.lost_workers
        report.aborted += again.aborted
        report.interrupted, report.errors, report.signal = again.interrupted, again.errors, again.signal
    if not store.exclusive:
        _play_shared_rest(store, run, ladder.name, workers, cluster, report, total, notify)
    return RunSummary(run, report, store.counts(run.id), total, done_before, reset, workers)


SHARED_POLL_S = 1.0  # a runner of a shared store waiting on others' matches looks this often


def _play_shared_rest(
    store: TournamentStore,
    run: LadderRun,
    label: str,
    workers: int,
    cluster: str | ClusterTarget | None,
    report: RunReport,
    total: int,
    notify: Callable[[str], None] | None,
) -> None:
    """On a store several runners share: once this runner's queue is empty, wait while other
    runners play the rest, and play what comes back to pending (a runner stopped, or killed and its
    lease run out), so that a run ends with every match played once. ``report`` sums it all."""
    told = False
    while not report.interrupted and not report.errors:
        store.reset_interrupted(run.id)  # a killed runner's matches, once its lease ran out
        counts = store.counts(run.id)
        if not counts["pending"] and not counts["running"]:
            return
        waiting = [match for match in store.pending(run.id) if match.status == "pending"]
        if not waiting:
            if notify is not None and not told:
                notify(
                    f"waiting for {counts['running']} match(es) other runners of this store are playing "
                    f"(a stopped runner's come back at once, a killed one's within {lease_seconds():.0f} s)"
                )
                told = True
            time.sleep(SHARED_POLL_S)
            continue
        pool = None
        if cluster:
            from arena.tournament.run.cluster import connect

            pool = connect(cluster)
        again = run_pending(
            store,
            waiting,
            workers,
            pool=pool,
            total=total,
            done_before=total - len(waiting),
            label=label,
            show_progress=False,
        )
        _add(report, again)


def _play_adaptive(
    store: TournamentStore,
    run: LadderRun,
    ladder: Ladder,
    jobs: int | None,
    progress: bool,
    cluster: str | ClusterTarget | None,
    console: Console | None,
    on_start: Callable[[], None] | None,
) -> RunSummary:
    """Play a swiss ladder round by round (arena/tournament/plan/swiss.py); ``ladder`` as played (its
    entrants under their display names)."""
    from arena.tournament.plan.swiss import max_matches

    reset = store.reset_interrupted(run.id)
    done_before = store.counts(run.id)["done"]
    workers = jobs or ladder.concurrency or default_jobs()
    started: list[bool] = []
    local = None if cluster else _KeptPool(_Pool(workers, tournament_live_folder(store.path)))

    def play_round(pending: list) -> RunReport:
        if on_start is not None and not started:
            on_start()
            started.append(True)
        pool: Pool | None = local
        if cluster:
            from arena.tournament.run.cluster import connect

            pool = connect(cluster)
        counts = store.counts(run.id)
        report = run_pending(
            store,
            pending,
            workers,
            pool=pool,
            total=max(max_matches(ladder), sum(counts.values())),
            done_before=counts["done"] + counts["aborted"],
            label=ladder.name,
            show_progress=progress,
            console=console,
        )
        taken = sorted(getattr(pool, "taken_back", ()))  # a distrusted worker's: the next rounds play them
        store.take_back(taken)
        report.played -= len(taken)
        return report

    try:
        report = play_swiss(store, run, ladder, play_round)
    finally:
        if local is not None:  # SIGTERM first, as a round robin's end: each worker then ends the
            # agents its zygote started ahead and removes their cgroups (SIGKILL left them behind)
            local.pool.stop(_Stop(), lambda match, reply: None)
    counts = store.counts(run.id)
    return RunSummary(run, report, counts, sum(counts.values()), done_before, reset, workers)


def play_swiss(
    store: TournamentStore,
    run: LadderRun,
    ladder: Ladder,
    play_round: Callable[[list[StoredMatch]], RunReport],
) -> RunReport:
    """Play a swiss run round by round until it is over; ``play_round`` plays a round's pending
    matches (a run interrupted mid-round finishes that round first). The reports are summed.

    On a store several runners share, each round is planned once, by the runner that finds the
    previous one settled (under the store's planning lock); a runner whose share of a round is
    played waits for the others' matches (a killed runner's come back once its lease runs out)."""
    from arena.tournament.plan.swiss import plan_round  # trueskill loads only for a swiss ladder

    total = RunReport()
    while True:
        pending = store.pending(run.id)
        if not pending:
            with store.planning():  # another runner may have planned it while this one waited
                if not store.pending(run.id):
                    store.add_matches(run.id, plan_round(store.matches(run.id), run, ladder))
            pending = store.pending(run.id)
        if not pending:
            return total
        waiting = [match for match in pending if match.status == "pending"]
        if not waiting:  # the round's last matches are other runners' (a shared store)
            time.sleep(SHARED_POLL_S)
            store.reset_interrupted(run.id)
            continue
        report = play_round(waiting)
        _add(total, report)
        if report.interrupted or report.errors:
            return total
        if not (report.played or report.aborted) and store.exclusive:
            return total  # nothing could be played: a rerun tries again


def _add(total: RunReport, report: RunReport) -> None:
    for name in ("played", "failed", "aborted", "lost_workers", "seconds"):
        setattr(total, name, getattr(total, name) + getattr(report, name))
    total.interrupted, total.signal = report.interrupted, report.signal
    total.errors.extend(report.errors)


class _KeptPool:
    """Local workers kept across the rounds of a swiss run (``run_pending`` stops and closes its
    pool after each call: starting fresh workers every round would cost seconds a round). A stop
    with matches in flight (Ctrl-C, SIGTERM) still stops them; the caller closes ``pool`` at the end."""

    def __init__(self, pool: _Pool) -> None:
        self.pool = pool
        self.size = pool.size

    def has_room(self) -> bool:
        return self.pool.has_room()

    def hand(self, match: StoredMatch) -> None:
        self.pool.hand(match)

    def in_flight(self) -> int:
        return self.pool.in_flight()

    def events(self, timeout: float) -> list[tuple[StoredMatch, Reply]]:
        return self.pool.events(timeout)

    def stop(self, stop: _Stop, collect: Callable[[StoredMatch, Reply], None]) -> None:
        if stop.count or self.pool.in_flight():
            self.pool.stop(stop, collect)

    def close(self) -> None:
        """Kept open for the next round (see the class docstring)."""

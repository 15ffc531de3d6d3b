"""Play a ladder: the one entry point for `arena run`, the benchmarks, the tests and later callers.

``play_ladder`` opens (or resumes) the ladder's run in the store, puts back matches a stopped run
left running, and plays what is pending on local workers or a Dask cluster. It prints nothing of
its own: a resumed run is announced through ``notify``, the progress bar through ``progress``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.console import Console

from arena.tournament.ladder import Ladder
from arena.tournament.runner import RunReport, default_jobs, run_pending
from arena.tournament.store import LadderRun, Store

if TYPE_CHECKING:
    from arena.tournament.cluster import ClusterTarget


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
    store: Store,
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
    ``cluster`` at that address, or that ``ClusterTarget`` (arena/tournament/cluster.py). Raises StoreError when the store is
    held by another run or has an edited ladder of that name, ClusterError when the cluster is
    unusable. ``on_start`` is called just before the first match is handed out (not when nothing
    is pending): `arena run` names the sandbox in force there. An interrupted run returns with ``report.interrupted`` set; what finished is stored.
    """
    store.claim_writer()
    run = store.open_run(ladder, new=new)
    reset = store.reset_interrupted(run.id)
    pending = store.pending(run.id)
    total = sum(store.counts(run.id).values())
    done_before = total - len(pending)
    workers = jobs or ladder.concurrency or default_jobs()
    pool = None
    if cluster and pending:
        from arena.tournament.cluster import connect  # dask is imported only for a cluster: start-up time

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
    return RunSummary(run, report, store.counts(run.id), total, done_before, reset, workers)

"""Playing `arena compare`: deals of a comparison (arena/tournament/plan/compare.py) in batches
through the tournament runner, until the SPRT decides or the deals run out."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from arena.tournament.plan.compare import Comparison, current_state, schedule
from arena.tournament.run.runner import run_pending
from arena.tournament.stats.sprt import SprtState
from arena.tournament.store.api import LadderRun, TournamentStore


@dataclass
class CompareReport:
    """Where a call to ``play`` left the comparison."""

    state: SprtState
    played: int = 0
    interrupted: bool = False
    errors: list[str] = field(default_factory=list)


def play(
    store: TournamentStore,
    run: LadderRun,
    comparison: Comparison,
    max_deals: int,
    jobs: int,
    on_state: Callable[[SprtState], None] = lambda state: None,
) -> CompareReport:
    """Play deals of ``run`` in batches until the test decides or ``max_deals`` deals are done.

    ``on_state`` sees the test after every batch (and once before the first). Each batch is a
    call to the runner, so Ctrl-C, resume and storage work as in `arena run`.
    """
    per_deal = comparison.matches_per_deal
    report = CompareReport(state=current_state(store, run, comparison))
    on_state(report.state)
    while report.state.verdict is None and report.state.deals < max_deals:
        # a quarter of what is done, so a batch overshoots a decision by little, yet few batches
        # (each one starts the runner's workers) are needed; whole deals only
        wanted = min(max(4 * jobs, report.state.deals * per_deal // 4), 32 * jobs)
        target = min(max_deals, report.state.deals + math.ceil(wanted / per_deal))
        store.add_matches(run.id, schedule(comparison, target))  # the run grows as it goes
        batch = [m for m in store.pending(run.id) if m.idx < target * per_deal]
        if not batch:
            break
        result = run_pending(store, batch, jobs, label=run.name, show_progress=False)
        report.played += result.played
        report.state = current_state(store, run, comparison, checked=report.state.deals)
        on_state(report.state)
        if result.interrupted or result.errors:
            report.interrupted = result.interrupted
            report.errors = result.errors
            break
    return report

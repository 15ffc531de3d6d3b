"""Tournament throughput: matches per second of a goofspiel random ladder with --jobs 1 and 2.

Each match is played by the real referee with two agent subprocesses, exactly as `arena run`
plays it; the database is a fresh temporary file per run. Prints both rates and the speed-up.
"""

from __future__ import annotations

import os
import resource
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
AGENTS = 4
DEALS = 7  # 6 pairings x 7 deals x 2 seatings = 84 matches: start-up does not dominate


def ladder_text() -> str:
    """A 2-player round robin of seeded random agents on 13-card goofspiel."""
    head = f'name = "bench"\ngame = "goofspiel"\nplayers = 2\nmatches_per_pairing = {DEALS}\nseed = 1\n'
    agents = "".join(
        f'[[agents]]\nname = "random-{i}"\nagent = "random"\noptions = {{ seed = {i} }}\n'
        for i in range(AGENTS)
    )
    return head + agents + "[options]\ncards = 13\n"


def rate(jobs: int, workdir: Path) -> tuple[int, float, float]:
    """(matches played, matches per second, CPU seconds per match) of the ladder with ``jobs`` workers.

    The CPU time is that of every reaped descendant: workers, and through them the agents.
    """
    from arena.ladder import parse_ladder
    from arena.plugins import discover
    from arena.runner import run_pending
    from arena.schedule import make_schedule
    from arena.store import Store

    ladder = parse_ladder(ladder_text(), discover(), source="bench")
    schedule = make_schedule(ladder)
    cpu_before = _children_cpu()
    with Store(workdir / f"bench-{jobs}.db") as store:
        run = store.open_run(ladder, schedule)
        report = run_pending(store, store.pending(run.id), jobs, show_progress=False)
    if report.errors or report.played != len(schedule):
        raise SystemExit(f"benchmark run failed: {report.errors[:1]}")
    return report.played, report.rate, (_children_cpu() - cpu_before) / report.played


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    # the test game and its agents load as plugins here and in every worker and agent process
    os.environ["TLACHTLI_PLUGINS"] = "tests.support.goofspiel"
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH", "")]))
    sys.path.insert(0, str(ROOT))
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    with tempfile.TemporaryDirectory() as tmp:
        load = os.getloadavg()[0]
        played, one, cpu_one = rate(1, Path(tmp))
        _, two, cpu_two = rate(2, Path(tmp))
    print(f"goofspiel random ladder, {played} matches, {cores} core(s), load average {load:.2f} at start")
    # cores busy = CPU per match x matches per second: how much of the machine a run used
    print(
        f"  --jobs 1: {one:6.2f} matches/s  ({cpu_one * 1000:.0f} ms CPU/match, {one * cpu_one:.2f} cores busy)"
    )
    print(
        f"  --jobs 2: {two:6.2f} matches/s  ({cpu_two * 1000:.0f} ms CPU/match, {two * cpu_two:.2f} cores busy)"
    )
    print(f"  speed-up 1 -> 2 jobs: {two / one:.2f}x (target >= 1.7x on an otherwise idle 2-core machine)")


if __name__ == "__main__":
    main()

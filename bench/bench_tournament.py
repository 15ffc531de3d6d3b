"""Tournament throughput: matches per second of random-agent ladders with --jobs 1 and 2.

Each match is played by the real referee with its agent subprocesses, exactly as `arena run`
plays it; the database is a fresh temporary file per run. The main figure is a goofspiel ladder
(the test game, always available); a Zapotec ladder is measured too when that engine is installed.
"CPU/match" counts every process of a match (worker and agents); "cores busy" is CPU/match times
matches/s, the share of the machine the run used.
"""

from __future__ import annotations

import os
import resource
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
AGENTS = 4


def ladder_text(game: str, deals: int, options: str = "") -> str:
    """A 2-player round robin of four seeded random agents: 6 pairings x ``deals`` x 2 seatings."""
    head = f'name = "bench-{game}"\ngame = "{game}"\nplayers = 2\nmatches_per_pairing = {deals}\nseed = 1\n'
    agents = "".join(
        f'[[agents]]\nname = "random-{i}"\nagent = "random"\noptions = {{ seed = {i} }}\n'
        for i in range(AGENTS)
    )
    return head + agents + (f"[options]\n{options}\n" if options else "")


def rate(text: str, jobs: int, workdir: Path) -> tuple[int, float, float]:
    """(matches played, matches per second, CPU seconds per match) of a ladder with ``jobs`` workers.

    The CPU time is that of every reaped descendant: workers, and through them the agents.
    """
    from arena.ladder import parse_ladder
    from arena.plugins import discover
    from arena.runner import run_pending
    from arena.schedule import make_schedule
    from arena.store import Store

    ladder = parse_ladder(text, discover(), source="bench")
    schedule = make_schedule(ladder)
    cpu_before = _children_cpu()
    with Store(workdir / f"{ladder.name}-{jobs}.db") as store:
        run = store.open_run(ladder, schedule)
        report = run_pending(store, store.pending(run.id), jobs, show_progress=False)
    if report.errors or report.played != len(schedule):
        raise SystemExit(f"benchmark run failed: {report.errors[:1]}")
    return report.played, report.rate, (_children_cpu() - cpu_before) / report.played


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def compare(label: str, text: str, workdir: Path) -> None:
    """Print the rates with 1 and 2 jobs and the speed-up."""
    played, one, cpu_one = rate(text, 1, workdir)
    _, two, cpu_two = rate(text, 2, workdir)
    print(f"{label}, {played} matches")
    print(
        f"  --jobs 1: {one:6.2f} matches/s  ({cpu_one * 1000:.0f} ms CPU/match, {one * cpu_one:.2f} cores busy)"
    )
    print(
        f"  --jobs 2: {two:6.2f} matches/s  ({cpu_two * 1000:.0f} ms CPU/match, {two * cpu_two:.2f} cores busy)"
    )
    print(f"  speed-up 1 -> 2 jobs: {two / one:.2f}x (target >= 1.7x on an otherwise idle 2-core machine)")


def main() -> None:
    # the test game loads as a plugin here and in every worker and agent process
    os.environ["TLACHTLI_PLUGINS"] = "tests.support.goofspiel"
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH", "")]))
    sys.path.insert(0, str(ROOT))
    from arena.plugins import discover

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"{cores} core(s), load average {os.getloadavg()[0]:.2f} at start")
    with tempfile.TemporaryDirectory() as tmp:
        # 84 matches of 13-card goofspiel: enough that the worker pool's start-up does not dominate
        compare("goofspiel random ladder", ladder_text("goofspiel", 7, "cards = 13"), Path(tmp))
        if "zapotec" in discover().games:
            compare("zapotec random ladder", ladder_text("zapotec", 3), Path(tmp))


if __name__ == "__main__":
    main()

"""Tournament throughput: matches per second of random-agent ladders with --jobs 1 and 2.

Each match is played by the real referee with its agent subprocesses, exactly as `arena run`
plays it; the database is a fresh temporary file per run. The main figure is a goofspiel ladder
(the test game, always available); a Zapotec ladder is measured too when that engine is installed.
"CPU/match" counts every process of a match (worker and agents); "cores busy" is CPU/match times
matches/s, the share of the machine the run used. Python agents start by the default start method
(fork; `TLACHTLI_AGENT_START=exec` measures the old one); a last line compares the start methods'
agent start-up (process start to `ready`, as the referee records it).
"""

from __future__ import annotations

import os
import resource
import statistics
import sys
import tempfile
import time
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
    from arena.registry.plugins import discover
    from arena.tournament.plan.ladder import parse_ladder
    from arena.tournament.plan.schedule import make_schedule
    from arena.tournament.run.play import play_ladder
    from arena.tournament.store.sqlite import Store

    ladder = parse_ladder(text, discover(), source="bench")
    schedule = make_schedule(ladder)
    cpu_before = _children_cpu()
    with Store(workdir / f"{ladder.name}-{jobs}.db") as store:
        report = play_ladder(ladder, store, jobs=jobs).report
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


def startup_ms(method: str, matches: int = 10) -> tuple[float, float]:
    """(median ms from process start to `ready`, CPU ms per agent start) of a `random` agent by ``method``.

    Measured in this process on one-decision goofspiel matches. The CPU time is that of the whole
    matches (referee and agents: start, one decision, goodbye) per agent, so an upper bound.
    """
    from arena.match.referee import run_match
    from arena.match.spec import MatchSpec
    from arena.process.spawn import START_ENV
    from arena.registry.plugins import discover

    registry = discover()
    previous = os.environ.get(START_ENV)
    os.environ[START_ENV] = method
    try:
        spec = MatchSpec(game="goofspiel", agents=("random", "random"), seed=1, options={"cards": 1})
        run_match(spec, registry)  # warm up
        handshakes = []
        before = _self_cpu() + _children_cpu()
        for _ in range(matches):
            record = run_match(spec, registry).record
            handshakes += [agent["handshake_ms"] for agent in record["agents"]]
        cpu = (_self_cpu() + _children_cpu() - before) / (2 * matches)
    finally:
        if previous is None:
            del os.environ[START_ENV]
        else:
            os.environ[START_ENV] = previous
    return statistics.median(handshakes), cpu * 1000


def _self_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    # the test game loads as a plugin here and in every worker and agent process
    os.environ["TLACHTLI_PLUGINS"] = "examples.games.goofspiel.game"
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH", "")]))
    sys.path.insert(0, str(ROOT))
    from arena.process.spawn import agent_start_method
    from arena.registry.plugins import discover

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(
        f"{cores} core(s), load average {os.getloadavg()[0]:.2f} at start; "
        f"Python agents start by {agent_start_method()}"
    )
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        # 300 matches of 13-card goofspiel: enough that the worker pool's start-up does not dominate
        compare("goofspiel random ladder", ladder_text("goofspiel", 25, "cards = 13"), Path(tmp))
        if "zapotec" in discover().games:
            compare("zapotec random ladder", ladder_text("zapotec", 10), Path(tmp))
    print(
        f"(ladders took {time.perf_counter() - started:.0f} s; load average {os.getloadavg()[0]:.2f} at the end)"
    )
    for method in ("fork", "exec"):
        ready, cpu = startup_ms(method)
        print(
            f"agent start-up by {method}: {ready:6.1f} ms to ready (median), {cpu:6.1f} ms CPU per agent (upper bound)"
        )


if __name__ == "__main__":
    main()

"""`arena run --cluster local:2` against `--jobs 2`: matches per second of the same random ladder,
and the Dask scheduler's overhead per task.

The ladder is bench_tournament's goofspiel round robin of four seeded random agents (13 cards),
each match played by the real referee with its agent processes. The two paths alternate, REPEATS
times each, a fresh database each time; figures are the median and the range. The local rate
includes starting its worker processes (as `arena run` does); the cluster's is given without and
with starting the LocalCluster (a cluster is usually started once for many ladders). Where the
time goes: the CPU time of the submitting process per match (for local:2 it holds the scheduler
and the workers' threads too; the matches are played in child processes either way). The
overhead per task is the time per no-op task submitted to the same 2-worker cluster, in one
batch (throughput) and one at a time (round trip).
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
REPEATS = int(os.environ.get("BENCH_REPEATS", 3))
DEALS = 10  # 6 pairings x 10 deals x 2 seatings = 120 matches
NOOP_TASKS = 400


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _run(text: str, workdir: Path, name: str, jobs: int, cluster: str | None) -> tuple[float, float, float]:
    """(matches/s of the run, matches/s counting the cluster's start, this process's CPU ms per
    match) of one fresh run."""
    from arena.registry.plugins import discover
    from arena.tournament.plan.ladder import parse_ladder
    from arena.tournament.run.play import play_ladder
    from arena.tournament.store.sqlite import Store

    ladder = parse_ladder(text, discover(), source="bench")
    started, cpu = time.perf_counter(), _cpu_seconds()
    with Store(workdir / f"{name}.db") as store:
        summary = play_ladder(ladder, store, jobs=jobs, cluster=cluster)
    report = summary.report
    if report.errors or report.played != summary.total:
        raise SystemExit(f"benchmark run failed: {report.errors[:1]}")
    elapsed, cpu = time.perf_counter() - started, _cpu_seconds() - cpu
    return report.rate, report.played / elapsed, cpu / report.played * 1000


def _spread(values: list[float], unit: str, scale: float = 1.0) -> str:
    values = [v * scale for v in values]
    return f"{statistics.median(values):7.2f} {unit} (range {min(values):.2f}-{max(values):.2f})"


def task_overhead() -> tuple[list[float], list[float]]:
    """ms per no-op task on a 2-worker LocalCluster: in one batch, and one at a time."""
    from arena.tournament.run.cluster import connect

    pool = connect("local:2")
    client = pool.client
    batch, serial = [], []
    try:
        for _ in range(REPEATS):
            started = time.perf_counter()
            client.gather(client.map(abs, range(NOOP_TASKS), pure=False))
            batch.append((time.perf_counter() - started) / NOOP_TASKS * 1000)
            started = time.perf_counter()
            for i in range(NOOP_TASKS // 10):
                client.submit(abs, i, pure=False).result()
            serial.append((time.perf_counter() - started) / (NOOP_TASKS // 10) * 1000)
    finally:
        pool.close()
    return batch, serial


def main() -> None:
    os.environ["TLACHTLI_PLUGINS"] = "examples.games.goofspiel.game"
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH", "")]))
    sys.path.insert(0, str(ROOT))
    try:
        import distributed  # noqa: F401
    except ImportError:
        print("skipped: dask.distributed is not installed (pip install 'tlachtli[cluster]')")
        return
    from bench.bench_tournament import ladder_text

    text = ladder_text("goofspiel", DEALS, "cards = 13")
    print(f"load average {os.getloadavg()[0]:.2f} at start; {REPEATS} runs each, alternating")
    local, dask, dask_cold, local_cpu, dask_cpu = [], [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(REPEATS):
            rate, _, cpu = _run(text, Path(tmp), f"local-{i}", 2, None)
            local.append(rate)
            local_cpu.append(cpu)
            warm, cold, cpu = _run(text, Path(tmp), f"dask-{i}", 2, "local:2")
            dask.append(warm)
            dask_cold.append(cold)
            dask_cpu.append(cpu)
    print(f"goofspiel random ladder, {6 * DEALS * 2} matches")
    print(f"  --jobs 2:                         {_spread(local, 'matches/s')}")
    print(f"  --cluster local:2:                {_spread(dask, 'matches/s')}")
    print(f"  --cluster local:2, with start-up: {_spread(dask_cold, 'matches/s')}")
    ratios = [d / lo for d, lo in zip(dask, local, strict=True)]
    print(f"  cluster / local (run by run):     {_spread(ratios, '')} (target >= 0.85)")
    print(f"  submitting process CPU per match, --jobs 2:          {_spread(local_cpu, 'ms')}")
    print(f"  submitting process CPU per match, --cluster local:2: {_spread(dask_cpu, 'ms')}")
    batch, serial = task_overhead()
    print(f"Dask scheduler per no-op task, {NOOP_TASKS} in one batch: {_spread(batch, 'ms')}")
    print(f"Dask scheduler per no-op task, one at a time (round trip): {_spread(serial, 'ms')}")
    print(f"(load average {os.getloadavg()[0]:.2f} at the end)")


if __name__ == "__main__":
    main()

"""Fast matches: a sandboxed match of quick bots against the engine's own speed.

One Zapotec 2-player match between two `random` bots, measured side by side in one run:
- in process: ``arena.match.inprocess.play_in_process`` (engine + agents, no referee, no pipes);
- ``arena run`` (sandbox as the machine allows: bwrap here), per match: the marginal wall time of
  a ladder of LONG matches over one of SHORT matches (the command's start-up cancels out), with
  ``--jobs 1``, and matches per second with ``--jobs 2``;
- the parts of a match, per match: agent start (spawn to `ready`, both seats: process start,
  imports, handshake; from the records), the referee's per-decision work (observation, decision,
  decide message), frames (the referee's encode and the host's decode of every `decide`, and
  back for every `act`), the referee's whole match (the record's duration: start, decisions,
  goodbye, kill and clean-up), and the runner and store (the rest of the marginal wall).
``TLACHTLI_AGENT_START`` chooses how Python agents start (see docs/security.md): the rows give
each start method this machine runs. ``python bench/bench_fast_matches.py ladder`` also times a
ladder of 1,000 matches with ``--jobs 2``, with the fastest start method (a few minutes);
``--start zygote`` measures only that start method.
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from arena.match.inprocess import decide_message, play_in_process
from arena.process.limits import _own_cgroup
from arena.process.spawn import START_ENV
from arena.process.zygote import zygote_supported
from arena.tournament.store.sqlite import Store
from arena.wire.protocol import act_message, decode_body, encode
from engine.zapotec import GAME
from plugins.random_agent import RandomAgent

_runs = itertools.count()
IN_PROCESS_MATCHES = 40
SHORT, LONG = 4, 24  # ladder sizes whose difference gives arena run's per-match wall (and CPU)
LADDER = """
name = "fast-{matches}"
game = "zapotec"
players = 2
format = "round-robin"
matches_per_pairing = {pairs}
seed = 36
[clock]
move_ms = 2000
bank_ms = 60000
[[agents]]
name = "random-a"
agent = "random"
options = {{ seed = 1 }}
[[agents]]
name = "random-b"
agent = "random"
options = {{ seed = 2 }}
"""


def spread(values: list[float]) -> str:
    """Median with the 10th-90th percentile."""
    if len(values) < 2:
        return f"{values[0]:.2f}" if values else "-"
    deciles = statistics.quantiles(values, n=10)
    return f"{statistics.median(values):.2f} (p10 {deciles[0]:.2f}, p90 {deciles[-1]:.2f})"


def in_process() -> dict[str, list[float]]:
    """Per match, ms: the whole in-process match (wall and CPU), the referee's per-decision work
    and the frames (CPU: a loaded machine stretches wall time, not CPU time)."""
    walls, cpus, referee, frames, decisions = [], [], [], [], []
    for seed in range(IN_PROCESS_MATCHES):
        started, cpu = time.perf_counter(), time.process_time()
        state = play_in_process(
            GAME, [RandomAgent(), RandomAgent()], seed, agent_options=[{"seed": 1}, {"seed": 2}]
        )
        walls.append((time.perf_counter() - started) * 1000)
        cpus.append((time.process_time() - cpu) * 1000)
        # replay the same game, timing the referee's side of each decision apart, in CPU time
        state = GAME.setup(2, seed, {})
        agents = [RandomAgent(), RandomAgent()]
        for seat, agent in enumerate(agents):
            agent.setup({"agent_options": {"seed": seat + 1}, "seat": seat, "players": 2})
        work = wire = 0.0
        steps = 0
        while seats := state.to_act():
            seat = seats[0]
            steps += 1
            tick = time.process_time()
            message = decide_message(state, seat, steps)
            work += time.process_time() - tick
            tick = time.process_time()
            received = decode_body(encode(message)[4:], deep=False, from_referee=True)  # as the host reads it
            wire += time.process_time() - tick
            act = act_message(steps, agents[seat].act(received["obs"], received))
            tick = time.process_time()
            decode_body(encode(act)[4:], deep=False)
            wire += time.process_time() - tick
            state.apply(seat, act["choice"])
        referee.append(work * 1000)
        frames.append(wire * 1000)
        decisions.append(float(steps))
    return {"wall": walls, "cpu": cpus, "referee": referee, "frames": frames, "decisions": decisions}


class CpuMeter:
    """CPU seconds used by a command and everything it starts, agents included: a cpuacct cgroup
    of its own (the agents' groups nest in it), where this runs as root with cgroup v1."""

    def __init__(self) -> None:
        parent = _own_cgroup("cpuacct") if os.geteuid() == 0 else None
        self.directory = os.path.join(parent, f"bench-fast-{os.getpid()}") if parent else None
        if self.directory:
            os.makedirs(self.directory, exist_ok=True)

    def enter(self) -> None:
        """In the command's process before exec."""
        if self.directory:
            with open(os.path.join(self.directory, "cgroup.procs"), "w") as procs:
                procs.write("0")

    def seconds(self) -> float | None:
        """Once every process of the command has ended (a zygote, a thaw guard may linger briefly)."""
        if not self.directory:
            return None
        for _ in range(500):
            with open(os.path.join(self.directory, "cgroup.procs")) as procs:
                if not procs.read().strip():
                    break
            time.sleep(0.01)
        with open(os.path.join(self.directory, "cpuacct.usage")) as usage:
            return int(usage.read()) / 1e9

    def close(self) -> None:
        if self.directory:
            try:
                os.rmdir(self.directory)
            except OSError:  # still busy: the next run's sweep of stale groups does not know it
                print(f"bench: could not remove {self.directory}", file=sys.stderr)


def arena_run(folder: Path, matches: int, jobs: int, env: dict[str, str]) -> tuple[float, float | None, Path]:
    """Wall and CPU seconds of ``arena run`` over a fresh ladder of ``matches`` matches; its store."""
    run = f"fast-{matches}-{jobs}-{env[START_ENV]}-{next(_runs)}"  # a fresh store each time
    ladder = folder / f"{run}.toml"
    ladder.write_text(LADDER.format(matches=matches, pairs=matches // 2))
    db = folder / f"{run}.db"
    arena = [
        sys.executable,
        "-m",
        "arena.cli",
        "run",
        str(ladder),
        "--db",
        str(db),
        "--jobs",
        str(jobs),
        "-q",
    ]
    meter = CpuMeter()
    started = time.perf_counter()
    quiet = subprocess.DEVNULL
    subprocess.run(arena, check=True, env=env, cwd=folder, preexec_fn=meter.enter, stdout=quiet, stderr=quiet)
    wall, cpu = time.perf_counter() - started, meter.seconds()
    meter.close()
    return wall, cpu, db


def stored_parts(db: Path) -> dict[str, list[float]]:
    """Per match, ms, from the store: the worker's play time, the referee's match, both agents' start."""
    with Store.read_only(db) as store:
        seconds = [value * 1000 for value in store.done_seconds()]
        referee, start = [], []
        for run in store.runs():
            for match in store.matches(run.id, statuses=("done",)):
                record = store.record(match.id) or {}
                referee.append(record["duration_ms"])
                start.append(sum(agent["handshake_ms"] or 0.0 for agent in record["agents"]))
    return {"worker": seconds, "match": referee, "start": start}


def start_methods() -> list[str]:
    return ["exec", "zygote"] if zygote_supported() else ["exec"]


def main(argv: list[str] | None = None) -> None:
    """Print the figures; ``argv``: this script's options (none when bench/run_all.py calls it)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("ladder", nargs="?", choices=["ladder"], help="also time a ladder of 1,000 matches")
    parser.add_argument("--start", choices=start_methods(), help="only this start method (default: each)")
    parser.add_argument(
        "--repeat",
        type=int,
        default=5,
        help="how many times the per-match difference is measured (default 5)",
    )
    args = parser.parse_args(argv or [])
    methods = [args.start] if args.start else start_methods()
    local = in_process()
    in_wall, in_cpu = statistics.median(local["wall"]), statistics.median(local["cpu"])
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"in process: match {spread(local['wall'])} ms wall, {spread(local['cpu'])} ms CPU; ", end="")
    print(f"{statistics.median(local['decisions']):.0f} decisions")
    print(f"  referee per-decision work {spread(local['referee'])} ms CPU/match")
    print(f"  frames {spread(local['frames'])} ms CPU/match (encoding and decoding every decide and act)")
    with tempfile.TemporaryDirectory(prefix="bench-fast-") as folder:
        for method in methods:
            env = dict(os.environ, **{START_ENV: method})
            # the SHORT/LONG difference, repeated: one difference swings with the machine's load
            walls, cpus, db = [], [], None
            for _ in range(args.repeat):
                short, short_cpu, _ = arena_run(Path(folder), SHORT, 1, env)
                long, long_cpu, db = arena_run(Path(folder), LONG, 1, env)
                walls.append((long - short) / (LONG - SHORT) * 1000)
                if short_cpu is not None and long_cpu is not None:
                    cpus.append((long_cpu - short_cpu) / (LONG - SHORT) * 1000)
            assert db is not None
            per_match = statistics.median(walls)
            ratios = [wall / in_wall for wall in walls]
            print(f"arena run --jobs 1, start {method}, {args.repeat} repeats: {spread(walls)} ms/match wall")
            print(f"  = {spread(ratios)}x in process (median {per_match / in_wall:.1f}x)")
            if cpus:
                cpu_ratio = statistics.median(cpus) / in_cpu
                print(f"  CPU, every process: {spread(cpus)} ms/match = {cpu_ratio:.0f}x in process")
            parts = stored_parts(db)
            print(
                f"  agents' start (both) {spread(parts['start'])} ms; referee's match {spread(parts['match'])} ms;"
            )
            rest = per_match - statistics.median(parts["worker"])
            print(f"  worker's play {spread(parts['worker'])} ms; runner and store ~{rest:.1f} ms")
            pair, _, _ = arena_run(Path(folder), LONG, 2, env)
            print(
                f"arena run --jobs 2, start {method}: {LONG / pair:.1f} matches/s ({LONG} matches in {pair:.1f} s)"
            )
            if args.ladder and method == methods[-1]:
                thousand, _, _ = arena_run(Path(folder), 1000, 2, env)
                print(f"  1,000-match ladder, --jobs 2: {thousand:.0f} s ({1000 / thousand:.1f} matches/s)")


if __name__ == "__main__":
    main(sys.argv[1:])

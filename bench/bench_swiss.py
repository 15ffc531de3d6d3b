"""Swiss against round robin: how many matches each needs to reach the same top 3 of 8 agents.

Two measures:

- ``--simulate`` (seconds): 8 agents of known Elo strength 150 apart, results drawn from the Elo
  model instead of played, over many seeds: the matches a swiss ladder plays before every
  interval is under ``target_interval``, how often its top 3 (MLE order) is the true one, and
  the same for round robins of 1, 2 and 3 deals per pairing.
- default (tens of minutes on a loaded 2-core machine): 8 real Zapotec agents of graded
  strength (random, the first-option bot, greedy, flatmc with 1, 4, 16, 64 and 256 playouts),
  played through `play_ladder` exactly as `arena run` plays them: a round robin of ``--deals``
  deals per pairing, then a swiss ladder on the same seed with ``--target``; matches played,
  seconds and the top 3 (MLE order) of each.

Usage: python bench/bench_swiss.py [--simulate] [--seeds N] [--deals K] [--target ELO] [--jobs J] [--seed S]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

from arena.tournament.plan.runs import open_run

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# (display name, agent, options): graded strength, cheap to play.
AGENTS = [
    ("random", "random", "{ seed = 1 }"),
    ("first-option", str(ROOT / "examples" / "bots" / "first_option.py"), "{}"),
    ("flatmc-1", "flatmc", "{ playouts = 1, seed = 1 }"),
    ("flatmc-4", "flatmc", "{ playouts = 4, seed = 1 }"),
    ("flatmc-16", "flatmc", "{ playouts = 16, seed = 1 }"),
    ("flatmc-64", "flatmc", "{ playouts = 64, seed = 1 }"),
    ("greedy", "greedy", "{ seed = 1 }"),
    ("flatmc-256", "flatmc", "{ playouts = 256, seed = 1 }"),
]


def ladder_text(
    fmt: str, deals: int, extra: str = "", game: str = "zapotec", agents=AGENTS, seed: int = 1
) -> str:
    """An 8-agent 2-player ladder of ``fmt`` (round-robin or swiss)."""
    head = f'name = "bench-{fmt}"\ngame = "{game}"\nformat = "{fmt}"\nmatches_per_pairing = {deals}\nseed = {seed}\n'
    head += extra + "\n[clock]\nmove_ms = 5000\nbank_ms = 120000\n"
    body = "".join(
        f'[[agents]]\nname = "{name}"\nagent = "{agent}"\noptions = {options}\n'
        for name, agent, options in agents
    )
    return head + body


def top3(store, run) -> list[str]:
    from arena.tournament.stats.report import leaderboard_rows

    return [row["agent"] for row in leaderboard_rows(store, run, "mle")[:3]]


def play(text: str, db: Path, jobs: int) -> tuple[int, float, list[str]]:
    """(matches played, seconds, top 3 by MLE) of the ladder ``text``, played for real."""
    from arena.registry.plugins import discover
    from arena.tournament.plan.ladder import parse_ladder
    from arena.tournament.run.play import play_ladder
    from arena.tournament.store.sqlite import Store

    ladder = parse_ladder(text, discover(), source="bench")
    started = time.perf_counter()
    with Store(db) as store:
        summary = play_ladder(ladder, store, jobs=jobs)
        if summary.report.errors:
            raise SystemExit(f"benchmark run failed: {summary.report.errors[:1]}")
        return summary.counts["done"], time.perf_counter() - started, top3(store, summary.run)


def simulate(seeds: int, target: float) -> None:
    """The Elo-model measure (see the module's docstring)."""
    from arena.match.spec import MatchOutcome, SeatResult
    from arena.registry.plugins import discover
    from arena.tournament.plan.ladder import parse_ladder
    from arena.tournament.run.play import play_swiss
    from arena.tournament.run.runner import RunReport
    from arena.tournament.store.sqlite import Store

    os.environ["TLACHTLI_PLUGINS"] = "examples.games.goofspiel.game"
    registry = discover()
    strength = {f"s{k}": 150 * k for k in range(8)}
    truth = ["s7", "s6", "s5"]
    agents = [(name, "random", f"{{ seed = {i} }}") for i, name in enumerate(strength)]

    def play_all(store, pending, draw_seed: int) -> RunReport:
        for match in pending:
            a, b = match.entrants
            rng = random.Random(f"{draw_seed}:{match.seed}:{a}:{b}")
            a_wins = rng.random() < 1 / (1 + 10 ** ((strength[b] - strength[a]) / 400))
            scores = [1, 0] if a_wins else [0, 1]
            seats = tuple(SeatResult(i, "random", s, 2 - s) for i, s in enumerate(scores))
            store.mark_running(match.id)
            store.record_outcome(match, MatchOutcome(match.spec, seats, {}))
        return RunReport(played=len(pending))

    results: dict[str, list[tuple[int, bool]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(seeds):
            for variant, (label, fmt, deals, extra) in enumerate(
                [
                    ("round robin, 1 deal/pairing", "round-robin", 1, ""),
                    ("round robin, 2 deals/pairing", "round-robin", 2, ""),
                    ("round robin, 3 deals/pairing", "round-robin", 3, ""),
                    (f"swiss, target_interval = {target:g}", "swiss", 3, f"target_interval = {target}"),
                    ("swiss, max_matches = 56", "swiss", 3, "max_matches = 56"),
                    ("swiss, max_matches = 112", "swiss", 3, "max_matches = 112"),
                ]
            ):
                text = ladder_text(fmt, deals, extra, game="goofspiel", agents=agents, seed=seed)
                ladder = parse_ladder(text.replace("[clock]", "[options]\ncards = 5\n[clock]"), registry)
                with Store(Path(tmp) / f"{seed}-{variant}.db") as store:
                    run = open_run(store, ladder)
                    if fmt == "swiss":
                        play_swiss(store, run, ladder, partial(play_all, store, draw_seed=seed))
                    else:
                        play_all(store, store.pending(run.id), seed)
                    played = store.counts(run.id)["done"]
                    results.setdefault(label, []).append((played, top3(store, run) == truth))
    print(f"Elo model, 8 agents 150 Elo apart, {seeds} seeds: matches played (mean, sd), top 3 right")
    for label, runs in results.items():
        counts = [played for played, _ in runs]
        right = sum(ok for _, ok in runs)
        spread = statistics.stdev(counts) if len(counts) > 1 else 0.0
        print(
            f"  {label:36s} {statistics.mean(counts):6.1f} ± {spread:4.1f}   top 3 right {right}/{len(runs)}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--simulate", action="store_true", help="the Elo-model measure (no matches played)")
    parser.add_argument("--seeds", type=int, default=20, help="seeds of the simulation")
    parser.add_argument("--deals", type=int, default=2, help="deals per pairing of the real round robin")
    parser.add_argument("--target", type=float, default=400.0, help="swiss target_interval (Elo)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1, help="base seed of the real ladders")
    args = parser.parse_args()
    if args.simulate:
        simulate(args.seeds, args.target)
        return
    print(
        f"{os.cpu_count()} core(s), load average {os.getloadavg()[0]:.2f} at start; Zapotec, 8 agents, seed {args.seed}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for label, text in [
            (
                f"round robin, {args.deals} deals/pairing",
                ladder_text("round-robin", args.deals, seed=args.seed),
            ),
            (
                f"swiss, target_interval = {args.target:g}",
                ladder_text("swiss", args.deals, f"target_interval = {args.target}", seed=args.seed),
            ),
        ]:
            played, seconds, top = play(text, Path(tmp) / f"{label[:5]}.db", args.jobs)
            print(
                f"  {label:36s} {played:4d} matches in {seconds:6.0f} s   top 3: {', '.join(top)}", flush=True
            )
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()

"""Strength of the bundled search bots, in process, with Wilson 95% intervals on the win rates.

    .venv/bin/python bench/bench_strength.py --games 100 --iterations 200

Pairings: ismcts vs Teotibot, vs Cocijobot (normal), vs flatmc (2 players, both games, both
seatings of each deal); greedy vs random (both seatings) and vs each automaton. Every agent is
seeded and ismcts runs a fixed iteration budget, so the figures replay exactly (times aside).
Under ``make bench`` (bench/run_all.py) the defaults keep it to a few minutes on one core;
the issue's targets ask for 100 games at about 1 s per decision (docs/bots.md gives the cost).
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable

from arena.inprocess import play_in_process
from engine.api import Game
from engine.teotihuacan import GAME as TEOTIHUACAN
from engine.zapotec import GAME as ZAPOTEC
from plugins.bots.greedy import GreedyAgent
from plugins.bots.ismcts import ISMCTSAgent
from plugins.flat_mc_agent import FlatMonteCarloAgent
from plugins.random_agent import RandomAgent

GAMES = {"teotihuacan": TEOTIHUACAN, "zapotec": ZAPOTEC}
AUTOMATA = {"teotihuacan": ("teotibot", {}), "zapotec": ("cocijobot", {"difficulty": "normal"})}
PAIRINGS = ("ismcts-automaton", "ismcts-flatmc", "greedy-random", "greedy-automaton")
FLATMC_PLAYOUTS = {"teotihuacan": 16, "zapotec": 160}  # as bench_flat_mc plays it


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score 95% interval for a proportion of ``wins`` out of ``n`` (ties count half)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def report(label: str, outcomes: list[tuple[float, int]], seconds: float) -> None:
    """One line: wins (ties half), the Wilson interval, the mean margin and the time per game."""
    n = len(outcomes)
    wins = sum(w for w, _ in outcomes)
    low, high = wilson(wins, n)
    margin = sum(m for _, m in outcomes) / max(1, n)
    print(
        f"{label}: {wins:g}/{n} = {wins / max(1, n):.0%} (95% {low:.0%}-{high:.0%}), "
        f"mean margin {margin:+.1f}, {seconds / max(1, n):.1f} s/game",
        flush=True,
    )


def outcome(result, seat: int) -> tuple[float, int]:
    """(1 win / 0.5 tie / 0 loss, score margin over the best other seat) for ``seat``."""
    others = [s for i, s in enumerate(result.scores) if i != seat]
    margin = result.scores[seat] - max(others)
    rank_ties = sum(1 for r in result.ranks if r == result.ranks[seat])
    won = 1.0 if result.ranks[seat] == 1 and rank_ties == 1 else 0.5 if result.ranks[seat] == 1 else 0.0
    return won, margin


def solo(game: Game, make: Callable, options: dict, games: int) -> list[tuple[float, int]]:
    automaton, game_options = AUTOMATA[game.id]
    results = []
    for seed in range(games):
        state = play_in_process(
            game, [make()], 1000 + seed, options=game_options,
            agent_options=[{**options, "seed": seed}], automaton=automaton,
        )  # fmt: skip
        results.append(outcome(state.result(), 0))
    return results


def head_to_head(game: Game, make: Callable, options: dict, other: Callable, other_options: dict, games: int):
    """``games`` deals, each played twice with the seats swapped (2 x games results)."""
    results = []
    for seed in range(games):
        for seat in (0, 1):
            agents, agent_options = [other(), other()], [dict(other_options, seed=500 + seed)] * 2
            agents[seat], agent_options[seat] = make(), {**options, "seed": seed}
            state = play_in_process(game, agents, 1000 + seed, agent_options=agent_options)
            results.append(outcome(state.result(), seat))
    return results


def run(pairing: str, game: Game, games: int, iterations: int) -> None:
    ismcts = {"iterations": iterations}
    started = time.perf_counter()
    if pairing == "ismcts-automaton":
        label = f"{game.id}: ismcts ({iterations} it.) vs {AUTOMATA[game.id][0]}"
        results = solo(game, ISMCTSAgent, ismcts, games)
    elif pairing == "ismcts-flatmc":
        playouts = FLATMC_PLAYOUTS[game.id]
        label = f"{game.id}: ismcts ({iterations} it.) vs flatmc ({playouts} playouts), both seatings"
        results = head_to_head(game, ISMCTSAgent, ismcts, FlatMonteCarloAgent, {"playouts": playouts}, games)
    elif pairing == "greedy-random":
        label = f"{game.id}: greedy vs random, both seatings"
        results = head_to_head(game, GreedyAgent, {}, RandomAgent, {}, games)
    else:
        label = f"{game.id}: greedy vs {AUTOMATA[game.id][0]}"
        results = solo(game, GreedyAgent, {}, games)
    report(label, results, time.perf_counter() - started)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10, help="deals per pairing (head to head: 2 games each)")
    parser.add_argument("--iterations", type=int, default=100, help="ismcts iterations per decision")
    parser.add_argument("--game", choices=sorted(GAMES), action="append", help="only this game (repeatable)")
    parser.add_argument("--pairing", choices=PAIRINGS, action="append", help="only this pairing (repeatable)")
    args = parser.parse_args(argv or [])
    for game_id in args.game or sorted(GAMES):
        for pairing in args.pairing or PAIRINGS:
            run(pairing, GAMES[game_id], args.games, args.iterations)


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])

"""Zapotec figures: random self-play speed, and Cocijobot against the random agent.

Run with ``make bench`` or ``.venv/bin/python bench/run_all.py zapotec``.
"""

from __future__ import annotations

import statistics
import time
from random import Random

from engine.playout import play_random
from engine.zapotec import GAME

SPEED_GAMES = 500
SOLO_GAMES = 600


def self_play_speed(players: int, games: int) -> float:
    """Complete random games per second, in process."""
    start = time.perf_counter()
    for seed in range(games):
        play_random(GAME.setup(players, seed, {}), Random(seed))
    return games / (time.perf_counter() - start)


def percentile(values: list[int], fraction: float) -> int:
    """The value below which ``fraction`` of ``values`` lie (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def cocijobot_vs_random(games: int, difficulty: str) -> dict:
    """Cocijobot's scores and win rate against the random agent in seat 0."""
    bot, human, wins, ties = [], [], 0, 0
    for seed in range(games):
        state = GAME.setup(1, seed, {"difficulty": difficulty})
        play_random(state, Random(seed))
        result = state.result()
        bot.append(result.scores[1])
        human.append(result.scores[0])
        if result.ranks[1] == 1 and result.ranks[0] != 1:
            wins += 1
        elif result.ranks == (1, 1):
            ties += 1
    return {
        "median": statistics.median(bot),
        "p10": percentile(bot, 0.1),
        "p90": percentile(bot, 0.9),
        "win_rate": wins / games,
        "ties": ties,
        "random_median": statistics.median(human),
    }


def main() -> None:
    for players in (2, 3, 4):
        rate = self_play_speed(players, SPEED_GAMES)
        print(f"random self-play, {players} players: {rate:.0f} complete games/s ({SPEED_GAMES} games)")
    rate = self_play_speed(1, SPEED_GAMES)
    print(f"random solo vs Cocijobot: {rate:.0f} complete games/s ({SPEED_GAMES} games)")
    for difficulty in ("normal", "easier", "harder"):
        s = cocijobot_vs_random(SOLO_GAMES, difficulty)
        print(
            f"Cocijobot ({difficulty}) vs random, {SOLO_GAMES} seeded games: score median {s['median']}, "
            f"p10 {s['p10']}, p90 {s['p90']}; win rate {s['win_rate']:.1%} ({s['ties']} ties); "
            f"random agent median {s['random_median']}"
        )


if __name__ == "__main__":
    main()

"""Teotihuacan Late Preclassic speed: random 2-player self-play games per second with every
module built (modules = "all") against the base game, on the same seeds.

Rounds alternate base and expansion batches so that a change of machine load hits both; the
figures are the median over rounds with the lowest and highest, and the per-round ratio.
Target (issue 13): the expansion within 30% of the base game's games/s (ratio >= 0.70).
"""

from __future__ import annotations

import statistics
import time
from random import Random

from engine.playout import play_random
from engine.teotihuacan import GAME

ROUNDS = 7
GAMES = 40  # per batch


def batch(options: dict, first_seed: int) -> float:
    """Games per second over ``GAMES`` seeded random 2-player games."""
    start = time.process_time()  # CPU time: the machine's load changes it least
    for seed in range(first_seed, first_seed + GAMES):
        st = GAME.setup(2, seed, options)
        play_random(st, Random(seed))
    return GAMES / (time.process_time() - start)


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.1f} (min {min(values):.1f}, max {max(values):.1f})"


def main() -> None:
    base, expansion, ratios = [], [], []
    for r in range(ROUNDS):
        seed = r * GAMES
        b = batch({}, seed)
        e = batch({"modules": "all"}, seed)
        base.append(b)
        expansion.append(e)
        ratios.append(e / b)
    modules = GAME.check_options(2, {"modules": "all"})["modules"]
    print(f"teotihuacan 2-player random self-play, base game: {spread(base)} games/s")
    print(f"teotihuacan 2-player random self-play, modules={modules}: {spread(expansion)} games/s")
    ratio = statistics.median(ratios)
    verdict = "within" if ratio >= 0.70 else "NOT within"
    print(
        f"expansion / base: {ratio:.2f} (rounds {min(ratios):.2f}-{max(ratios):.2f}), "
        f"{verdict} the 30% target ({ROUNDS} rounds x {GAMES} games each)"
    )


if __name__ == "__main__":
    main()

"""Teotihuacan Late Preclassic speed: random 2-player self-play games per second with every
module built (modules = "all") against the base game, on the same seeds.

Rounds alternate base and expansion batches so that a change of machine load hits both; the
figures are the median over rounds with the lowest and highest, and the per-round ratio.
Target: the expansion within 30% of the base game's games/s (ratio >= 0.70).

``--instructions [GAMES]``: instructions per game instead, counted by valgrind's callgrind (a
figure the machine's load does not move): each kind of game played for GAMES seeds (20) and for
none in fresh interpreters, with PYTHONHASHSEED=0, start-up subtracted.
"""

from __future__ import annotations

import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from random import Random

from engine.playout import option_counter, play_random
from engine.teotihuacan import GAME

COUNT = option_counter(GAME)  # the engine's own option count: the same games, faster

ROUNDS = 7
GAMES = 40  # per batch
ROOT = Path(__file__).resolve().parents[1]
KINDS = {"base": {}, "all": {"modules": "all"}}  # the games --instructions compares


def batch(options: dict, first_seed: int) -> float:
    """Games per second over ``GAMES`` seeded random 2-player games."""
    start = time.process_time()  # CPU time: the machine's load changes it least
    for seed in range(first_seed, first_seed + GAMES):
        st = GAME.setup(2, seed, options)
        play_random(st, Random(seed), count=COUNT)
    return GAMES / (time.process_time() - start)


def play(options: dict, games: int) -> None:
    """Seeds 0 .. games-1 (after one set-up, so that zero games loads everything a game needs)."""
    GAME.setup(2, 0, options)
    for seed in range(games):
        play_random(GAME.setup(2, seed, options), Random(seed), count=COUNT)


def instructions(games: int) -> None:
    """Print instructions per game of both kinds and their ratio (see the module docstring)."""
    if shutil.which("valgrind") is None:
        sys.exit("--instructions needs valgrind on the PATH (apt-get install valgrind)")
    per_game = {}
    for name in ("base", "all"):
        start_up, total = (_collected(name, n) for n in (0, games))
        per_game[name] = (total - start_up) / games
    print(
        f"teotihuacan 2-player random self-play, instructions per game ({games} seeds): "
        f"base game {per_game['base'] / 1e6:.2f}M, modules=all {per_game['all'] / 1e6:.2f}M"
    )
    print(f"expansion / base in games/s: {per_game['base'] / per_game['all']:.3f} (target >= 0.70)")


def _collected(name: str, games: int) -> int:
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
    command += [sys.executable, __file__, "--play", name, str(games)]
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT, check=True)
    collected = re.search(r"Collected : (\d+)", done.stderr)
    if collected is None:
        raise SystemExit(f"valgrind printed no instruction count:\n{done.stderr[-2000:]}")
    return int(collected.group(1))


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
    if sys.argv[1:2] == ["--play"]:  # one callgrind run of --instructions
        play(KINDS[sys.argv[2]], int(sys.argv[3]))
    elif sys.argv[1:2] == ["--instructions"]:
        instructions(int(sys.argv[2]) if len(sys.argv) > 2 else 20)
    else:
        main()

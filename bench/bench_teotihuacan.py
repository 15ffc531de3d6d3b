"""Teotihuacan engine speed: random 2-player self-play games per second, mid-game clone() time."""

from __future__ import annotations

import time
from random import Random

from engine.playout import option_counter, play_random
from engine.teotihuacan import GAME

COUNT = option_counter(GAME)  # the engine's own option count: the same games, faster


def games_per_second(players: int = 2, seconds: float = 3.0) -> tuple[float, float]:
    """Complete random games per second on one core, and decisions per game."""
    start = time.perf_counter()
    games = decisions = 0
    while time.perf_counter() - start < seconds:
        st = GAME.setup(players, games, {})
        play_random(st, Random(games), count=COUNT)
        decisions += len(st.events)
        games += 1
    elapsed = time.perf_counter() - start
    return games / elapsed, decisions / games


def clone_microseconds(repeats: int = 20000) -> float:
    """Mean clone() time of a 2-player state halfway through a random game."""
    st = GAME.setup(2, 1, {})
    rng = Random(1)
    full = GAME.setup(2, 1, {})
    play_random(full, Random(1), count=COUNT)
    for _ in range(len(full.events) // 2):
        seat = st.to_act()[0]
        st.apply(seat, rng.randrange(len(st.decision(seat).options)))
    start = time.perf_counter()
    for _ in range(repeats):
        st.clone()
    return (time.perf_counter() - start) / repeats * 1e6


def main() -> None:
    for players in (2, 3, 4):
        rate, per_game = games_per_second(players, 3.0 if players == 2 else 1.5)
        print(
            f"teotihuacan random self-play, {players} players: {rate:.1f} games/s ({per_game:.0f} decisions/game)"
        )
    print(f"teotihuacan clone() at mid-game (2 players): {clone_microseconds():.1f} us")


if __name__ == "__main__":
    main()

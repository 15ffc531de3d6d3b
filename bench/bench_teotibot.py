"""Teotibot speed and strength: solo games per second with the random agent, and Teotibot's
final score (median, 10th and 90th percentile) and win rate against the random agent."""

from __future__ import annotations

import statistics
import time
from random import Random

from engine.playout import option_counter, play_random
from engine.teotihuacan import GAME

COUNT = option_counter(GAME)  # the engine's own option count: the same games, faster

SOLO = {"automaton": "teotibot"}


def solo_games(games: int = 500) -> tuple[float, list[int], list[int], int]:
    """Play ``games`` seeded solo games (random agent): games/s, bot scores, agent scores, bot wins."""
    bot, agent, wins = [], [], 0
    start = time.perf_counter()
    for seed in range(games):
        st = GAME.setup(1, seed, SOLO)
        play_random(st, Random(seed), count=COUNT)
        result = st.result()
        agent.append(result.scores[0])
        bot.append(result.scores[1])
        wins += result.ranks[1] == 1
    elapsed = time.perf_counter() - start
    return games / elapsed, bot, agent, wins


def percentile(values: list[int], q: float) -> float:
    """The q-th percentile (0-100), linear between ranks."""
    cuts = statistics.quantiles(values, n=100, method="inclusive")
    return cuts[int(q) - 1]


def main() -> None:
    games = 500
    rate, bot, agent, wins = solo_games(games)
    print(f"teotibot solo games (random agent) : {rate:.1f} games/s over {games} seeded games")
    print(
        f"teotibot final score               : median {statistics.median(bot):.0f}, "
        f"p10 {percentile(bot, 10):.0f}, p90 {percentile(bot, 90):.0f}"
    )
    print(
        f"random agent final score           : median {statistics.median(agent):.0f}, "
        f"p10 {percentile(agent, 10):.0f}, p90 {percentile(agent, 90):.0f}"
    )
    print(f"teotibot win rate vs random        : {wins / games:.1%} ({wins}/{games}, a tie is a bot win)")


if __name__ == "__main__":
    main()

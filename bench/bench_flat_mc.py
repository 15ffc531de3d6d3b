"""flatmc figures: win rate and score margin against random (in process), and time per decision.

Run with ``make bench`` or ``.venv/bin/python bench/run_all.py flat_mc``. flatmc alternates
seats game by game; both agents are seeded, so the figures replay exactly (the times excepted).
"""

from __future__ import annotations

import time
from typing import Any

from arena.match.inprocess import play_in_process
from arena.wire.agent import Agent
from engine.api import Game
from engine.teotihuacan import GAME as TEOTIHUACAN
from engine.zapotec import GAME as ZAPOTEC
from plugins.flat_mc_agent import DEFAULT_PLAYOUTS, FlatMonteCarloAgent
from plugins.random_agent import RandomAgent

ZAPOTEC_GAMES = 50
TEOTIHUACAN_GAMES = 20
# Teotihuacan games are ~3x longer with many more options per decision: fewer playouts keep it short.
TEOTIHUACAN_PLAYOUTS = 16


class TimedFlatMC(FlatMonteCarloAgent):
    """flatmc that adds up the time it spends deciding (forced moves included, as in a match)."""

    def __init__(self) -> None:
        super().__init__()
        self.decisions = 0
        self.seconds = 0.0

    def act(self, observation: dict[str, Any], decision: dict[str, Any]) -> int:
        start = time.perf_counter()
        choice = super().act(observation, decision)
        self.seconds += time.perf_counter() - start
        self.decisions += 1
        return choice


def versus_random(game: Game, games: int, playouts: int) -> dict:
    """flatmc (``playouts`` per decision) against random over ``games`` 2-player games."""
    wins = ties = decisions = fallbacks = 0
    margins: list[int] = []
    seconds = 0.0
    for seed in range(games):
        seat = seed % 2
        flatmc = TimedFlatMC()
        agents: list[Agent] = [RandomAgent(), RandomAgent()]
        options = [{"seed": 1000 + seed}, {"seed": 1000 + seed}]
        agents[seat] = flatmc
        options[seat] = {"seed": seed, "playouts": playouts}
        result = play_in_process(game, agents, seed, agent_options=options).result()
        margins.append(result.scores[seat] - result.scores[1 - seat])
        wins += result.ranks[seat] == 1 and result.ranks[1 - seat] != 1
        ties += result.ranks == (1, 1)
        decisions += flatmc.decisions
        seconds += flatmc.seconds
        fallbacks += flatmc.fallbacks
    return {
        "games": games,
        "playouts": playouts,
        "win_rate": wins / games,
        "ties": ties,
        "mean_margin": sum(margins) / games,
        "ms_per_decision": 1000 * seconds / decisions,
        "s_per_game": seconds / games,
        "fallbacks": fallbacks,
    }


def main() -> None:
    for game, games, playouts in (
        (ZAPOTEC, ZAPOTEC_GAMES, DEFAULT_PLAYOUTS),
        (TEOTIHUACAN, TEOTIHUACAN_GAMES, TEOTIHUACAN_PLAYOUTS),
    ):
        figures = versus_random(game, games, playouts)
        print(
            f"{game.id} 2p, flatmc ({figures['playouts']} playouts) vs random over {figures['games']} games: "
            f"win rate {figures['win_rate']:.0%} (ties {figures['ties']}), "
            f"mean score margin {figures['mean_margin']:+.1f}, "
            f"{figures['ms_per_decision']:.1f} ms/decision, {figures['s_per_game']:.2f} s/game of flatmc thinking, "
            f"fallbacks {figures['fallbacks']}",
            flush=True,
        )


if __name__ == "__main__":
    main()

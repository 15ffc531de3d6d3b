#!/usr/bin/env python3
"""Random episodes in the PettingZoo environment of a Tlachtli game: the loop an RL agent plugs into.

    .venv/bin/python examples/rl/random_episodes.py --game zapotec --players 2 --episodes 5
    .venv/bin/python examples/rl/random_episodes.py --game teotihuacan --players 1 --automaton teotibot

Needs the ``rl`` extra (``pip install 'tlachtli[rl]'``; ``make setup`` installs it). Replace
``policy`` with your learner: it sees the observation (the engine's dict under "engine", the
legal options under "action_mask") and returns an option index.
"""

from __future__ import annotations

import argparse

import numpy as np

from arena.match.envs import aec_env


def policy(observation: dict, rng: np.random.Generator) -> int:
    """A uniformly random legal option: the observation's action mask marks the options offered."""
    return int(rng.choice(np.flatnonzero(observation["action_mask"])))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="zapotec", help="an installed game (see `arena games`)")
    parser.add_argument("--players", type=int, default=2, help="agent seats")
    parser.add_argument("--automaton", default=None, help="the game's automaton takes one more seat (solo)")
    parser.add_argument("--episodes", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    env = aec_env(args.game, args.players, seed=args.seed, automaton=args.automaton)
    rng = np.random.default_rng(args.seed)
    for episode in range(args.episodes):
        env.reset(seed=args.seed + episode)
        returns = dict.fromkeys(env.agents, 0.0)
        decisions = 0
        for agent in env.agent_iter():
            observation, reward, terminated, truncated, info = env.last()
            returns[agent] += reward
            if terminated or truncated:
                env.step(None)  # a finished seat leaves the game
                continue
            env.step(policy(observation, rng))
            decisions += 1
        print(f"episode {episode}: {decisions} decisions, returns (score margin) {returns}")
    env.close()


if __name__ == "__main__":
    main()

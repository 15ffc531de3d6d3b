"""The PettingZoo AEC environment over the rules engines (arena/match/envs.py)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test

from arena.match.envs import TooManyOptions, aec_env
from arena.registry.plugins import discover
from engine.api import Capabilities
from examples.games.goofspiel.game import Goofspiel


def goofspiel_vector(observation: dict) -> list[float]:
    """A flat vector of a Goofspiel observation: round, prize, a 13-card hand mask, the scores."""
    hand = [float(card in observation["hand"]) for card in range(1, 14)]
    return [observation["round"], observation["prize"] or 0, *hand, *observation["scores"]]


class VectorGoofspiel(Goofspiel):
    """Goofspiel declaring a flat vector."""

    capabilities = Capabilities(observation_vector=goofspiel_vector)


@pytest.mark.parametrize(
    "game, players, automaton",
    [("zapotec", 2, None), ("zapotec", 3, None), ("zapotec", 1, "cocijobot"),
     ("teotihuacan", 2, None), ("teotihuacan", 1, "teotibot")],
)  # fmt: skip
def test_pettingzoo_api_test_passes(game, players, automaton):
    env = aec_env(game, players, seed=5, automaton=automaton)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # style advice (dict observations, all-zero masks at the end)
        api_test(env, num_cycles=1000)


def test_pettingzoo_api_test_passes_with_a_flat_vector():
    env = aec_env(VectorGoofspiel(), 3, seed=1, options={"cards": 4})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env, num_cycles=100)
    env.reset(seed=2)
    observation = env.observe(env.agent_selection)
    assert observation["observation"].dtype == np.float32 and observation["observation"].shape == (18,)
    assert list(observation["observation"][2:6]) == [1, 1, 1, 1]  # cards 1-4 in hand


def play_randomly(env, seed: int) -> tuple[list[tuple[str, int]], dict[str, float]]:
    """One episode with uniformly random legal actions: the (agent, action) trail and each return."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    trail, returns = [], dict.fromkeys(env.agents, 0.0)
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, info = env.last()
        returns[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        mask = observation["action_mask"]
        assert mask.sum() == len(info["labels"]) and mask[: len(info["labels"])].all()
        assert observation["engine"]["seat"] == int(agent.split("_")[1])
        action = int(rng.choice(np.flatnonzero(mask)))
        if returns[agent] == 0.0:
            assert reward == 0.0  # rewards come at the end only
        trail.append((agent, action))
        env.step(action)
    return trail, returns


def test_episodes_replay_by_seed_and_rewards_are_the_score_margin():
    env = aec_env("zapotec", 2, seed=0)
    first, returns = play_randomly(env, 11)
    again, _ = play_randomly(env, 11)
    assert first == again and len(first) > 20
    result = env.unwrapped.state.result()
    margin = result.scores[0] - result.scores[1]
    assert returns == {"seat_0": float(margin), "seat_1": float(-margin)}
    assert env.agents == []  # every seat left after the end


def test_solo_margin_is_against_the_automaton_and_win_rewards_are_signed():
    env = aec_env("zapotec", 1, seed=0, automaton="cocijobot")
    _, returns = play_randomly(env, 3)
    scores = env.unwrapped.state.result().scores
    assert len(scores) == 2 and returns == {"seat_0": float(scores[0] - scores[1])}
    env = aec_env("teotihuacan", 2, seed=0, reward="win")
    _, returns = play_randomly(env, 4)
    ranks = env.unwrapped.state.result().ranks
    expected = {1: 1.0 if ranks.count(1) == 1 else 0.0, 2: -1.0}
    assert returns == {f"seat_{seat}": expected[rank] for seat, rank in enumerate(ranks)}


def test_masked_actions_and_too_small_spaces_are_refused_clearly():
    env = aec_env("zapotec", 2, seed=0)
    env.reset(seed=0)
    offered = len(env.infos[env.agent_selection]["labels"])
    with pytest.raises(ValueError, match=f"masked out; this decision offers 0..{offered - 1}"):
        env.step(offered)
    with pytest.raises(TooManyOptions, match="max_options=1; build the environment with a larger"):
        aec_env("zapotec", 2, seed=0, max_options=1).reset(seed=0)
    with pytest.raises(ValueError, match="reward must be one of margin, win"):
        aec_env("zapotec", 2, reward="elo")


def test_every_installed_game_gets_an_environment():
    registry = discover()
    for game in registry.games.values():
        env = aec_env(game, max(2, game.min_players), seed=1)
        env.reset(seed=1)
        assert env.agent_selection in env.possible_agents


def test_the_random_episodes_example_runs():
    import subprocess
    import sys
    from pathlib import Path

    example = Path(__file__).resolve().parents[3] / "examples" / "rl" / "random_episodes.py"
    out = subprocess.run(
        [sys.executable, str(example), "--game", "zapotec", "--episodes", "2", "--seed", "4"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert [line.split(":")[0] for line in lines] == ["episode 0", "episode 1"]
    assert all("returns (score margin) {'seat_0': " in line for line in lines)

"""examples/bots/one_ply.py, the forward-model example: it plays whole games, in process and
through `arena play`, and its one step of look-ahead beats random play."""

from __future__ import annotations

import os

import pytest

from arena.bot import discover, play_in_process
from examples.bots.one_ply import OnePly, evaluate
from tests.support.cli import arena_in_process


@pytest.mark.parametrize("seed", [1, 2])
def test_one_step_ahead_beats_random_play(seed):
    game = discover().game("zapotec")
    random_agent = discover().agent("random").factory
    assert random_agent is not None
    final = play_in_process(
        game, [OnePly(), random_agent()], seed, agent_options=[{"samples": 2}, {"seed": seed}]
    )
    scores = final.result().scores
    assert scores[0] > scores[1], scores
    assert evaluate(final, 0) == scores[0] - scores[1]


def test_it_plays_through_arena_play_as_a_plugin(monkeypatch):
    monkeypatch.setenv("TLACHTLI_PLUGINS", os.environ["TLACHTLI_PLUGINS"] + ",examples.bots.one_ply")
    played = arena_in_process(
        "play",
        "-g",
        "zapotec",
        "-a",
        "one-ply",
        "--automaton",
        "cocijobot",
        "-O",
        "0:samples=1",
        "--seed",
        "3",
        "--json",
    )
    assert played.returncode == 0, played.stderr
    assert '"agent": "one-ply"' in played.stdout and '"fault": null' in played.stdout

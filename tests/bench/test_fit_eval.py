"""bench/fit_eval.py: positions saved and fitted again from the file; ``--turns`` plays greedy's play-outs."""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pytest

from arena.match.inprocess import hello_message
from bench.fit_eval import TARGETS, agents_for, main, play
from plugins.bots import zapotec_eval


def fit_args(**changes) -> argparse.Namespace:
    args = {"epsilon": 0.0, "turns": 0, "sample": 1.0, "ismcts_iterations": 5}
    return argparse.Namespace(**{**args, **changes})


def test_saved_positions_fit_the_same_tables_when_loaded(tmp_path: Path, capsys) -> None:
    saved = tmp_path / "zapotec.npz"
    main(["--game", "zapotec", "--games", "3", "--kinds", "solo-greedy", "--save", str(saved)])
    played = capsys.readouterr().out
    data = np.load(saved)
    assert set(data["game"]) == {100000, 100001, 100002}
    assert list(data["names"]) == list(zapotec_eval.FEATURES)
    # rows of both seats, the player's and Cocijobot's (each fitted to its own table)
    assert data["bot"].any() and not data["bot"].all()

    main(["--game", "zapotec", "--load", str(saved)])
    loaded = capsys.readouterr().out
    # the weight tables (all but the line saying where they came from) are the same fit
    tables = lambda out: out[out.index("# fmt: off") :]  # noqa: E731
    assert "PLAYER = {" in tables(played) and "COCIJOBOT = {" in tables(played)
    assert tables(loaded) == tables(played)


def test_turns_makes_greedy_play_on_in_the_games_it_fits() -> None:
    target = TARGETS["teotihuacan"]
    evaluate = target.module.evaluate
    seed = 100001
    _, looked_ahead = play(target, "solo-greedy", seed, fit_args(turns=0), evaluate)
    _, played_on = play(target, "solo-greedy", seed, fit_args(turns=1), evaluate)
    assert played_on != looked_ahead  # the play-outs changed greedy's choices


@pytest.mark.parametrize("turns", [0, 2])
def test_greedy_in_the_fit_takes_the_turns_it_is_given(turns: int) -> None:
    target = TARGETS["teotihuacan"]
    (agent,) = agents_for("solo-greedy", target.module.evaluate, fit_args(turns=turns))
    agent.setup(hello_message(target.game, 0, 2, dict(target.solo), {"seed": 1}))
    assert agent.turns == turns

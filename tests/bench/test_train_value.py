"""bench/train_value.py: seeded games kept one file each (a second run resumes), a fit that reports
held-out errors next to the tables', and a refusal in one line where there is nothing to fit."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bench.train_value import main, play_game
from plugins.bots.value_features import names


def test_a_seeded_game_gives_the_same_positions_and_final_scores():
    first = play_game("zapotec", "solo-greedy", 400007, epsilon=0.2, sample=0.5)
    again = play_game("zapotec", "solo-greedy", 400007, epsilon=0.2, sample=0.5)
    assert all(np.array_equal(first[key], again[key]) for key in first)
    assert first["features"].shape == (len(first["final"]), len(names("zapotec")))
    assert set(first["seat"]) == {0, 1}  # the player's rows and Cocijobot's
    assert (first["game"] == 400007).all()


def test_generate_resumes_and_fit_reports_the_network_against_the_tables(tmp_path: Path, capsys):
    out = tmp_path / "games"
    command = ["generate", "--game", "zapotec", "--games", "5", "--kinds", "solo-greedy", "--out", str(out)]
    main(command)
    files = sorted(p.name for p in out.glob("*.npz"))
    assert files == [f"zapotec-solo-greedy-{400000 + i}.npz" for i in range(5)]
    capsys.readouterr()
    main(command)  # every game is there: nothing to play
    assert "0 games to play" in capsys.readouterr().err

    main(["fit", "--game", "zapotec", "--data", str(out), "--epochs", "3", "--hidden", "8"])
    report = capsys.readouterr().out
    assert "held-out:" in report and "of 1 games" in report  # seed 400000 of the five is held out
    assert "RMSE network" in report and "tables" in report


def test_fit_without_games_is_one_error_line(tmp_path: Path):
    with pytest.raises(SystemExit, match=r"^error: no zapotec games in .*: run `generate` first$"):
        main(["fit", "--game", "zapotec", "--data", str(tmp_path)])


def test_module_games_keep_their_setting_and_one_network_is_fitted_over_every_setting(tmp_path: Path, capsys):
    out = tmp_path / "games"
    for setting, count in (("all", "3"), ("seasons", "2")):
        main(
            [
                "generate",
                "--game",
                "teotihuacan",
                "--modules",
                setting,
                "--games",
                count,
                "--kinds",
                "solo-greedy",
                "--out",
                str(out),
            ]
        )
    files = sorted(p.name for p in out.glob("*.npz"))
    # a setting's seeds: 1,000,000 times its modules' bit mask above --first-seed (all: 31)
    assert files == [f"teotihuacan+all-solo-greedy-{31400000 + i}.npz" for i in range(3)] + [
        f"teotihuacan+seasons-solo-greedy-{4400000 + i}.npz" for i in range(2)
    ]
    with np.load(out / files[0]) as game:
        assert list(game["columns"]) == names("teotihuacan-modules")
    capsys.readouterr()

    def fit(setting: str) -> str:
        main(
            [
                "fit",
                "--game",
                "teotihuacan",
                "--modules",
                setting,
                "--data",
                str(out),
                "--epochs",
                "3",
                "--hidden",
                "8",
            ]
        )
        return capsys.readouterr().out

    report = fit("any")
    assert "modules all:" in report and "modules seasons:" in report and "RMSE network" in report
    report = fit("seasons")
    assert report.count(" of 1 games") == 2 and "modules all:" not in report  # (4400000 held out)
    with pytest.raises(SystemExit, match=r"^error: no teotihuacan games in "):
        main(["fit", "--game", "teotihuacan", "--data", str(out)])  # the base game's: none there


def test_a_bad_modules_setting_is_one_error_line(tmp_path: Path):
    with pytest.raises(SystemExit, match=r"^error: --modules: option 'modules': unknown module 'pyramids'"):
        main(["generate", "--game", "teotihuacan", "--modules", "pyramids", "--out", str(tmp_path)])
    with pytest.raises(SystemExit, match=r"^error: --modules is Teotihuacan's .*: leave it out$"):
        main(["fit", "--game", "zapotec", "--modules", "all", "--data", str(tmp_path)])

"""The score sheet (Result.details["breakdown"]) and the score-over-time marks ("timeline") of
both engines: over seeded random games of every module set, solo mode and difficulty, each
seat's categories add up exactly to its score, and the last mark is the final score."""

from __future__ import annotations

from random import Random

import pytest

from engine.playout import play_random
from engine.teotihuacan import GAME as TEO
from engine.teotihuacan.core import CATEGORIES, PLAY_CATEGORIES
from engine.zapotec import GAME as ZAP

TEO_CONFIGS = [
    (2, {}),
    (3, {"first_game": True}),
    (4, {"dark_eclipse": True}),
    (2, {"starting_tile_draft": True}),
    (1, {"automaton": "teotibot"}),
    (2, {"modules": "priests"}),
    (2, {"modules": "height"}),
    (3, {"modules": "seasons"}),
    (2, {"modules": "architecture,development"}),
    (3, {"modules": "all"}),
    (1, {"automaton": "teotibot", "modules": "all"}),
]
ZAP_CONFIGS = [
    (2, {}),
    (3, {}),
    (4, {}),
    (1, {}),
    (1, {"difficulty": "harder"}),
    (1, {"difficulty": "easier"}),
]
SEEDS = range(10)
TEO_NAMES = set(PLAY_CATEGORIES) | {"eclipse_avenue", "eclipse_pyramid", "eclipse_masks", "salary"}
TEO_NAMES |= {"temple_bonus_tiles", "teotibot_final_scoring"}


def _play(game, players: int, options: dict, seed: int):
    state = game.setup(players, seed, options)
    return play_random(state, Random(seed)).result()


def _check_sheet(result) -> None:
    breakdown = result.details["breakdown"]
    assert len(breakdown) == len(result.scores)
    for seat, score in enumerate(result.scores):
        assert sum(breakdown[seat].values()) == score, (seat, breakdown[seat], score)
        assert all(isinstance(vp, int) and vp != 0 for vp in breakdown[seat].values())
    assert result.details["timeline"][-1]["scores"] == list(result.scores)


@pytest.mark.parametrize("players,options", TEO_CONFIGS, ids=repr)
def test_teotihuacan_sheet_adds_up(players: int, options: dict) -> None:
    for seed in SEEDS:
        result = _play(TEO, players, options, seed)
        _check_sheet(result)
        for seat, sheet in enumerate(result.details["breakdown"]):
            assert set(sheet) <= TEO_NAMES, sheet
            eclipse = result.details["per_seat"][seat]["categories"]
            assert sum(eclipse[name] for name in CATEGORIES) == sum(
                result.details["per_seat"][seat]["eclipses"]
            )
        labels = [mark["after"] for mark in result.details["timeline"]]
        assert labels[-1].startswith("Eclipse ") and "round 1" in labels
        assert sum(label.startswith("Eclipse") for label in labels) in (1, 2, 3)


@pytest.mark.parametrize("players,options", ZAP_CONFIGS, ids=repr)
def test_zapotec_sheet_adds_up(players: int, options: dict) -> None:
    for seed in SEEDS:
        result = _play(ZAP, players, options, seed)
        _check_sheet(result)
        labels = [mark["after"] for mark in result.details["timeline"]]
        assert labels == [f"round {r}" for r in range(1, 6)] + ["end scoring"]
        for sheet in result.details["breakdown"]:
            assert any(name.startswith("turn_scoring_round_") for name in sheet) or sum(sheet.values()) < 20


def test_teotibot_extras_and_solo_categories_are_booked() -> None:
    """Teotibot's own VP (its Construction and Decoration extras, cocoa cashed in, its final
    scoring) appear under its categories in solo games."""
    seen: set[str] = set()
    for seed in range(4):
        result = _play(TEO, 1, {"automaton": "teotibot"}, seed)
        seen |= set(result.details["breakdown"][1])
    assert {"teotibot_extras", "teotibot_final_scoring"} <= seen


def test_zapotec_sheet_survives_clone_and_observation() -> None:
    """A clone keeps its own sheet; a state rebuilt from a seat's observation carries the sheets."""
    state = ZAP.setup(2, 5, {})
    rng = Random(5)
    while state.round < 3 and state.to_act():
        seat = state.to_act()[0]
        state.apply(seat, rng.randrange(len(state.decision(seat).options)))
    copy = state.clone()
    copy.sheet[0][0] += 100
    assert state.sheet[0][0] != copy.sheet[0][0]
    rebuilt = ZAP.from_observation(state.observation(0), Random(1))
    assert rebuilt.sheet == state.sheet and sum(state.sheet[0]) == state.score[0]

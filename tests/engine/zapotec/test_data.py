"""The component data: loaded once, consistent, and every assumed value kept in assumed.toml."""

from __future__ import annotations

import tomllib
from importlib import resources

import pytest

from engine.zapotec.data import DataError, build_data, load


def _raw(name: str) -> dict:
    return tomllib.loads(resources.files("engine.zapotec").joinpath("data", name).read_text("utf-8"))


def test_loaded_once_and_counts_match_the_rule_book():
    data = load()
    assert load() is data
    assert len(data.spaces) == 45
    assert len(data.building_tiles) == 45
    assert sorted(data.action_cards) == list(range(1, 28))
    assert len(data.trade_tiles) == 36
    assert len(data.rituals) == 10
    assert len(data.cocijobot_deck) == 27
    assert data.pyramid_pieces == (1, 2, 3)
    assert data.houses == 9
    assert data.starting_resources == (1, 1, 1, 0, 0, 0)


@pytest.mark.parametrize("players, in_play", [(2, 27), (3, 36), (4, 45)])
def test_spaces_in_play_by_player_count(players, in_play):
    data = load()
    assert sum(1 for s in data.spaces if s.min_players <= players) == in_play


def test_two_player_board_has_one_space_per_combination():
    data = load()
    assert len(data.space_by_combo) == 27
    for (kind, region, terrain), index in data.space_by_combo.items():
        assert data.spaces[index].props == (kind, region, terrain)


def test_every_table_in_assumed_toml_carries_its_mark():
    assumed = _raw("assumed.toml")
    for name, table in assumed.items():
        assert any(key.endswith("assumed") and value is True for key, value in table.items()), name


def test_rules_toml_holds_no_assumed_value():
    text = resources.files("engine.zapotec").joinpath("data", "rules.toml").read_text("utf-8")
    assert "assumed = true" not in text


def test_found_sacrifice_steps_and_assumed_ones_combine():
    data = load()
    assert data.sacrifice_discount[3] == (2, 1)
    assert data.sacrifice_discount[6] == (3, 2)
    assert data.no_priest_ritual_step == 9
    assert data.free_ritual_step == 11
    assert [s for s in range(data.sacrifice_top + 1) if data.sacrifice_resource[s]] == [2, 5, 8]


def test_broken_data_is_rejected_with_a_message_saying_what_to_fix():
    rules, assumed = _raw("rules.toml"), _raw("assumed.toml")
    assumed["building_tiles"]["tiles"] = assumed["building_tiles"]["tiles"][:-1]
    with pytest.raises(DataError, match="back marks"):
        build_data(rules, assumed)
    rules, assumed = _raw("rules.toml"), _raw("assumed.toml")
    assumed["action_cards"]["cards"][0]["resource"] = "cocoa"
    with pytest.raises(DataError, match="unknown resource 'cocoa'"):
        build_data(rules, assumed)
    rules, assumed = _raw("rules.toml"), _raw("assumed.toml")
    rules["card_setup"]["4"]["hand"] = 5
    with pytest.raises(DataError, match="4 player"):
        build_data(rules, assumed)


def test_unsupported_readings_are_refused():
    rules, assumed = _raw("rules.toml"), _raw("assumed.toml")
    assumed["supply"]["limited"] = True
    with pytest.raises(DataError, match="unlimited"):
        build_data(rules, assumed)

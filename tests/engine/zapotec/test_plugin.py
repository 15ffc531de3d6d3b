"""Zapotec is found through its entry point and honours the engine contract's shape."""

from __future__ import annotations

from random import Random

from arena.registry.plugins import discover
from engine.api import Game, State
from engine.zapotec import GAME


def test_discovered_through_the_entry_point():
    registry = discover()
    game = registry.game("zapotec")
    assert game is GAME
    assert "plugins.zapotec_game" in registry.game_sources["zapotec"]


def test_game_and_state_match_the_protocols():
    assert isinstance(GAME, Game)
    state = GAME.setup(2, 0, {})
    assert isinstance(state, State)
    assert isinstance(GAME.from_observation(state.observation(1), Random(0)), State)
    assert "Zapotec round 1/5" in state.render()

"""Helpers for Teotibot scenario tests: a bare solo table and running one bot action."""

from __future__ import annotations

from engine.teotihuacan.flow import run
from engine.teotihuacan.state import TeoState
from engine.teotihuacan.teotibot import perform
from tests.engine.teotihuacan.util import blank

BOT = 1  # Teotibot's seat in a solo game
# Action tile ids (data/teotibot.toml).
CONSTRUCTION, DECORATIONS, ALCHEMY, NOBLES, MASTERY, WORSHIP, MASKS = range(1, 8)
# First-game layout, clockwise from place 1: Palace, Stone Quarry, Alchemy, Forest,
# Construction, Decorations, Nobles, Gold Deposits.
PALACE, FOREST, STONE, GOLD, ALCHEMY_B, NOBLES_B, DECOR, BUILD = 1, 2, 3, 4, 5, 6, 7, 8
# Worship spaces of the temple sidebars.
SPACE = {FOREST: 3, STONE: 4, GOLD: 5, DECOR: 6}


def solo(seed: int = 0, **options) -> TeoState:
    """A first-game solo table, every holding and worker cleared (Teotibot's too)."""
    return blank(1, seed, automaton="teotibot", **options)


def bot_action(st: TeoState, tile: int) -> None:
    """Carry out one Action tile for the bot and everything it triggers, nothing else."""
    st.stack = []
    perform(st, BOT, tile)
    run(st)
    assert not st.stack, f"the bot's action left frames behind: {st.stack}"


def bot_res(st: TeoState) -> list[int]:
    """The bot's wood, stone, gold."""
    return st.res[BOT * 3 : BOT * 3 + 3]

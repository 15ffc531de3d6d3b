"""Teotibot, the official solo automaton: rules.py (data, setup, action pyramid, final scoring,
answers to the base rules' choices) and actions.py (the turn and the seven actions).

Importing the package registers nothing: its frame handlers, automaton policies, Action tiles
and board steps are in ``PARTS`` (rulebook.py); the base rules use the names below.
"""

from ..hooks import Part
from . import actions, rules
from .actions import perform
from .rules import (
    BELOW,
    DICE_POSITION,
    SIDES,
    TILE_NAMES,
    final_score,
    option_schema,
    relocate_unlocked,
    setup_bot,
    shift_pyramid,
)

PARTS: tuple[Part, ...] = (*rules.PARTS, *actions.PARTS)

__all__ = [
    "BELOW",
    "DICE_POSITION",
    "PARTS",
    "SIDES",
    "TILE_NAMES",
    "final_score",
    "option_schema",
    "perform",
    "relocate_unlocked",
    "setup_bot",
    "shift_pyramid",
]

"""Teotihuacan: City of Gods, the base game engine. ``GAME`` is its ``engine.api.Game``."""

from . import actions, calendar, effects, setup, teotibot, turn, worship  # noqa: F401  (register frame handlers)
from .game import GAME, TeotihuacanGame

__all__ = ["GAME", "TeotihuacanGame"]

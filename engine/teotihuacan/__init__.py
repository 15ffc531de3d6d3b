"""Teotihuacan: City of Gods, the base game engine. ``GAME`` is its ``engine.api.Game``."""

from . import actions, calendar, effects, newboards, seasons, setup, teotibot, turn, worship  # noqa: F401  (register frame handlers)  # noqa: F401  (Late Preclassic modules: register their hooks)
from .game import GAME, TeotihuacanGame

__all__ = ["GAME", "TeotihuacanGame"]

"""Teotihuacan: City of Gods, the base game engine. ``GAME`` is its ``engine.api.Game``."""

# Importing the rule modules registers their frame handlers; the Late Preclassic modules
# (height, newboards, priests, seasons) register their hooks (each imports what must come first).
from . import actions, calendar, effects, height, newboards, priests, seasons, setup, teotibot, turn, worship  # noqa: F401
from .game import GAME, TeotihuacanGame

__all__ = ["GAME", "TeotihuacanGame"]

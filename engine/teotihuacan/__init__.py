"""Teotihuacan: City of Gods, the base game engine. ``GAME`` is its ``engine.api.Game``."""

# The rules files register nothing when imported: rulebook.py reads their parts.
from .game import GAME, TeotihuacanGame

__all__ = ["GAME", "TeotihuacanGame"]

"""Zapotec (Board & Dice, 2021): the full game for 2-4 players and solo against Cocijobot.

``from engine.zapotec import GAME``. Modules: data (component tables), setup, state, turn (an
agent seat's decisions), rules (shared primitives), flow (round structure), scoring, cocijobot,
observation (observe / determinize / from_observation), render.
"""

from .game import GAME, ZapotecGame

__all__ = ["GAME", "ZapotecGame"]

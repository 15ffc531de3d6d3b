"""Zapotec (Board & Dice, 2021): the full game for 2-4 players and solo against Cocijobot.

``from engine.zapotec import GAME``. Modules: game (the Game object), data (component tables),
setup (new game, from_observation), core (the state's fields and shared helpers), state (the
State: core plus decisions, result and views), turn (an agent seat's decisions), rules (shared
primitives), flow (round structure), scoring, cocijobot, observation (observe / determinize),
render.
"""

from .game import GAME, ZapotecGame

__all__ = ["GAME", "ZapotecGame"]

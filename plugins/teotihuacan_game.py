"""Registers the Teotihuacan engine (with its Teotibot automaton) with the arena (entry point ``teotihuacan``)."""

from __future__ import annotations

from arena.plugins import hookimpl
from engine.api import Game
from engine.teotihuacan import GAME


@hookimpl
def tlachtli_games() -> list[Game]:
    return [GAME]

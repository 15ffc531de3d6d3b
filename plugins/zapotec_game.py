"""Registers the Zapotec engine (with its Cocijobot automaton) through the ``tlachtli`` hook."""

from __future__ import annotations

from arena.plugins import hookimpl
from engine.zapotec import GAME


@hookimpl
def tlachtli_games() -> list:
    """The Zapotec rules engine."""
    return [GAME]

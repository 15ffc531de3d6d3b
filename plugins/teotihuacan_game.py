"""Registers the Teotihuacan engine (with its Teotibot automaton) through the ``tlachtli`` hook."""

from __future__ import annotations

from arena.registry.plugins import hookimpl


@hookimpl
def tlachtli_games() -> list:
    """The Teotihuacan rules engine (imported here, so agent processes that never ask skip it)."""
    from engine.teotihuacan import GAME

    return [GAME]

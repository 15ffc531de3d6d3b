"""Registers the Zapotec engine (with its Cocijobot automaton) through the ``tlachtli`` hook."""

from __future__ import annotations

from arena.registry.plugins import hookimpl


@hookimpl
def tlachtli_games() -> list:
    """The Zapotec rules engine (imported here, so agent processes that never ask skip it)."""
    from engine.zapotec import GAME

    return [GAME]

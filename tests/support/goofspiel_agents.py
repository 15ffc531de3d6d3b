"""Scripted goofspiel agents for tournament tests: ``prize-bidder`` is clearly stronger than random.

Registered as a plugin through ``TLACHTLI_PLUGINS`` (see tests/conftest.py).
"""

from __future__ import annotations

from typing import Any

from arena.agent import Agent
from arena.plugins import AgentSpec, hookimpl


class PrizeBidder(Agent):
    """Bids the card equal to the prize on offer (it is always still in hand: each prize comes once)."""

    name = "prize-bidder"
    version = "1"

    def act(self, observation: dict[str, Any], decision: dict[str, Any]) -> int:
        cards = [option["card"] for option in decision["options"]]
        return cards.index(observation["prize"])


@hookimpl
def tlachtli_agents() -> list[AgentSpec]:
    return [
        AgentSpec(
            name="prize-bidder",
            description="Goofspiel test bot: bids the card equal to the prize.",
            games=("goofspiel",),
            factory=PrizeBidder,
            version=PrizeBidder.version,
        )
    ]

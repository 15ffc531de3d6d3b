"""Scripted goofspiel agents for tournament tests: ``prize-bidder`` is clearly stronger than random.

Registered as a plugin through ``TLACHTLI_PLUGINS`` (see tests/conftest.py).
"""

from __future__ import annotations

import time
from typing import Any

from arena.bot import Agent, AgentSpec, hookimpl


class PrizeBidder(Agent):
    """Bids the card equal to the prize on offer (it is always still in hand: each prize comes once).

    Agent option ``pace_ms`` makes it think that long per decision (tests that interrupt a run).
    """

    name = "prize-bidder"
    version = "1"

    def setup(self, hello: dict[str, Any]) -> None:
        self.pace_s = hello["agent_options"].get("pace_ms", 0) / 1000

    def act(self, observation: dict[str, Any], decision: dict[str, Any]) -> int:
        if self.pace_s:
            time.sleep(self.pace_s)
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

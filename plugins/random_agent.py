"""``random``: picks uniformly among the legal options; seeded, so matches replay exactly."""

from __future__ import annotations

from random import Random
from typing import Any

from arena.agent import Agent
from arena.plugins import AgentSpec, hookimpl
from engine.options import Schema

# Its agent options, declared (engine/options.py): the arena refuses any other before a match.
OPTIONS: Schema = {
    "seed": {"type": "int", "default": None, "help": "seeds its choices (default: the seat number)"}
}


class RandomAgent(Agent):
    """Uniform over the options of every decision.

    Agent option ``seed`` (int) seeds it; by default the seed is the seat number, so a match
    with the same game seed replays exactly.
    """

    name = "random"
    version = "1"

    def __init__(self) -> None:
        self.rng = Random(0)

    def setup(self, hello: dict[str, Any]) -> None:
        seed = hello.get("agent_options", {}).get("seed", hello.get("seat", 0))
        self.rng = Random(seed)

    def act(self, observation: dict[str, Any], decision: dict[str, Any]) -> int:
        return self.rng.randrange(len(decision["options"]))


@hookimpl
def tlachtli_agents() -> list[AgentSpec]:
    return [
        AgentSpec(
            name="random",
            description="Uniformly random legal moves (seeded); the baseline every bot should beat.",
            factory=RandomAgent,
            version=RandomAgent.version,
            options=OPTIONS,
        )
    ]

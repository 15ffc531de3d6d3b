"""``random``: picks uniformly among the legal options; seeded, so matches replay exactly."""

from __future__ import annotations

from random import Random
from typing import Any

from arena.registry.plugins import AgentSpec, hookimpl
from arena.wire.agent import Agent
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
        # checked against OPTIONS, as the arena checks them (a bench or test may call this directly)
        options = SPEC.check_options(hello.get("agent_options", {}))
        self.rng = Random(options.get("seed", hello.get("seat", 0)))

    def act(self, observation: dict[str, Any], decision: dict[str, Any]) -> int:
        return self.rng.randrange(len(decision["options"]))


SPEC = AgentSpec(
    name="random",
    description="Uniformly random legal moves (seeded); the baseline every bot should beat.",
    factory=RandomAgent,
    version=RandomAgent.version,
    options=OPTIONS,
)


@hookimpl
def tlachtli_agents() -> list[AgentSpec]:
    return [SPEC]

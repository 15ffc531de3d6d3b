"""``value``: a look-ahead of one decision over the learned value function; milliseconds a decision.

For each option of its decision the agent plays the option in a state sampled from its
observation and values the position with the game's shipped network (plugins/bots/value_net.py;
Teotihuacan with Late Preclassic modules has its own):
right after the option (``look`` "step"), or where its turn ends with each later decision of the
turn the option best one step ahead (``look`` "turn", ``greedy``'s look-ahead with ``plies`` 1).
It plays the option with the best estimated margin over the best other seat (ties to the lowest
index). No search and no clock: a seed gives the same choices on any machine, a yardstick for
quick matches. A game without a shipped network is refused with one line.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from arena.registry.plugins import AgentSpec, hookimpl
from engine.api import State
from engine.options import Schema

from .greedy import GreedyAgent

LOOKS = ("turn", "step")

OPTIONS: Schema = {
    "seed": {"type": "int", "default": None, "help": "seeds its choices (default: the seat number)"},
    "look": {
        "type": "str",
        "default": "turn",
        "choices": list(LOOKS),
        "help": "value each option where the seat's turn ends (later decisions best one step ahead) or right after it",
    },
    "plies": {
        "type": "int",
        "default": 1,
        "min": 1,
        "help": "own decisions of the turn searched with look=turn (greedy's plies)",
    },
    "width": {
        "type": "int",
        "default": 3,
        "min": 0,
        "help": "options searched at each ply after the first, 0 = all (greedy's width)",
    },
}


class ValueAgent(GreedyAgent):
    """``greedy``'s one-ply look-ahead with the learned network as its evaluator (see the module
    docstring); options in ``OPTIONS`` (``arena agents value``)."""

    name = "value"
    version = "1"

    def __init__(self) -> None:
        super().__init__()
        self.look = "turn"

    def setup(self, hello: dict[str, Any]) -> None:
        from . import value_net  # numpy: only in a process that plays this agent, not at plugin discovery

        options = SPEC.check_options(hello.get("agent_options", {}))
        game, played = hello["game"], hello.get("options")
        if not value_net.has_network(game, played):
            raise ValueError(f"value: game {game!r} has no value network (see docs/bots.md)")
        self.look = options.get("look", "turn")
        # greedy's look-ahead alone: one ply, no play-outs, never cut short by the clock
        as_greedy = {
            "plies": options.get("plies", 1),
            "width": options.get("width", 3),
            "turns": 0,
            "clock": False,
        }
        if "seed" in options:
            as_greedy["seed"] = options["seed"]
        super().setup({**hello, "agent_options": as_greedy})
        assert self.evaluator is not None  # greedy's setup refuses a game without one
        self.evaluator = replace(self.evaluator, evaluate=value_net.evaluator(game, played))

    def value_of(self, state: State, choice: int, plies: int | None = None, turn: Any = None) -> float:
        if self.look == "step":
            return self.one_step(state, choice)
        return super().value_of(state, choice, plies, turn)


SPEC = AgentSpec(
    name="value",
    description="A one-decision look-ahead over a learned value network (Teotihuacan, Zapotec); milliseconds a move.",
    factory=ValueAgent,
    version=ValueAgent.version,
    options=OPTIONS,
)


@hookimpl
def tlachtli_agents() -> list[AgentSpec]:
    return [SPEC]

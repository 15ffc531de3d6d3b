"""A bot that looks one step ahead with the game's forward model: the step after "better than random".

For each decision it draws a few full states consistent with what its seat sees
(``Game.from_observation``: the hidden parts, such as the other hands, drawn at random), applies
each option on a copy (``State.apply``) and scores the position reached with an evaluator. The
option with the best total wins. Three parts to change for a stronger bot: how many states are
drawn (``samples``), how far it looks (one step here; a search looks further: ``greedy``,
``ismcts``), and above all the evaluator, which knows the game.

Run it from the checkout (a plugin module, found through ``$TLACHTLI_PLUGINS``)::

    PYTHONPATH=. TLACHTLI_PLUGINS=examples.bots.one_ply arena play -g zapotec -a one-ply -a random
    PYTHONPATH=. TLACHTLI_PLUGINS=examples.bots.one_ply arena play -g zapotec -a one-ply --automaton cocijobot

Agent options: ``samples`` (states drawn per decision, default 4), ``seed`` (default: the seat).
"""

from __future__ import annotations

from random import Random
from typing import Any

from arena.bot import Agent, AgentSpec, discover, hookimpl
from engine.api import State


def evaluate(state: State, seat: int) -> float:
    """How good ``state`` is for ``seat``: its points minus the best other seat's.

    The points are the final scores at the end, else Zapotec's running score (``state.score``,
    one entry per seat, the automaton's too). Your game's evaluator goes here: what its
    position is worth, not only what it has scored (resources, buildings, what the next rounds
    will pay). The bundled evaluators (plugins/bots/*_eval.py) are examples.
    """
    scores = state.result().scores if state.terminal() else state.score  # type: ignore[attr-defined]
    best_other = max((points for other, points in enumerate(scores) if other != seat), default=0)
    return float(scores[seat] - best_other)


class OnePly(Agent):
    """One step of look-ahead over sampled states, scored by ``evaluate``."""

    name = "one-ply"
    version = "1"

    def setup(self, hello: dict[str, Any]) -> None:
        options = hello["agent_options"]
        self.seat = hello["seat"]
        self.game = discover().game(hello["game"])  # the rules engine: the forward model
        self.samples = int(options.get("samples", 4))
        self.rng = Random(options.get("seed", self.seat))  # all its chance: a match replays exactly

    def act(self, observation: dict[str, Any], decision: dict[str, Any]) -> int:
        count = len(decision["options"])
        if count == 1:
            return 0
        totals = [0.0] * count
        for _ in range(self.samples):
            state = self.game.from_observation(observation, self.rng)  # one guess at what is hidden
            for choice in range(count):
                after = state.clone()
                after.apply(self.seat, choice)  # the automaton's answer, if any, is played inside apply
                totals[choice] += evaluate(after, self.seat)
        best = max(totals)
        # ties (most options score the same one step ahead): the first, as a person reading the list would
        return totals.index(best)


@hookimpl
def tlachtli_agents() -> list[AgentSpec]:
    return [
        AgentSpec(
            name="one-ply",
            description="Example: one step ahead with from_observation + apply, scored by an evaluator.",
            games=("zapotec",),
            factory=OnePly,
            version=OnePly.version,
        )
    ]

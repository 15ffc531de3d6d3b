"""``flatmc``: flat Monte Carlo over the options of each decision, for any game with ``from_observation``.

Each decision, a fixed number of random playouts is spread round-robin over the options: sample
a full state from the observation (hidden parts re-drawn for every playout), apply the option,
play random to the end and score the outcome from this seat's point of view. The option with the
best mean wins. All chance comes from the agent's own seeded Random, so a match replays exactly.
"""

from __future__ import annotations

from random import Random
from typing import Any

from arena.registry.plugins import AgentSpec, discover, hookimpl
from arena.wire.agent import Agent
from engine.api import Game, Result, State
from engine.options import Schema
from engine.playout import Counter, option_count, option_counter, play_random

# Playouts per decision: a Zapotec 2-player game with one flatmc seat stays around 3 s on one core.
DEFAULT_PLAYOUTS = 160
# Its agent options, declared (engine/options.py): the arena refuses any other before a match.
OPTIONS: Schema = {
    "seed": {"type": "int", "default": None, "help": "seeds its choices (default: the seat number)"},
    "playouts": {
        "type": "int",
        "default": DEFAULT_PLAYOUTS,
        "min": 1,
        "help": "random playouts a decision, spread over the options (each gets at least one)",
    },
}
# Games found so far, by id: discovery loads every plugin, so it runs once per process.
_GAMES: dict[str, Game] = {}


def find_game(game_id: str) -> Game:
    """The rules engine ``game_id`` (through ``arena.registry.plugins.discover``), remembered per process."""
    if game_id not in _GAMES:
        _GAMES[game_id] = discover().game(game_id)
    return _GAMES[game_id]


def outcome_value(result: Result, seat: int) -> float:
    """How good ``result`` is for ``seat``: its score minus the best other seat's score.

    The score margin played better than a win/loss value (with the margin as tie-break): the
    win+margin variant won 24 of 60 Zapotec games against this one, head to head.
    """
    best_other = max((s for i, s in enumerate(result.scores) if i != seat), default=0)
    return float(result.scores[seat] - best_other)


class FlatMonteCarloAgent(Agent):
    """Flat Monte Carlo: mean playout value per option, random playouts, resampled hidden state.

    Agent options: ``seed`` (int, default: the seat) and ``playouts`` (int >= 1 per decision,
    default ``DEFAULT_PLAYOUTS``; every option gets at least one). ``fallbacks`` counts decisions
    where the sampled state did not match the decision asked, answered with a random option.
    """

    name = "flatmc"
    version = "1"

    def __init__(self) -> None:
        self.rng = Random(0)
        self.seat = 0
        self.playouts = DEFAULT_PLAYOUTS
        self.game: Game | None = None
        self.count: Counter = option_count
        self.fallbacks = 0

    def setup(self, hello: dict[str, Any]) -> None:
        # checked against OPTIONS, as the arena checks them (a bench or test may call this directly)
        options = SPEC.check_options(hello.get("agent_options", {}))
        self.seat = hello.get("seat", 0)
        self.rng = Random(options.get("seed", self.seat))
        self.playouts = options.get("playouts", DEFAULT_PLAYOUTS)
        self.game = find_game(hello["game"])
        self.count = option_counter(self.game)  # the game's fast path, where it declares one

    def act(self, observation: dict[str, Any], decision: dict[str, Any]) -> int:
        count = len(decision["options"])
        if count == 1:
            return 0
        if self.game is None:
            raise RuntimeError("flatmc: act() called before setup()")
        totals = [0.0] * count
        visits = [0] * count
        for playout in range(max(self.playouts, count)):
            state = self.sample(observation, count)
            if state is None:
                self.fallbacks += 1
                return self.rng.randrange(count)
            option = playout % count
            state.apply(self.seat, option)
            play_random(state, self.rng, count=self.count)
            totals[option] += outcome_value(state.result(), self.seat)
            visits[option] += 1
        # Ties go to the lowest index, so the choice depends on the seed alone.
        return max(range(count), key=lambda i: (totals[i] / visits[i], -i))

    def sample(self, observation: dict[str, Any], count: int) -> State | None:
        """A state drawn from ``observation``, or None when its decision is not the one asked."""
        assert self.game is not None  # act() checked setup() came first
        state = self.game.from_observation(observation, self.rng)
        if self.seat not in state.to_act() or len(state.decision(self.seat).options) != count:
            return None
        return state


SPEC = AgentSpec(
    name="flatmc",
    description="Flat Monte Carlo: random playouts per option from resampled states (seeded).",
    factory=FlatMonteCarloAgent,
    version=FlatMonteCarloAgent.version,
    options=OPTIONS,
)


@hookimpl
def tlachtli_agents() -> list[AgentSpec]:
    return [SPEC]

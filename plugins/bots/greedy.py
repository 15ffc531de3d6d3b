"""``greedy``: a look-ahead over its turn with the game's evaluator; a fast baseline for any game that has one.

Each decision samples one full state from the observation, then for every option plays it and
the rest of the agent's turn (its further decisions until another seat is asked or, where the
evaluator names them in ``turn_start``, a decision that opens a new turn; at most ``TURN_STEPS``,
``WHOLE_TURN_STEPS`` with ``turn_start``) by taking, at each of those later decisions, the option the evaluator likes best
right after it. The option whose turn ends best for this seat (margin over the best other seat,
by the evaluator) is chosen; ties go to the lowest index.

With ``plies`` above 1 (option, or the game's default: plugins/bots/tuning.py) the look-ahead
also tries the options of the seat's next ``plies - 1`` decisions of the same turn (the
``width`` best of them one step ahead, every one with ``width`` 0; a decision with one option
costs no ply) and takes the best line before finishing the turn as above: a small search over
the turn, which sees plans the one-step continuation misses (e.g. taking the income that pays
for a House it builds later).

With ``turns`` above 0 (option, or the game's ``greedy_turns``) the ``top`` best options by
that look-ahead are valued again by playing on: the option, the rest of its turn and the seat's
next ``turns`` turns, every decision greedy's own choice (the search above), valued where the
last of those turns ends; the best of them is chosen. A turn's value then includes what it sets
up for the next, which a look-ahead ending with the turn cannot see. Other seats' turns on the way
(where other agents decide) are played by greedy's choices for their seats, an opponent model
(``rivals`` "greedy"; "stop" ends the play-out where another seat is asked, as the look-ahead does).
Each decision of a play-out is greedy's choice by the look-ahead above (``line`` "turn"), or, where
that costs too much (a Zapotec turn is ~20 decisions), the option best one step ahead (``line`` "step").
"""

from __future__ import annotations

import copy
import time
from random import Random
from typing import Any

from arena.registry.plugins import AgentSpec, EvaluatorSpec, hookimpl
from arena.wire.agent import Agent
from engine.api import Game, State
from engine.options import Schema
from plugins.flat_mc_agent import find_game

from .clock import think_ms
from .evaluators import find_evaluator, seat_reward
from .tuning import GREEDY_LINES, by_game, tuning_for

TURN_STEPS = 12  # without ``turn_start``: a few turns of a game whose turns are small decisions
# With the evaluator's ``turn_start`` the look-ahead ends with the turn; a Zapotec turn (income,
# Capital actions, builds, the draw) is rarely more than 20 decisions, a Teotihuacan one 2-4.
WHOLE_TURN_STEPS = 40

# Its agent options, declared (engine/options.py): the arena refuses any other before a match.
OPTIONS: Schema = {
    "seed": {"type": "int", "default": None, "help": "seeds its choices (default: the seat number)"},
    "plies": {
        "type": "int",
        "default": None,
        "min": 1,
        "help": f"own decisions of the turn searched (default by game: {by_game('greedy_plies')})",
    },
    "width": {
        "type": "int",
        "default": None,
        "min": 0,
        "help": f"options searched at each ply after the first, 0 = all (default by game: {by_game('greedy_width')})",
    },
    "turns": {
        "type": "int",
        "default": None,
        "min": 0,
        "help": f"more own turns its best options are played on through (default by game: {by_game('greedy_turns')})",
    },
    "top": {
        "type": "int",
        "default": None,
        "min": 1,
        "help": f"how many of its best options are played on (default by game: {by_game('greedy_top')})",
    },
    "rivals": {
        "type": "str",
        "default": "greedy",
        "choices": ["greedy", "stop"],
        "help": "other seats in a play-out: played by greedy's choices, or the play-out stops there",
    },
    "line": {
        "type": "str",
        "default": None,
        "choices": list(GREEDY_LINES),
        "help": f"a play-out's decisions by the turn's look-ahead or best one step ahead (default: {by_game('greedy_line')})",
    },
    "samples": {
        "type": "int",
        "default": None,
        "min": 1,
        "help": f"sampled states each option is played on in (default by game: {by_game('greedy_samples')})",
    },
    "keep": {
        "type": "int",
        "default": None,
        "min": 1,
        "help": "how many of the top options, best on the first sample, are played on in the others (default: top)",
    },
    "clock": {
        "type": "bool",
        "default": True,
        "help": "skip play-outs the clock leaves no time for (false: the same choices on any machine)",
    },
}


class GreedyAgent(Agent):
    """A look-ahead over its turn by evaluator (see the module docstring). Its options are
    declared in ``OPTIONS`` (``arena agents greedy``), their defaults by game in
    plugins/bots/tuning.py. With ``clock`` false it never skips a play-out for the clock, so a
    seed gives the same choices on any machine and under any load, as a fixed budget does
    ``ismcts``."""

    name = "greedy"
    version = "5"

    def __init__(self) -> None:
        self.rng = Random(0)
        self.seat = 0
        self.game: Game | None = None
        self.evaluator: EvaluatorSpec | None = None
        self.mismatches = 0
        self.plies = 1
        self.width = 0
        self.turns = 0
        self.top = 1
        self.players = 1
        self.rivals = "greedy"
        self.line = "turn"
        self.samples = 1
        self.keep = 1
        self.clocked = True  # the ``clock`` option
        # The reward's squash (seat_reward): ismcts's root prior sets them to its own (plugins/bots/ismcts.py).
        self.scale = 1.0
        self.centre = 0.0
        # The last play-out's wall time, and the decisions whose play-outs the clock cut short.
        self.playout_seconds = 0.0
        self.cut_short = 0

    def setup(self, hello: dict[str, Any]) -> None:
        self.seat = hello.get("seat", 0)
        # checked against OPTIONS, as the arena checks them (ismcts's prior, a bench or a test call this)
        options = SPEC.check_options(hello.get("agent_options", {}))
        self.rng = Random(options.get("seed", self.seat))
        self.game = find_game(hello["game"])
        self.evaluator = spec = find_evaluator(hello["game"])
        if spec is None:
            raise ValueError(f"greedy: game {hello['game']!r} has no evaluator (see docs/bots.md)")
        tune = tuning_for(hello["game"])
        self.scale = spec.scale
        self.plies = options.get("plies", tune.greedy_plies)
        self.width = options.get("width", tune.greedy_width)
        self.turns = options.get("turns", tune.greedy_turns)
        self.top = options.get("top", tune.greedy_top)
        self.players = int(hello.get("players", 1))
        self.rivals = options.get("rivals", "greedy")
        self.line = options.get("line", tune.greedy_line)
        self.samples = options.get("samples", tune.greedy_samples)
        self.keep = options.get("keep", self.top)
        self.clocked = options.get("clock", True)

    def act(self, observation: dict[str, Any], decision: dict[str, Any]) -> int:
        started = time.perf_counter()
        clock = decision.get("clock") if self.clocked else None
        deadline = None if clock is None else started + think_ms(clock) / 1000
        count = len(decision["options"])
        if count == 1:
            return 0
        if self.game is None:
            raise RuntimeError("greedy: act() called before setup()")
        state = self.game.from_observation(observation, self.rng)
        if self.seat not in state.to_act() or len(state.decision(self.seat).options) != count:
            self.mismatches += 1
            return self.rng.randrange(count)
        values, candidates = self.decision_values(state, deadline)
        best = max(candidates, key=lambda i: (values[i], -i))
        others = [value for i, value in enumerate(values) if i != best]
        self.explain(f"value {values[best]:.3f}, next best {max(others):.3f} ({count} options)")
        return best

    def decision_values(self, state: State, deadline: float | None = None) -> tuple[list[float], list[int]]:
        """What the seat's options in ``state`` are worth to it, and the options it chooses among
        (the best of them): by the turn's look-ahead, all of them; with ``turns``, its ``top``
        best by their play-outs, the rest at the worst play-out's value (``ismcts``'s prior).
        Where another play-out would end past ``deadline`` (``time.perf_counter()``), the
        look-ahead's values alone: a fast clock gets the cheap bot, not a forfeit."""
        values = self.option_values(state)
        everything = list(range(len(values)))
        if not self.turns:
            return values, everything
        # only the best few are played on: a play-out costs a greedy decision per decision played
        top = sorted(range(len(values)), key=lambda i: (-values[i], i))[: self.top]
        # each option played on in ``samples`` states, the same for all: the one given and others
        # with the hidden cards and the chance to come re-drawn, so one lucky draw does not decide
        states = [state] + [state.determinize(self.seat, self.rng) for _ in range(self.samples - 1)]
        ends: dict[int, list[float]] = {i: [] for i in top}

        def play(options: list[int], sampled: list[State]) -> bool:
            """Each of ``options`` played on in ``sampled``; False (counted) where the clock leaves
            no time."""
            for i in options:
                rewards = self.played_on(sampled, i, deadline)
                if rewards is None:
                    self.cut_short += 1
                    return False
                ends[i] += rewards
            return True

        if not play(top, states[:1]):
            return values, everything
        # the other samples go to the ``keep`` best on the first only (all by default)
        ranked = sorted(top, key=lambda i: (-ends[i][0], top.index(i)))[: self.keep]
        finalists = [i for i in top if i in ranked]  # in the look-ahead's order
        if not play(finalists, states[1:]):
            return values, everything
        played = {i: sum(ends[i]) / len(ends[i]) for i in top}
        worst = min(played[i] for i in finalists)
        # a dropped option is worth no more than the worst finalist: one sample does not beat many
        played.update({i: min(played[i], worst) for i in top if i not in finalists})
        return [played.get(i, worst) for i in range(len(values))], finalists

    def played_on(self, states: list[State], choice: int, deadline: float | None) -> list[float] | None:
        """``choice``'s reward where ``play_on`` ends from each of ``states``, or None where the
        play-outs (each as long as the last) would end past ``deadline``."""
        if not states:
            return []
        if deadline is not None and time.perf_counter() + self.playout_seconds * len(states) > deadline:
            return None
        began = time.perf_counter()
        rewards = [self.reward(self.play_on(sample, choice)) for sample in states]
        self.playout_seconds = (time.perf_counter() - began) / len(states)
        return rewards

    def option_values(self, state: State, turn: Any = None) -> list[float]:
        """``value_of`` each option of the seat's decision in ``state`` (``turn`` as there)."""
        return [self.value_of(state, i, None, turn) for i in range(len(state.decision(self.seat).options))]

    def choice(self, state: State, turn: Any = None) -> int:
        """The seat's choice in ``state`` by the turn's look-ahead (ties to the lowest index)."""
        if len(state.decision(self.seat).options) == 1:
            return 0
        values = self.option_values(state, turn)
        return max(range(len(values)), key=lambda i: (values[i], -i))

    def play_on(self, state: State, choice: int) -> State:
        """A copy of ``state`` after ``choice``, the rest of the seat's turn and its next ``turns``
        turns, each decision its own ``line_choice``, stopped where the turn after those opens or
        where the game ends. Another seat asked on the way plays greedy's choice for that seat (with
        ``rivals`` "greedy"; "stop": the play-out stops there)."""
        turn = self.turn_of(state)
        after = state.clone()
        after.apply(self.seat, choice)
        turns_left = self.turns
        rivals: dict[int, GreedyAgent] = {}
        for _ in range(WHOLE_TURN_STEPS * (self.turns + 1) * self.players):
            if after.terminal() or len(after.to_act()) != 1:
                break
            (seat,) = after.to_act()
            if seat != self.seat:
                if self.rivals != "greedy":
                    break
                if seat not in rivals:
                    rivals[seat] = self.as_seat(seat)
                after.apply(seat, rivals[seat].line_choice(after))
                continue
            decision = after.decision(self.seat)
            if self.opens_turn(after, decision.kind, turn):
                if turns_left == 0:
                    break
                turns_left -= 1
                turn = self.turn_of(after)
            after.apply(self.seat, self.line_choice(after, turn))
        return after

    def line_choice(self, state: State, turn: Any = None) -> int:
        """The seat's choice at a decision inside a play-out: by the turn's look-ahead (``line``
        "turn"), or the option best one step ahead ("step"; ties to the lowest index)."""
        return self.choice(state, turn) if self.line == "turn" else self.step_choice(state)

    def step_choice(self, state: State) -> int:
        """The seat's option in ``state`` best right after it (ties to the lowest index)."""
        count = len(state.decision(self.seat).options)
        return max(range(count), key=lambda i: (self.one_step(state, i), -i)) if count > 1 else 0

    def as_seat(self, seat: int) -> GreedyAgent:
        """This agent deciding for ``seat`` (its opponent model in a play-out)."""
        other = copy.copy(self)
        other.seat = seat
        return other

    def value_of(self, state: State, choice: int, plies: int | None = None, turn: Any = None) -> float:
        """This seat's reward after ``choice`` and the rest of its turn: its next ``plies - 1``
        decisions of the turn searched (``width`` options each, 0 = all), the others greedy.
        ``turn``: the evaluator's ``turn_count`` where the search began (None: ``state``'s)."""
        assert self.evaluator is not None  # setup() refuses a game without one
        plies = self.plies if plies is None else plies
        if turn is None:
            turn = self.turn_of(state)
        if plies <= 1:
            return self.reward(self.rest_of_turn(state, choice, turn))
        after = state.clone()
        after.apply(self.seat, choice)
        if after.to_act() != (self.seat,) or after.terminal():
            return self.reward(after)
        decision = after.decision(self.seat)
        if self.opens_turn(after, decision.kind, turn):
            return self.reward(after)
        count = len(decision.options)
        if count == 1:  # a forced step costs no ply
            return self.value_of(after, 0, plies, turn)
        choices: list[int] = list(range(count))
        if self.width and count > self.width:
            choices = sorted(choices, key=lambda i: (-self.one_step(after, i), i))[: self.width]
        return max(self.value_of(after, i, plies - 1, turn) for i in choices)

    def turn_of(self, state: State) -> Any:
        """The evaluator's ``turn_count`` of ``state`` (0 where it gives none)."""
        assert self.evaluator is not None  # setup() refuses a game without one
        count = self.evaluator.turn_count
        return 0 if count is None else count(state)

    def opens_turn(self, state: State, kind: str, turn: Any) -> bool:
        """Whether the seat's decision ``kind`` in ``state`` opens a new turn: a kind the
        evaluator's ``turn_start`` names, and (where it gives a ``turn_count``) a turn ended
        since ``turn`` (Teotihuacan asks its turn decision again after a tile or a paid unlock)."""
        assert self.evaluator is not None  # setup() refuses a game without one
        if kind not in self.evaluator.turn_start:
            return False
        return self.evaluator.turn_count is None or self.turn_of(state) != turn

    def rest_of_turn(self, state: State, choice: int, turn: Any = None) -> State:
        """A copy of ``state`` after ``choice`` and the seat's further decisions, each the best
        one step ahead, until another seat is asked, a new turn starts (the evaluator's
        ``turn_start``: against an automaton nobody else is ever asked) or the step limit."""
        assert self.evaluator is not None  # setup() refuses a game without one
        starts = self.evaluator.turn_start
        if turn is None:
            turn = self.turn_of(state)
        after = state.clone()
        after.apply(self.seat, choice)
        for _ in range(WHOLE_TURN_STEPS if starts else TURN_STEPS):
            if after.to_act() != (self.seat,):
                break
            decision = after.decision(self.seat)
            if self.opens_turn(after, decision.kind, turn):
                break
            after.apply(self.seat, self.step_choice(after))
        return after

    def one_step(self, state: State, choice: int) -> float:
        after = state.clone()
        after.apply(self.seat, choice)
        return self.reward(after)

    def reward(self, state: State) -> float:
        assert self.evaluator is not None  # setup() refuses a game without one
        scores = state.result().scores if state.terminal() else self.evaluator.evaluate(state)
        return seat_reward(scores, self.seat, self.scale, self.centre)


SPEC = AgentSpec(
    name="greedy",
    description=(
        "A look-ahead over its turn with the game's evaluator (any game that has one), "
        "its best options played on through its next turns; a fast baseline."
    ),
    factory=GreedyAgent,
    version=GreedyAgent.version,
    options=OPTIONS,
)


@hookimpl
def tlachtli_agents() -> list[AgentSpec]:
    return [SPEC]

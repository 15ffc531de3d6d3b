"""``ismcts``: single-observer Information Set Monte Carlo Tree Search, for any game with ``from_observation``.

Each iteration samples a fresh full state from the agent's observation (hidden parts re-drawn),
then walks one tree whose nodes are the agent's information sets as it sees them: a node is
reached by the sequence of choices (keyed by seat and option label) taken since the root, for
every seat. Selection is UCB over the children legal in this sample, with availability counts
(the number of samples in which a child was legal) in place of the parent's visits. Each seat
maximises its own reward: a node's statistics are those of the seat that chose it. One new node
is added per iteration, then a playout (random, evaluator-guided, or by each move's mean reward:
MAST, plugins/bots/mast.py) runs to the end or to the
cut-off depth, where the game's evaluator (``tlachtli_evaluators``) stands in for the final
scores. The reward of a seat is its score margin over the best other seat, squashed into [0, 1]
around 0 ("win"), around the margin the evaluator gives that seat at the root ("gain": far
behind or far ahead, a reward squashed around 0 is flat and every move looks alike), or around
the mean margin of the decision's playouts so far ("mean": where the evaluator's error drifts
through the game, its forecast at the cut-offs, later than the root, is off by another amount
than at the root).

Budget: ``iterations`` (hardware independent: the same seed and count give the same choices)
and/or ``time_ms``; with neither, the time comes from the clock of each decide message
(plugins/bots/clock.py). The answer is the most visited option.

Prior (``prior``): each root option starts with that many visits at the value ``greedy`` gives it
deciding on the decision's first sample (its look-ahead over the turn, and where it plays on, its
play-outs: ``GreedyAgent.decision_values``), so the search starts from greedy's opinion and leaves
it where its iterations disagree (docs/bots.md: in Teotihuacan, 3000 visits of greedy's 2-turn
play-outs at 300 iterations, +7.5 to +8.7 VP a game against Teotibot over the search before; in
2-player games, the play-outs modelling the rival's turns, +20 VP against last round's ismcts).

End game (``endgame``, off by default): in the game's last round (``plugins/bots/endgame.py``:
``near_end``) a decision is first tried exactly: on each of ``endgame_samples`` sampled states
the rest of the game is searched to its final scores (max-n; alpha-beta with two seats), and the
option with the best mean final margin is played. Where one sample's rest needs more than
``endgame_nodes`` moves, the search below decides as usual. The exact search draws its samples
from its own generator, so until it first decides, a game plays as it would without it.

Subtree reuse: when the agent decides twice in a row (the decide id is the previous one plus
one: nobody else was asked in between, e.g. the small decisions of one Teotihuacan turn), the
child of its previous choice becomes the new root; its statistics came from samples in which
that choice was made, which is exactly the new information set before chance and automaton
moves are revealed. Otherwise the tree starts afresh.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import replace
from random import Random
from typing import Any, TypeVar

from arena.registry.hookspecs import REWARDS
from arena.registry.plugins import AgentSpec, EvaluatorSpec, hookimpl
from arena.wire.agent import Agent
from engine.api import Game, State
from engine.draws import below
from engine.options import Schema
from engine.playout import (
    Counter,
    Labeller,
    observation_sampler,
    option_count,
    option_counter,
    option_labeller,
    option_labels,
)
from plugins.flat_mc_agent import find_game

from .clock import think_ms
from .endgame import OutOfReach, Solver, near_end
from .evaluators import find_evaluator, seat_margin, seat_reward
from .greedy import GreedyAgent
from .mast import MoveAverages
from .tuning import ISMCTS_POLICIES, by_game, tuning_for

DEFAULT_EXPLORATION = 0.7
DEFAULT_DEPTH = 40  # playout decisions before the evaluator is asked, if its EvaluatorSpec gives no depth
DEFAULT_SCALE = 10.0  # reward scale (a typical score margin) for games without an evaluator
# where the learned value network (plugins/bots/value_net.py) stands in for the evaluator's tables
NETWORK_USES = ("none", "cutoff", "prior", "both")
GUIDED_SAMPLE = 3  # options an evaluator-guided playout compares at each step
DEFAULT_EPSILON = 0.6  # a "mast" playout's share of random moves (0.2-0.6 measured: docs/bots.md)
DEFAULT_DECAY = 0.0  # the weight a "mast" table's counts keep into the next decision (0: a fresh table)
DEFAULT_ENDGAME_NODES = 5_000  # the exact end-game search's moves a sample
DEFAULT_ENDGAME_SAMPLES = 8  # sampled states the exact end-game search solves a decision
CARRY = 100  # reward "mean": the playouts the previous decision's mean margin counts as in the next

# Its agent options, declared (engine/options.py): the arena refuses any other before a match.
OPTIONS: Schema = {
    "seed": {"type": "int", "default": None, "help": "seeds its choices (default: the seat number)"},
    "iterations": {
        "type": "int",
        "default": None,
        "min": 1,
        "help": "iterations a decision; without time_ms the clock is ignored (the same seed and count: the same choices on any machine)",
    },
    "time_ms": {
        "type": "int",
        "default": None,
        "min": 1,
        "help": "milliseconds a decision (with neither budget: a share of the decide message's clock)",
    },
    "exploration": {"type": "float", "default": DEFAULT_EXPLORATION, "min": 0, "help": "the UCB constant"},
    "policy": {
        "type": "str",
        "default": None,
        "choices": list(ISMCTS_POLICIES),
        "help": f"how a playout picks moves (default by game: {by_game('ismcts_policy')})",
    },
    "epsilon": {
        "type": "float",
        "default": DEFAULT_EPSILON,
        "min": 0,
        "max": 1,
        "help": "a mast playout's share of random moves",
    },
    "decay": {
        "type": "float",
        "default": DEFAULT_DECAY,
        "min": 0,
        "max": 1,
        "help": "the weight mast's move averages keep into the next decision (0: each starts afresh)",
    },
    "depth": {
        "type": "int",
        "default": None,
        "min": 0,
        "help": "playout decisions before the evaluator scores the position, 0 = to the end "
        "(default: the evaluator's depth, its rivals_depth where other agents decide too; 0 without one)",
    },
    "reward": {
        "type": "str",
        "default": None,
        "choices": list(REWARDS),
        "help": "win: the margin squashed around 0; gain: around the root's evaluated margin; mean: around "
        "this decision's mean playout margin (default: the evaluator's, else win)",
    },
    "scale": {
        "type": "float",
        "default": None,
        "above": 0,
        "help": f"the margin worth a reward of ~0.88 (default: the evaluator's, else {DEFAULT_SCALE:g})",
    },
    "win_share": {
        "type": "float",
        "default": 0.0,
        "min": 0,
        "max": 1,
        "help": "the reward's share that is the outcome alone (1 won, 0.5 level, 0 lost)",
    },
    "reuse": {
        "type": "bool",
        "default": True,
        "help": "keep the subtree of its last choice between decisions",
    },
    "prior": {
        "type": "int",
        "default": None,
        "min": 0,
        "help": f"visits each root option starts with at greedy's value of it (default by game: {by_game('ismcts_prior')})",
    },
    "prior_samples": {
        "type": "int",
        "default": None,
        "min": 1,
        "help": "the prior's greedy's samples (default by game: "
        f"{by_game('ismcts_prior_samples')}; where other agents decide too: "
        f"{by_game('ismcts_rivals_prior_samples')}, 0 = the same)",
    },
    "prior_keep": {
        "type": "int",
        "default": None,
        "min": 1,
        "help": "the prior's greedy's keep (default: its top)",
    },
    "prior_plies": {
        "type": "int",
        "default": None,
        "min": 1,
        "help": "the prior's greedy's plies (default: greedy's own)",
    },
    "endgame": {
        "type": "bool",
        "default": False,
        "help": "in the game's last round, search the rest of each sampled game exactly (within "
        "endgame_nodes) and play the option with the best mean final margin over endgame_samples samples",
    },
    "endgame_nodes": {
        "type": "int",
        "default": DEFAULT_ENDGAME_NODES,
        "min": 1,
        "help": "the exact search's budget of moves a sample; past it the decision is searched as usual",
    },
    "endgame_samples": {
        "type": "int",
        "default": DEFAULT_ENDGAME_SAMPLES,
        "min": 1,
        "help": "sampled states the exact search solves a decision",
    },
    "network": {
        "type": "str",
        "default": "none",
        "choices": list(NETWORK_USES),
        "help": "where the game's learned value network replaces the evaluator's tables: at the playout "
        "cut-off (and the reward's centre), in the prior's greedy, both, or none",
    },
}


class Node:
    """The statistics of one choice in the tree, for the seat that made it."""

    __slots__ = ("seat", "visits", "reward", "avail", "children")

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.visits = 0
        self.reward = 0.0
        self.avail = 0
        self.children: dict[tuple, Node] = {}


def option_keys(seat: int, labels: list[str]) -> list[tuple]:
    """A key per option that names it across samples: its label (plus its rank among equal labels)."""
    if len(set(labels)) == len(labels):  # the usual case: every label differs (rank 0)
        return [(seat, label, 0) for label in labels]
    keys: list[tuple] = []
    seen: dict[str, int] = {}
    for label in labels:
        count = seen.get(label, 0)
        seen[label] = count + 1
        keys.append((seat, label, count))
    return keys


def outcome(margin: float) -> float:
    """A seat's outcome by its margin over the best other seat: 1 won, 0.5 level, 0 lost."""
    return 1.0 if margin > 0 else 0.5 if margin == 0 else 0.0


def search_info(root: Node, chosen: tuple, length: int = 4) -> str:
    """The info text of a search (shown beside the move): the chosen move's visits and mean
    reward, and the principal variation (the most visited line) from it."""
    child = root.children.get(chosen)
    if child is None or not child.visits:
        return "no visits"
    total = sum(node.visits for node in root.children.values())
    line, node = [str(chosen[1])], child
    while node.children and len(line) < length:
        key, node = max(node.children.items(), key=lambda item: item[1].visits)
        line.append(f"s{key[0]} {key[1]}")
    mean = child.reward / child.visits
    return f"visits {child.visits}/{total}, reward {mean:.3f}; PV: " + " > ".join(line)


def rivals_decide(hello: dict[str, Any]) -> bool:
    """Whether other agents decide in this match (an automaton's seat, named in the options, does not)."""
    return hello.get("players", 1) - ("automaton" in hello.get("options", {})) > 1


Setting = TypeVar("Setting")


def for_this_match(hello: dict[str, Any], everywhere: Setting, with_rivals: Setting) -> Setting:
    """An evaluator setting that has a variant for matches where other agents decide too (not only
    automata): ``with_rivals`` there, where it is set, else ``everywhere``."""
    return with_rivals if with_rivals and rivals_decide(hello) else everywhere


def default_depth(evaluator: EvaluatorSpec | None, hello: dict[str, Any]) -> int:
    """The playout cut-off the evaluator asks for in this match: its ``rivals_depth`` when other
    agents decide too, else its ``depth``."""
    if evaluator is None:
        return 0
    return for_this_match(hello, evaluator.depth or DEFAULT_DEPTH, evaluator.rivals_depth)


def default_policy(evaluator: EvaluatorSpec | None, hello: dict[str, Any]) -> str:
    """The playout policy tuned for this match's game (where it has an evaluator): its
    ``ismcts_rivals_policy`` when other agents decide too (where it names one), else its
    ``ismcts_policy`` (plugins/bots/tuning.py)."""
    if evaluator is None:
        return "random"
    tune = tuning_for(hello["game"])
    return for_this_match(hello, tune.ismcts_policy, tune.ismcts_rivals_policy)


class ISMCTSAgent(Agent):
    """Single-observer ISMCTS (see the module docstring). Its options are declared in ``OPTIONS``
    (``arena agents ismcts``); where one is not given, ``policy`` and ``depth`` come from the
    match (``default_policy``, ``default_depth``), ``reward`` and ``scale`` from the game's
    evaluator, ``prior`` and ``prior_samples`` from the game's tuning (plugins/bots/tuning.py)."""

    name = "ismcts"
    version = "4"

    def __init__(self) -> None:
        self.rng = Random(0)
        self.seat = 0
        self.game: Game | None = None
        # how options are counted and labelled: the game's own fast paths where it declares them
        self.count: Counter = option_count
        self.labels: Labeller = option_labels
        self.evaluator: EvaluatorSpec | None = None
        self.network = "none"  # where the learned value network replaces the tables (NETWORK_USES)
        self.iterations: int | None = None
        self.time_ms: int | None = None
        self.exploration = DEFAULT_EXPLORATION
        self.policy = "random"
        self.epsilon = DEFAULT_EPSILON
        # "mast": each move's mean reward over this decision's iterations (plugins/bots/mast.py),
        # and earlier decisions' at ``decay`` times their counts.
        self.averages = MoveAverages()
        self.decay = DEFAULT_DECAY
        self.depth = 0
        self.reward = "win"
        # The share of the reward that is the outcome alone (1 won, 0.5 level, 0 lost) beside the
        # squashed margin: 0 = the margin only.
        self.win_share = 0.0
        # Per seat, the margin a "gain" reward is squashed around: measured on each decision's first sample.
        self.centres: list[float] | None = None
        # Reward "mean": per seat, the sum of the playouts' margins and their count this decision
        # (the previous decision's mean counted as CARRY of them): the running centre.
        self.margin_sums: list[float] | None = None
        self.margin_count = 0
        self.reuse = True
        self.scale = DEFAULT_SCALE
        # ``prior``: greedy's value of each root option counts as this many visits (0 = none).
        self.prior = 0
        self.greedy: GreedyAgent | None = None
        # ``endgame``: the exact search of the last round (plugins/bots/endgame.py), or None
        self.solver: Solver | None = None
        # the exact search's own draws: trying it leaves the search's stream as it was, so a game
        # with ``endgame`` plays as one without it up to the first decision it solves
        self.endgame_rng = Random(0)
        self.endgame_samples = DEFAULT_ENDGAME_SAMPLES
        self.game_id = ""
        self.root: Node | None = None
        self.last_id: int | None = None
        self.last_key: tuple | None = None
        # Counters a bench or test reads: iterations run, trees reused, samples off the decision asked.
        self.total_iterations = 0
        self.reused = 0
        self.mismatches = 0
        self.solved = 0  # decisions the exact end-game search made

    def setup(self, hello: dict[str, Any]) -> None:
        # checked against OPTIONS, as the arena checks them (a bench or test may call this directly)
        options = SPEC.check_options(hello.get("agent_options", {}))
        self.seat = hello.get("seat", 0)
        self.rng = Random(options.get("seed", self.seat))
        self.iterations = options.get("iterations")
        self.time_ms = options.get("time_ms")
        self.exploration = options.get("exploration", DEFAULT_EXPLORATION)
        self.epsilon = options.get("epsilon", DEFAULT_EPSILON)
        self.decay = options.get("decay", DEFAULT_DECAY)
        self.averages = MoveAverages()  # a new game learns its moves afresh
        self.margin_sums, self.margin_count = None, 0
        self.reuse = options.get("reuse", True)
        self.game = find_game(hello["game"])
        self.game_id = hello["game"]
        self.count, self.labels = option_counter(self.game), option_labeller(self.game)
        self.evaluator = find_evaluator(hello["game"])
        self.network = options.get("network", "none")
        learned = (
            self.learned_evaluator(hello["game"], hello.get("options")) if self.network != "none" else None
        )
        if learned is not None and self.network in ("cutoff", "both"):
            self.evaluator = learned
        self.policy = options.get("policy", default_policy(self.evaluator, hello))
        if self.evaluator is not None:
            self.scale = self.evaluator.scale
        self.scale = options.get("scale", self.scale)
        depth = options.get("depth", default_depth(self.evaluator, hello))
        if (depth or self.policy == "evaluator") and self.evaluator is None:
            raise ValueError(
                f"ismcts: game {hello['game']!r} has no evaluator (tlachtli_evaluators), so 'depth' "
                "must be 0, 'policy' random and 'reward' win"
            )
        self.depth = depth
        self.reward = options.get("reward", self.evaluator.reward if self.evaluator else "win")
        self.win_share = options.get("win_share", 0.0)
        if self.reward == "gain" and self.evaluator is None:
            raise ValueError(
                f"ismcts: game {hello['game']!r} has no evaluator (tlachtli_evaluators), so 'depth' "
                "must be 0, 'policy' random and 'reward' win"
            )
        self.solver = None
        if options.get("endgame", False):
            # Move ordering pays only where a rival's choices can be cut (plugins/bots/endgame.py).
            order = self.evaluator.evaluate if self.evaluator and rivals_decide(hello) else None
            nodes = options.get("endgame_nodes", DEFAULT_ENDGAME_NODES)
            self.solver = Solver(nodes, hello.get("players", 1), self.count, order)
            self.endgame_samples = options.get("endgame_samples", DEFAULT_ENDGAME_SAMPLES)
            self.endgame_rng = Random(f"endgame {options.get('seed', self.seat)}")
        tune = tuning_for(hello["game"])
        prior = tune.ismcts_prior if self.evaluator else 0
        self.prior = options.get("prior", prior)
        self.greedy = None
        if self.prior:
            if self.evaluator is None:
                raise ValueError(f"ismcts: game {hello['game']!r} has no evaluator, so 'prior' must be 0")
            default = for_this_match(hello, tune.ismcts_prior_samples, tune.ismcts_rivals_prior_samples)
            # The prior's greedy: its samples, and its keep and plies where given (else its own).
            given = {"samples": options.get("prior_samples", default)}
            for name in ("keep", "plies"):
                if f"prior_{name}" in options:
                    given[name] = options[f"prior_{name}"]
            self.greedy = GreedyAgent()
            self.greedy.setup({**hello, "agent_options": given})
            self.greedy.scale = self.scale
            if learned is not None and self.network in ("prior", "both"):
                self.greedy.evaluator = learned

    def learned_evaluator(self, game: str, played: Mapping[str, Any] | None) -> EvaluatorSpec:
        """The game's evaluator with its learned network for the match's options ``played`` in
        place of the tables (the ``network`` option); a game without either is refused with one line."""
        from . import value_net  # numpy: only where the option asks for the network

        if self.evaluator is None or not value_net.has_network(game, played):
            raise ValueError(f"ismcts: game {game!r} has no value network, so 'network' must be none")
        return replace(self.evaluator, evaluate=value_net.evaluator(game, played))

    # ---- deciding ------------------------------------------------------------------------------
    def act(self, observation: dict[str, Any], decision: dict[str, Any]) -> int:
        started = time.perf_counter()
        options = decision["options"]
        keys = option_keys(self.seat, [option.get("label", "") for option in options])
        if self.solver is not None and len(options) > 1:
            solved = self.solve_end(observation, len(options))
            if solved is not None:
                # No tree was grown: the next decision starts a fresh one.
                self.root, self.last_key, self.last_id = None, None, decision.get("id")
                return solved
        root = self.next_root(decision.get("id"))
        # A "gain" reward is centred on the position now, at every decision: a reused subtree's
        # statistics were gathered around an earlier centre and only serve as a prior. (Kept for
        # the whole of a solo game, where every decision reuses, the centre was the first turn's,
        # and 40 points behind later every choice looked as flat as with "win": docs/bots.md.)
        self.centres = None
        if len(options) > 1:
            self.carry_mean()
            self.averages.decay(self.decay)  # "mast": this decision's search, earlier ones weighed down
            if self.game is None:
                raise RuntimeError("ismcts: act() called before setup()")
            self.search(root, observation, len(options), started, decision.get("clock", {}))
        choice = max(
            range(len(keys)),
            key=lambda i: (root.children[keys[i]].visits if keys[i] in root.children else -1, -i),
        )
        self.root, self.last_key, self.last_id = root, keys[choice], decision.get("id")
        if len(options) > 1:
            self.explain(search_info(root, keys[choice]))
        return choice

    def solve_end(self, observation: dict, count: int) -> int | None:
        """``endgame``: in the game's last round, the option with the best mean exact final
        margin over ``endgame_samples`` sampled states (the first on a tie); None where the game
        is not near its end or a sample's rest is past the node budget (then the search decides)."""
        assert self.game is not None and self.solver is not None  # setup() came first
        sample = observation_sampler(self.game, observation)
        totals = [0.0] * count
        solved = 0
        for _ in range(self.endgame_samples * 2):  # a few spare draws for samples off the decision
            state = sample(self.endgame_rng)
            if self.seat not in state.to_act() or self.count(state, self.seat) != count:
                continue
            if not near_end(self.game_id, state):
                return None
            try:
                margins = self.solver.option_margins(state, self.seat)
            except OutOfReach:
                return None
            totals = [total + margin for total, margin in zip(totals, margins, strict=True)]
            solved += 1
            if solved == self.endgame_samples:
                break
        if not solved:
            return None
        choice = max(range(count), key=lambda i: (totals[i], -i))
        self.solved += 1
        self.explain(
            f"exact end-game search over {solved} samples: mean final margin {totals[choice] / solved:+.1f}"
        )
        return choice

    def mean_margins(self) -> list[float] | None:
        """Reward "mean": each seat's mean playout margin so far (None before the first playout)."""
        if self.margin_sums is None or not self.margin_count:
            return None
        return [total / self.margin_count for total in self.margin_sums]

    def carry_mean(self) -> None:
        """Reward "mean": the previous decision's mean margins start this one's, as CARRY playouts."""
        means = self.mean_margins()
        if means is not None:
            self.margin_sums, self.margin_count = [mean * CARRY for mean in means], CARRY

    def mean_centres(self, values: list[float]) -> list[float]:
        """Reward "mean": each seat's mean margin over this decision's playouts before this one
        (this one's own at the first), then this one counted in."""
        margins = [seat_margin(values, seat) for seat in range(len(values))]
        centres = self.mean_margins() or margins
        totals = self.margin_sums if self.margin_count else [0.0] * len(values)
        assert totals is not None  # set with a count
        self.margin_sums = [total + margin for total, margin in zip(totals, margins, strict=True)]
        self.margin_count += 1
        return centres

    def next_root(self, decision_id: int | None) -> Node:
        """The previous choice's subtree when nobody decided since (see the module docstring)."""
        if (
            self.reuse
            and self.root is not None
            and decision_id is not None
            and decision_id == (self.last_id or 0) + 1
        ):
            assert self.last_key is not None  # set with root
            child = self.root.children.get(self.last_key)
            if child is not None:
                self.reused += 1
                return child
        return Node(self.seat)

    def search(self, root: Node, observation: dict, count: int, started: float, clock: dict) -> None:
        """Run iterations from ``root`` until the iteration budget or the time is spent."""
        budget_ms: float | None = self.time_ms
        if budget_ms is None and self.iterations is None:
            budget_ms = think_ms(clock)
        deadline = None if budget_ms is None else started + budget_ms / 1000
        done = 0
        assert self.game is not None  # act() checked setup() came first
        sample = observation_sampler(self.game, observation)
        primed = False
        while True:
            state = sample(self.rng)
            if self.seat in state.to_act() and self.count(state, self.seat) == count:
                if self.reward == "gain" and self.centres is None:
                    assert self.evaluator is not None  # setup() refuses "gain" without one
                    values = self.evaluator.evaluate(state)
                    self.centres = [seat_margin(values, seat) for seat in range(len(values))]
                if self.greedy is not None and not primed:
                    self.prime(root, state, deadline)
                    primed = True
                self.iterate(root, state)
            else:
                self.mismatches += 1
            done += 1
            if self.iterations is not None and done >= self.iterations:
                break
            if deadline is not None and time.perf_counter() >= deadline:
                break
        self.total_iterations += done

    def prime(self, root: Node, state: State, deadline: float | None = None) -> None:
        """Greedy's value of each root option (as greedy values it deciding, play-outs included
        where ``deadline`` leaves time for them, on this sample, rewarded as the search rewards)
        as ``prior`` visits of the root's children."""
        greedy = self.greedy
        assert greedy is not None  # setup() made one for a prior
        greedy.centre = self.prior_centre(state)
        values, _ = greedy.decision_values(state, deadline)
        for choice, key in enumerate(option_keys(self.seat, self.labels(state, self.seat))):
            child = root.children.get(key)
            if child is None:
                child = root.children[key] = Node(self.seat)
            child.visits += self.prior
            child.avail += self.prior
            child.reward += self.prior * values[choice]

    def prior_centre(self, state: State) -> float:
        """The margin the prior's rewards are squashed around, as the search's: the "gain" centre,
        for "mean" the mean so far (at a game's first decision, the root's evaluated margin)."""
        if self.centres:
            return self.centres[self.seat]
        if self.reward != "mean":
            return 0.0
        means = self.mean_margins()
        if means is not None:
            return means[self.seat]
        assert self.evaluator is not None  # setup() refuses a prior without one
        return seat_margin(self.evaluator.evaluate(state), self.seat)

    def iterate(self, root: Node, state: State) -> None:
        """One selection + expansion + playout + backpropagation on the sampled ``state``."""
        node, path, rng = root, [], self.rng
        moves: list[tuple] | None = [] if self.policy == "mast" else None  # every move made, for MAST
        while True:
            seats = state.to_act()
            if not seats:
                break
            seat = self.seat if node is root else seats[0]
            keys = option_keys(seat, self.labels(state, seat))
            children = node.children
            untried = []
            for i, key in enumerate(keys):
                child = children.get(key)
                if child is None:
                    untried.append(i)
                else:
                    child.avail += 1
            if untried:
                choice = untried[rng.randrange(len(untried))]
                child = children[keys[choice]] = Node(seat)
                child.avail = 1
                state.apply(seat, choice)
                path.append(child)
                if moves is not None:
                    moves.append(keys[choice])
                break
            choice = self.select(children, keys)
            state.apply(seat, choice)
            node = children[keys[choice]]
            path.append(node)
            if moves is not None:
                moves.append(keys[choice])
        values = self.playout(state, moves)
        centres = self.mean_centres(values) if self.reward == "mean" else self.centres
        rewards = [  # per seat (an automaton's too): every node and move of a seat gets the same
            seat_reward(values, seat, self.scale, centres[seat] if centres else 0.0)
            for seat in range(len(values))
        ]
        if self.win_share:
            share = self.win_share
            rewards = [
                (1 - share) * reward + share * outcome(seat_margin(values, seat))
                for seat, reward in enumerate(rewards)
            ]
        for visited in path:
            visited.visits += 1
            visited.reward += rewards[visited.seat]
        for key in moves or ():
            self.averages.add(key, rewards[key[0]])

    def select(self, children: dict, keys: list[tuple]) -> int:
        """UCB with availability counts; ties go to the lowest index."""
        best, best_value = 0, -math.inf
        c = self.exploration
        for i, key in enumerate(keys):
            child = children[key]
            value = child.reward / child.visits + c * math.sqrt(math.log(child.avail) / child.visits)
            if value > best_value:
                best, best_value = i, value
        return best

    # ---- playouts ------------------------------------------------------------------------------
    def playout(self, state: State, moves: list[tuple] | None = None) -> list[float]:
        """Per-seat scores: the final ones, or the evaluator's after ``depth`` playout decisions.
        With policy "mast", the moves taken are appended to ``moves``."""
        rng = self.rng
        steps = 0
        while True:
            seats = state.to_act()
            if not seats:
                return list(state.result().scores)
            if self.depth and steps >= self.depth:
                assert self.evaluator is not None  # setup() refuses a depth without one
                return list(self.evaluator.evaluate(state))
            seat = seats[0]
            if moves is not None:  # policy "mast": moves by their mean reward so far
                keys = option_keys(seat, self.labels(state, seat))
                choice = self.averages.choose(keys, rng, self.epsilon) if len(keys) > 1 else 0
                moves.append(keys[choice])
                state.apply(seat, choice)
                steps += 1
                continue
            count = self.count(state, seat)
            if self.policy == "evaluator" and count > 1:
                choice = self.guided_choice(state, seat, count)
            else:
                choice = below(rng, count)  # rng.randrange(count), the same draw
            state.apply(seat, choice)
            steps += 1

    def guided_choice(self, state: State, seat: int, count: int) -> int:
        """The best of a few random options for ``seat`` by the evaluator, one step ahead."""
        candidates = self.rng.sample(range(count), min(GUIDED_SAMPLE, count))
        best, best_value = candidates[0], -math.inf
        assert self.evaluator is not None  # setup() refuses policy "evaluator" without one
        for choice in candidates:
            after = state.clone()
            after.apply(seat, choice)
            value = seat_reward(self.evaluator.evaluate(after), seat, self.scale)
            if value > best_value:
                best, best_value = choice, value
        return best


SPEC = AgentSpec(
    name="ismcts",
    description="Information Set MCTS: resampled hidden state, evaluator cut-offs, clock-aware (seeded).",
    factory=ISMCTSAgent,
    version=ISMCTSAgent.version,
    options=OPTIONS,
)


@hookimpl
def tlachtli_agents() -> list[AgentSpec]:
    return [SPEC]

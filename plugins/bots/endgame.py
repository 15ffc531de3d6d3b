"""Exact end-game search: the rest of a determinised game, searched to its final scores.

A sampled state (hidden parts drawn, plugins/bots/ismcts.py) plays out deterministically given
the seats' choices: the bundled engines deal their chance at setup or draw it from a seed kept
in the state, and an automaton's moves are forced. So once few decisions remain, the final
scores under best play can be searched exactly instead of forecast by an evaluator.

The search is depth-first max-n: each seat with a choice picks the option that maximises its own
final margin over the best other seat; a seat with one option (an automaton, a forced step) just
plays it. With two seats a margin is zero-sum, so the search is alpha-beta on the first seat's
margin, children ordered by the game's evaluator where asked (where both seats choose: the cheap
first guess makes the cut-offs come early; against an automaton, whose moves are forced, every
choice is the player's and nothing is cut, so the whole tree is searched). Simultaneous choices (every seat picking at once) are taken one
seat after another, as the playouts do. No transposition table: a branch is searched each time
it is reached.

Every node costs an ``apply`` on a clone; past ``nodes`` of them the search gives up
(``OutOfReach``), and the caller goes back to its normal search. ``near_end`` says per game
whether a try is worth it (the last round), so that the budget is not spent on every decision.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from engine.api import State
from engine.playout import Counter, option_count

from .evaluators import seat_margin

Scores = list[float]
Evaluate = Callable[[State], Sequence[float]]


class OutOfReach(Exception):
    """The node budget ran out before the search reached every end of the game."""


def _teotihuacan_near_end(state: State) -> bool:
    # The Eclipse now coming is the last (third, or the Pyramid finished): at most two more
    # rounds of turns, then the final scoring.
    st: object = state
    final = getattr(st, "eclipses", 0) >= 2 or getattr(st, "pyramid_done", False)
    return bool(final and getattr(st, "pending", -1) >= 0)


def _zapotec_near_end(state: State) -> bool:
    st: object = state
    data = getattr(st, "data", None)
    return data is not None and getattr(st, "round", 0) >= data.rounds  # the fifth round: the last


# Per game: whether its end may be within reach of an exact search. A game not named here is
# always tried (the node budget alone decides).
NEAR_END: dict[str, Callable[[State], bool]] = {
    "teotihuacan": _teotihuacan_near_end,
    "zapotec": _zapotec_near_end,
}


def near_end(game_id: str, state: State) -> bool:
    """Whether ``state`` of game ``game_id`` is in its last stretch (see ``NEAR_END``)."""
    check = NEAR_END.get(game_id)
    return True if check is None else check(state)


class Solver:
    """Exact final scores of determinised states, within a budget of ``nodes`` applies (see the
    module docstring). ``seats``: the game's (an automaton's included; 2: alpha-beta); ``count``
    counts a seat's options (the game's fast path where it has one); ``evaluate``, where given,
    orders the children of a two-seat search."""

    def __init__(
        self, nodes: int, seats: int, count: Counter = option_count, evaluate: Evaluate | None = None
    ) -> None:
        self.budget = nodes
        self.seats = seats
        self.count = count
        self.evaluate = evaluate
        self.nodes = 0  # applies so far (reset by ``option_margins``)

    def option_margins(self, state: State, seat: int) -> list[float]:
        """``seat``'s exact final margin after each of its options in ``state`` (its turn), every
        seat playing on as the search assumes; raises ``OutOfReach`` past the budget."""
        self.nodes = 0
        margins = []
        for choice in range(self.count(state, seat)):
            child = self.child(state, seat, choice)
            margins.append(seat_margin(self.scores(child), seat))
        return margins

    def child(self, state: State, seat: int, choice: int) -> State:
        """A clone of ``state`` with ``seat``'s ``choice`` made, counted against the budget."""
        self.nodes += 1
        if self.nodes > self.budget:
            raise OutOfReach
        child = state.clone()
        child.apply(seat, choice)
        return child

    def scores(self, state: State) -> Scores:
        """The final scores of ``state`` under best play (it may be changed in place)."""
        if self.seats == 2:
            low, _ = self.alphabeta(state, -math.inf, math.inf)
            return low
        return self.maxn(state)

    def forced(self, state: State) -> tuple[int, int] | None:
        """Plays forced moves in place (counted); the seat to choose and its option count, or
        None at the end."""
        while True:
            seats = state.to_act()
            if not seats:
                return None
            seat = seats[0]
            count = self.count(state, seat)
            if count > 1:
                return seat, count
            self.nodes += 1
            if self.nodes > self.budget:
                raise OutOfReach
            state.apply(seat, 0)

    def maxn(self, state: State) -> Scores:
        """Max-n: the seat to choose takes the child with its best margin (first on a tie)."""
        turn = self.forced(state)
        if turn is None:
            return [float(score) for score in state.result().scores]
        seat, count = turn
        best: Scores | None = None
        best_margin = -math.inf
        for choice in range(count):
            values = self.maxn(self.child(state, seat, choice))
            margin = seat_margin(values, seat)
            if margin > best_margin:
                best, best_margin = values, margin
        assert best is not None  # count > 1
        return best

    def alphabeta(self, state: State, alpha: float, beta: float) -> tuple[Scores, float]:
        """Two seats: seat 0 maximises ``scores[0] - scores[1]``, seat 1 minimises it. Returns
        the scores of the line found and that difference; exact where it lies inside
        (alpha, beta), else a bound on the side it fell (fail-soft)."""
        turn = self.forced(state)
        if turn is None:
            scores: Scores = [float(score) for score in state.result().scores]
            return scores, scores[0] - scores[1]
        seat, count = turn
        children = [self.child(state, seat, choice) for choice in range(count)]
        if self.evaluate is not None:
            sign = 1 if seat == 0 else -1
            guesses = [sign * self.diff(self.evaluate(child)) for child in children]
            children = [children[i] for i in sorted(range(count), key=lambda i: -guesses[i])]
        best: Scores | None = None
        best_value = -math.inf if seat == 0 else math.inf
        for child in children:
            values, value = self.alphabeta(child, alpha, beta)
            if seat == 0:
                if value > best_value:
                    best, best_value = values, value
                alpha = max(alpha, value)
            else:
                if value < best_value:
                    best, best_value = values, value
                beta = min(beta, value)
            if alpha >= beta:
                break
        assert best is not None  # count > 1
        return best, best_value

    @staticmethod
    def diff(values: Sequence[float]) -> float:
        """Seat 0's lead over seat 1."""
        return values[0] - values[1]

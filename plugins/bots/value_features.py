"""The inputs of the learned value function (plugins/bots/value_net.py): one row of numbers per seat.

A row describes the position from that seat's view, from what every seat sees (as the linear
evaluators read it): the seat's own row of the game's linear-evaluator features, the highest of
the other seats' rows (feature by feature: what the strongest rival holds), its points banked
and its lead over the best other seat, the linear tables' own forecast for the seat, whether
the seat is the automaton's and how many seats play. The network learns what the seat's final
score adds to the points banked, so ``banked + prediction`` is an evaluator's estimate.

The features are the linear evaluators' (plugins/bots/teotihuacan_eval.py, zapotec_eval.py)
less their constant column; ``names(game)`` lists them in order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

GAMES = ("teotihuacan", "zapotec")

# after each game's own features: its rivals' maxima, then these
CONTEXT = ("banked", "lead", "linear", "is_bot", "has_bot", "seats")


def _teotihuacan(state: Any) -> tuple[list[float], list[list[float]], np.ndarray, int]:
    from engine.teotihuacan.observation import PublicView

    from . import teotihuacan_eval as module

    public = PublicView(state)
    bot = public["bot"]
    rows = module.features(public)
    player, automaton = _tables(module)
    return [float(v) for v in public["vp"]], rows, _linear(rows, bot, player, automaton), bot


def _zapotec(state: Any) -> tuple[list[float], list[list[float]], np.ndarray, int]:
    from . import zapotec_eval as module

    bot = module.BOT_SEAT if state.solo else -1
    rows = module.features(state)
    player, automaton = _tables(module)
    linear = _linear(rows, bot, player, automaton)
    for seat, row in enumerate(rows):
        # the income lines the player's forecast adds by hand, in the constant's column
        lines = (
            0.0
            if seat == bot
            else module.INCOME_LINE * module.best_lines(state, seat) * module.incomes_left(state, seat)
        )
        linear[seat] += lines
        row[-1] = lines
    return [float(v) for v in module.if_ended_now(state)], rows, linear, bot


def _tables(module: Any) -> tuple[np.ndarray, np.ndarray]:
    """A linear evaluator module's two weight tables as arrays (players', the automaton's)."""
    return np.array(module._PLAYER_W), np.array(module._BOT_W)


def _linear(rows: list[list[float]], bot: int, player: np.ndarray, automaton: np.ndarray) -> np.ndarray:
    """The tables' forecast for each seat: its row times its table."""
    linear = np.asarray(rows, dtype=float) @ player
    if bot >= 0:
        linear[bot] = np.dot(rows[bot], automaton)
    return linear


# per game: state -> (points banked per seat, feature rows, the linear forecast per seat, the
# automaton's seat or -1); each row's last column is free (the tables' constant): the game's own use
_VIEWS: dict[str, Callable[[Any], tuple[list[float], list[list[float]], np.ndarray, int]]] = {
    "teotihuacan": _teotihuacan,
    "zapotec": _zapotec,
}


def names(game: str) -> list[str]:
    """The column names of ``seat_features``'s rows for ``game``."""
    if game == "teotihuacan":
        from . import teotihuacan_eval

        own = list(teotihuacan_eval.FEATURES[:-1])
    else:
        from . import zapotec_eval

        own = [*zapotec_eval.FEATURES[:-1], "income_lines"]
    return [*own, *(f"rival_{name}" for name in own), *CONTEXT]


def seat_features(game: str, state: Any) -> tuple[np.ndarray, np.ndarray]:
    """The points every seat has banked (shape ``(seats,)``) and one feature row per seat
    (``(seats, len(names(game)))``), from the public part of ``state`` only."""
    banked, rows, linear, bot = _VIEWS[game](state)
    full = np.asarray(rows, dtype=float)
    own = full if game == "zapotec" else full[:, :-1]  # Teotihuacan's last column: the constant
    seats, width = own.shape
    points = np.asarray(banked, dtype=float)
    out = np.empty((seats, 2 * width + len(CONTEXT)))
    out[:, :width] = own
    # the best other seat's value of each column: the best of all, or the second where it is the seat's own
    ranked = np.sort(own, axis=0)
    out[:, width : 2 * width] = np.where(own == ranked[-1], ranked[-2], ranked[-1])
    ordered = np.sort(points)
    out[:, 2 * width] = points
    out[:, 2 * width + 1] = points - np.where(points == ordered[-1], ordered[-2], ordered[-1])
    out[:, 2 * width + 2] = linear
    out[:, 2 * width + 3] = np.arange(seats) == bot
    out[:, 2 * width + 4] = float(bot >= 0)
    out[:, 2 * width + 5] = float(seats)
    return points, out

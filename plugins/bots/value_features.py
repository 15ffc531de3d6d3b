"""The inputs of the learned value function (plugins/bots/value_net.py): one row of numbers per seat.

A row describes the position from that seat's view, from what every seat sees (as the linear
evaluators read it): the seat's own row of the game's linear-evaluator features, the highest of
the other seats' rows (feature by feature: what the strongest rival holds), its points banked
and its lead over the best other seat, the linear tables' own forecast for the seat, whether
the seat is the automaton's and how many seats play. The network learns what the seat's final
score adds to the points banked, so ``banked + prediction`` is an evaluator's estimate.

The features are the linear evaluators' (plugins/bots/teotihuacan_eval.py, zapotec_eval.py)
less their constant column; ``names(kind)`` lists them in order.

Teotihuacan with Late Preclassic modules has its own kind of rows, ``teotihuacan-modules``
(``kind(game, options)`` picks it): the base rows with, per seat, what the modules add to a
seat's holdings (steps on M2's orange temple, its Special Abilities, the priest tile it keeps),
and, for every seat alike, which modules are in play and which Season tile is active. The base
game's rows stay as they are, so its network keeps serving it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

GAMES = ("teotihuacan", "zapotec")
MODULES_KIND = "teotihuacan-modules"
KINDS = ("teotihuacan", MODULES_KIND, "zapotec")

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


def kind(game: str, options: Mapping[str, Any] | None = None) -> str:
    """The kind of feature rows (and so of network) for ``game`` played with ``options``: the
    game's own, or ``teotihuacan-modules`` where Teotihuacan has a Late Preclassic module."""
    if game == "teotihuacan" and options and options.get("modules"):
        from engine.teotihuacan.modules import parse

        if parse(options["modules"]):
            return MODULES_KIND
    return game


def game_of(kind: str) -> str:
    """The game a kind of rows is of."""
    return MODULES_KIND.split("-")[0] if kind == MODULES_KIND else kind


def _module_names() -> tuple[list[str], list[str]]:
    """The columns the modules add: per seat (own and rivals'), and for every seat alike."""
    from engine.teotihuacan.expansion_data import EXP
    from engine.teotihuacan.modules import MODULES

    # a seat's priest tile: a player's index into EXP.priests, Teotibot's into EXP.bot_priests
    priests = max(len(EXP.priests), len(EXP.bot_priests))
    own = [
        "orange",
        "orange_t",
        *(f"ability_{i}" for i in range(len(EXP.abilities))),
        *(f"priest_{i}" for i in range(1, priests + 1)),
    ]
    shared = [
        *(f"module_{name}" for name in MODULES),
        *(f"season_{number}" for number in sorted(EXP.seasons)),
    ]
    return own, shared


def _module_rows(state: Any, time: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The modules' own columns of every seat, and the shared ones (one row), from public fields."""
    from engine.teotihuacan.expansion_data import EXP
    from engine.teotihuacan.modules import MODULES
    from engine.teotihuacan.observation import PublicView

    public = PublicView(state)
    own_names, shared_names = _module_names()
    n, nt = public["n"], public["nt"]
    abilities = len(EXP.abilities)
    own = np.zeros((n, len(own_names)))
    if nt > 3:  # M2's orange temple: the fourth of each seat's temple steps
        own[:, 0] = public["temple"][3::nt]
        own[:, 1] = own[:, 0] * time
    for seat in range(n):
        bits = public["ability"][seat]
        own[seat, 2 : 2 + abilities] = [bits >> i & 1 for i in range(abilities)]
        tile = public["priest"][seat]
        if tile:
            own[seat, 1 + abilities + tile] = 1.0
    shared = np.zeros(len(shared_names))
    mods = public["mods"]
    shared[: len(MODULES)] = [mods >> i & 1 for i in range(len(MODULES))]
    if public["season"]:
        shared[len(MODULES) + sorted(EXP.seasons).index(public["season"])] = 1.0
    return own, shared


# per game: state -> (points banked per seat, feature rows, the linear forecast per seat, the
# automaton's seat or -1); each row's last column is free (the tables' constant): the game's own use
_VIEWS: dict[str, Callable[[Any], tuple[list[float], list[list[float]], np.ndarray, int]]] = {
    "teotihuacan": _teotihuacan,
    "zapotec": _zapotec,
}


def names(kind: str) -> list[str]:
    """The column names of ``seat_features``'s rows of ``kind`` (a game, or ``KINDS``)."""
    shared: list[str] = []
    if game_of(kind) == "teotihuacan":
        from . import teotihuacan_eval

        own = list(teotihuacan_eval.FEATURES[:-1])
        if kind == MODULES_KIND:
            more, shared = _module_names()
            own += more
    else:
        from . import zapotec_eval

        own = [*zapotec_eval.FEATURES[:-1], "income_lines"]
    return [*own, *(f"rival_{name}" for name in own), *CONTEXT, *shared]


def seat_features(kind: str, state: Any) -> tuple[np.ndarray, np.ndarray]:
    """The points every seat has banked (shape ``(seats,)``) and one feature row per seat
    (``(seats, len(names(kind)))``) of ``kind`` (a game, or ``KINDS``), from the public part of
    ``state`` only."""
    game = game_of(kind)
    banked, rows, linear, bot = _VIEWS[game](state)
    full = np.asarray(rows, dtype=float)
    own = full if game == "zapotec" else full[:, :-1]  # Teotihuacan's last column: the constant
    shared = None
    if kind == MODULES_KIND:
        more, shared = _module_rows(state, own[:, 0])  # (column 0: the share of the game left)
        own = np.hstack((own, more))
    seats, width = own.shape
    points = np.asarray(banked, dtype=float)
    out = np.empty((seats, 2 * width + len(CONTEXT) + (0 if shared is None else len(shared))))
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
    if shared is not None:
        out[:, 2 * width + len(CONTEXT) :] = shared
    return points, out

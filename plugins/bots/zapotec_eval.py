"""A Zapotec position evaluator: each seat's final score if the game ended now, plus a fitted
estimate of what its holdings should still bring in the turns left.

"If it ended now" is the engine's own end scoring (engine.zapotec.scoring.end_scoring, which
end_game adds up), read without a clone or a log: the Sacrifice-track awards, the Ritual cards as they
would score, the Pyramids (matching Houses per piece, the completion bonus), Cocijobot's own
scoring in solo. Most of a Zapotec score comes from there, so reading it exactly is what lets
search see a Pyramid or a Ritual coming. On top, linear in the named ``FEATURES``: resources,
Houses, grid tiles, Trade tiles and Sacrifice steps, several of them times the turns the seat
has left (a resource is worth its use early and its leftover value at the end), pieces waiting in
unfinished Pyramids. The weights were fitted by ``bench/fit_eval.py --game zapotec`` (ridge least
squares of final score - "if it ended now" on positions of seeded games; its docstring says how
to run it again): one table for a player's seat (``PLAYER``), one for Cocijobot's
(``COCIJOBOT``). The first, hand-weighted version is kept as ``evaluate_v1`` (docs/bots.md).

Everything read is public (docs/zapotec.md), so any seat's observation gives the same value:
``evaluate_observation`` evaluates the state ``from_observation`` rebuilds.
"""

from __future__ import annotations

from random import Random

from engine.zapotec import GAME
from engine.zapotec.core import ZapotecCore
from engine.zapotec.data import RESOURCES as RESOURCE_NAMES
from engine.zapotec.rules import house_count, pyramid_complete
from engine.zapotec.scoring import COCIJOBOT as BOT_SEAT
from engine.zapotec.scoring import end_scoring

BASIC = tuple(RESOURCE_NAMES.index(name) for name in ("wood", "brick", "stone"))
CORN, GOLD, PRIEST = (RESOURCE_NAMES.index(name) for name in ("corn", "gold", "priest"))

# The features of one seat, in the order ``features`` returns them; "_t" = times the turns the
# seat has left (its turn this round counts until it ends).
FEATURES = (
    "turns",  # turns left: the VP a seat scores per turn on average
    "basic",  # wood, brick, stone
    "corn",
    "gold",
    "priest",
    "basic_t",
    "corn_t",
    "gold_t",
    "priest_t",
    "turn_vp",  # what this round's turn scoring will pay with the Houses now, if still to come
    "house_rounds",  # Houses (the Palace counts two) times the rounds after this one
    "open_pieces",  # pieces in unfinished Pyramids, waiting for the completion bonus
    "sacrifice",  # Sacrifice steps
    "sacrifice_t",
    "trade_tiles",
    "trade_tiles_t",
    "grid_t",  # building tiles on the grid (income) times turns left
    "const",  # 1: a level (the same for every position of a seat, so it decides nothing)
)

# Weights in VP per unit of each feature, fitted by bench/fit_eval.py --game zapotec (which
# writes this block with --write; its docstring says how the data were played).
# BEGIN FITTED (bench/fit_eval.py --write replaces this block)
# Fitted on 2026-11-25 by bench/fit_eval.py --game zapotec: 2560 games
# (r1.npz, r2.npz), 98990 seat-positions, ridge 0.001.
# fmt: off
PLAYER = {
    "turns": 5.671,
    "basic": -0.480,
    "corn": 0.902,
    "gold": 0.607,
    "priest": 1.410,
    "basic_t": 0.280,
    "corn_t": -0.219,
    "gold_t": 0.516,
    "priest_t": 0.559,
    "turn_vp": 0.689,
    "house_rounds": 0.061,
    "open_pieces": 1.828,
    "sacrifice": 1.495,
    "sacrifice_t": -1.214,
    "trade_tiles": 0.494,
    "trade_tiles_t": 0.034,
    "grid_t": 0.847,
    "const": -7.484,
}
COCIJOBOT = {
    "turns": 11.865,
    "basic": -0.000,
    "corn": -0.000,
    "gold": 0.000,
    "priest": -0.000,
    "basic_t": 0.000,
    "corn_t": 0.000,
    "gold_t": 0.000,
    "priest_t": -0.000,
    "turn_vp": 1.342,
    "house_rounds": 0.931,
    "open_pieces": 1.528,
    "sacrifice": -0.014,
    "sacrifice_t": 0.759,
    "trade_tiles": 1.659,
    "trade_tiles_t": -1.127,
    "grid_t": 0.000,
    "const": -5.791,
}
# fmt: on
# END FITTED

# Set by hand over the fit: a House pays 2 VP at each later turn whose bonus card matches one of
# its three properties (a third of the cards, more for a seat that steers the Offer), and counts
# again in Pyramid and Ritual scoring. The fit gave ~0.06, what houses built by greedy and random
# play went with; inside ismcts that left Houses worth nearly nothing beyond this round, and 1.0
# played better.
PLAYER["house_rounds"] = 1.0

# Set by hand, not fitted (a term of its own, after the fitted features): income. A turn's income
# is the card's row or column of the resource grid, 1 + 2 per building tile on it, so tiles lined
# up pay more than tiles spread out, which ``grid_t`` (tiles times turns) cannot tell apart. Per
# income still to come, ``INCOME_LINE`` VP per tile on the best line of each basic resource
# (the mean of the three: which card comes is not known). 1.0: +4.8 VP a game for greedy against
# Cocijobot (0.6 and 1.4 within 0.3 VP of it; docs/bots.md, What each default is worth).
INCOME_LINE = 1.0

_PLAYER_W = tuple(PLAYER[name] for name in FEATURES)
_BOT_W = tuple(COCIJOBOT[name] for name in FEATURES)


def evaluate(state: ZapotecCore) -> list[float]:
    """Estimated final score of every seat (Cocijobot's included), from what every seat sees."""
    if state.final is not None:
        return [float(state.score[s]) for s in range(state.seats)]
    bot = BOT_SEAT if state.solo else -1
    values = []
    for seat, (now, row) in enumerate(zip(if_ended_now(state), features(state), strict=True)):
        if seat == bot:
            values.append(now + sum(w * f for w, f in zip(_BOT_W, row, strict=True)))
        else:
            fitted = sum(w * f for w, f in zip(_PLAYER_W, row, strict=True))
            lines = INCOME_LINE * best_lines(state, seat) * incomes_left(state, seat)
            values.append(now + fitted + lines)
    return values


def best_lines(state: ZapotecCore, seat: int) -> float:
    """The building tiles on the best line (row or column) of each basic resource's income, the
    mean over the three: what a turn's income pays beyond its header icon, halved."""
    d = state.data
    grid = state.grid[seat]
    total = 0
    for resource in BASIC:
        row, column = d.grid_rows.index(resource), d.grid_columns.index(resource)
        in_row = sum(1 for c in range(3) if grid[row * 3 + c] >= 0)
        in_column = sum(1 for r in range(3) if grid[r * 3 + column] >= 0)
        total += max(in_row, in_column)
    return total / len(BASIC)


def incomes_left(state: ZapotecCore, seat: int) -> int:
    """The incomes ``seat`` still collects: one a round, this round's until its income step is done."""
    later = state.data.rounds - state.round
    if state.step == "pick" or seat not in state.order:
        return later + 1
    position = state.order.index(seat)
    if position > state.turn_pos or (position == state.turn_pos and state.step == "income"):
        return later + 1
    return later


def evaluate_observation(observation: dict) -> list[float]:
    """``evaluate`` from an observation (any seat's: only what every seat sees is read)."""
    return evaluate(GAME.from_observation(observation, Random(0)))


def end_points(state: ZapotecCore) -> list[int]:
    """The VP each seat's end scoring would add if the game ended now (what end_game adds)."""
    return [sum(parts.values()) for parts in end_scoring(state)]


def if_ended_now(state: ZapotecCore) -> list[int]:
    """Each seat's final score if the game ended now: the part ``features`` does not forecast."""
    return [score + added for score, added in zip(state.score, end_points(state), strict=True)]


def turn_to_score(state: ZapotecCore, seat: int) -> bool:
    """Whether ``seat``'s turn this round is still to score (it scores at the turn's end)."""
    if state.step == "pick" or seat not in state.order:
        return True
    position = state.order.index(seat)
    if position == state.turn_pos:
        return state.step != "draw"  # the draw comes after the turn's scoring
    return position > state.turn_pos


def open_pieces(state: ZapotecCore) -> list[int]:
    """Per seat, its pieces in Pyramids not yet complete."""
    counts = [0] * state.seats
    for pyramid, pieces in enumerate(state.pyr_pieces):
        if not pyramid_complete(state, pyramid):
            for piece in pieces:
                counts[piece // 3] += 1
    return counts


def features(state: ZapotecCore) -> list[list[float]]:
    """One row of ``FEATURES`` per seat (public parts of the state only)."""
    d = state.data
    extra_palace = d.palace_houses - 1
    later = d.rounds - state.round
    bonus_prop = d.action_cards[state.bonus[-1]].prop
    waiting = open_pieces(state)
    rows = []
    for seat in range(state.seats):
        to_score = turn_to_score(state, seat)
        turns = later + to_score
        turn_vp = d.turn_vp_per_house * house_count(state, seat, bonus_prop) if to_score else 0
        res = state.res[seat]
        basic = sum(res[i] for i in BASIC)
        corn, gold, priest = res[CORN], res[GOLD], res[PRIEST]
        houses = len(state.houses[seat]) + (extra_palace if state.palace[seat] >= 0 else 0)
        sac = state.sac[seat]
        tiles = len(state.tiles_owned[seat])
        grid = sum(1 for tile in state.grid[seat] if tile >= 0)
        rows.append(
            [
                turns,
                basic,
                corn,
                gold,
                priest,
                basic * turns,
                corn * turns,
                gold * turns,
                priest * turns,
                turn_vp,
                houses * later,
                waiting[seat],
                sac,
                sac * turns,
                tiles,
                tiles * turns,
                grid * turns,
                1.0,
            ]
        )
    return rows


# ---- the first, hand-weighted version (kept to compare with) ---------------------------------
V1_WEIGHTS = {
    "basic": 0.6,  # wood, brick, stone: half of a building
    "corn": 0.6,
    "gold": 1.2,
    "priest": 1.5,
    "house_round": 1.0,  # 2 VP per matching House when the bonus card fits it, about half the time
    "open_piece": 2.5,  # a piece in an unfinished Pyramid: half the 5-VP completion bonus
    "sacrifice_step": 0.5,
}
_V1_BY_RESOURCE = {
    "wood": "basic",
    "brick": "basic",
    "stone": "basic",
    "corn": "corn",
    "gold": "gold",
    "priest": "priest",
}
_V1_RESOURCES = tuple(V1_WEIGHTS[_V1_BY_RESOURCE[name]] for name in RESOURCE_NAMES)


def evaluate_v1(state: ZapotecCore) -> list[float]:
    """The first evaluator: the end scoring now plus hand-weighted holdings (not used by the bots)."""
    if state.final is not None:
        return [float(state.score[s]) for s in range(state.seats)]
    rounds_left = max(0, state.data.rounds - state.round)
    waiting = open_pieces(state)
    return [
        now
        + sum(w * n for w, n in zip(_V1_RESOURCES, state.res[s], strict=True))
        + V1_WEIGHTS["house_round"] * rounds_left * len(state.houses[s])
        + V1_WEIGHTS["open_piece"] * waiting[s]
        + V1_WEIGHTS["sacrifice_step"] * state.sac[s]
        for s, now in enumerate(if_ended_now(state))
    ]

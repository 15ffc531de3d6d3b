"""M3 Seasons of Progress: 8 Season tiles, one active per Season, and how Teotibot treats them.

The set-up tile is active up to and including the first Eclipse's scoring; after each
non-final Eclipse the active tile is set aside (``season_used``) and the next one of the
face-down stack (``season_deck``, order hidden) becomes active. Numbers and effects:
``data/expansion.toml`` [season_tiles]; readings in docs/teotihuacan.md.
"""

from __future__ import annotations

from random import Random

from .. import modules
from ..core import TeoCore
from ..data import TEMPLES
from ..expansion_data import EXP
from ..flow import Frame, Payload, push
from ..hooks import Auto, Automaton, Choice, Part, adjuster, each, listener, renderer
from ..rules import effects

M = "seasons"
NUMBER = EXP.season_by_id  # id -> tile number
TRIGGERS = tuple(
    TEMPLES.index(t) if t in TEMPLES else len(TEMPLES) for t in EXP.season5_triggers
)  # orange = 3
BONUS = tuple(TEMPLES.index(t) for t in EXP.season5_bonus)
# Numbers printed in the Season effects (found, not assumed): see [season_tiles] in the TOML.
SEASON5_COST = 2
AVENUE_VP = 2
PYRAMID_STEP_VP = (5, 4, 3)


def affects(st: TeoCore, seat: int, tile_id: str) -> bool:
    """Whether the active tile is ``tile_id`` and it applies to ``seat`` (Teotibot ignores
    the tiles the solo rules call 'not affected')."""
    if st.season != NUMBER[tile_id]:
        return False
    return seat != st.bot or EXP.seasons[st.season].teotibot != "not_affected"


def season_text(number: int) -> str:
    """'Season tile #2: Each step advanced on the Avenue of the Dead immediately scores 2 VP'."""
    tile = EXP.seasons[number]
    return f"Season tile #{number}: {tile.effect}"


# ---- set-up and the change after each Eclipse ---------------------------------------------------
def _setup(st: TeoCore, rng: Random) -> None:
    deck = sorted(EXP.seasons)
    rng.shuffle(deck)
    st.season = deck.pop()
    st.season_deck = deck
    st.season_used = []
    st.note(-1, f"the first Season: {season_text(st.season)}")


def _next_season(st: TeoCore) -> None:
    st.season_used.append(st.season)
    st.season = st.season_deck.pop()
    modules.refresh(st)  # the new tile's hooks
    st.note(-1, f"a new Season: {season_text(st.season)}")


def _render(st: TeoCore) -> list[str]:
    used = ", ".join(f"#{n}" for n in st.season_used) or "none"
    return [
        f"Season: {season_text(st.season)}",
        f"  Season tiles face down {len(st.season_deck)}; replaced so far: {used}",
    ]


# ---- #1 cheap salary, #6 Pyramid track 5/4/3 ------------------------------------------------------
def _salary(st: TeoCore, seat: int, due: int) -> int:
    if not affects(st, seat, "cheap_salary"):
        return due
    workers = [w for w in range(seat * 4, seat * 4 + 4) if st.wb[w]]
    return len(workers) + sum(1 for w in workers if st.wp[w] >= 5)


def _pyramid_steps(st: TeoCore, seat: int, vp: int) -> int:
    if not affects(st, seat, "pyramid_track_5_4_3"):
        return vp
    return PYRAMID_STEP_VP[min(st.eclipses, 2)]


# ---- #2 Avenue steps score 2 VP ---------------------------------------------------------------------
def _avenue(st: TeoCore, seat: int) -> list[tuple]:
    if affects(st, seat, "avenue_step_vp"):
        st.add_vp(seat, AVENUE_VP, "season_tiles")
    return []


# ---- #4 own colour not counted, #7 moves of 2-4 -------------------------------------------------------
def _own_others(st: TeoCore, seat: int, board: int, exclude: tuple) -> bool:
    wb, ws = st.wb, st.ws
    return any(wb[w] == board and ws[w] < 0 and w not in exclude for w in range(seat * 4, seat * 4 + 4))


def _main_cost(st: TeoCore, seat: int, cost: int, board: int, exclude: tuple) -> int:
    if affects(st, seat, "ignore_own_colour") and _own_others(st, seat, board, exclude):
        return cost - 1
    return cost


def _collect(st: TeoCore, seat: int, amount: int, board: int, exclude: tuple) -> int:
    if affects(st, seat, "ignore_own_colour") and _own_others(st, seat, board, exclude):
        return amount - 1
    return amount


def _move(st: TeoCore, seat: int, moves: tuple) -> tuple:
    # every distance one further: 1-3 becomes 2-4 (and a priest's 1-4 becomes 2-5)
    if not affects(st, seat, "move_2_to_4"):
        return moves
    return tuple(d + 1 for d in moves)


# ---- #3 the Ascended worker placed on any board -------------------------------------------------------
def _ascend(st: TeoCore, seat: int, w: int) -> list[tuple]:
    return [("season-place", seat, w)] if affects(st, seat, "ascension_free_placement") else []


def _place_options(st: TeoCore, frame: Frame) -> list[Payload]:
    w = frame[2]
    if st.wb[w] != 1 or st.ws[w] >= 0:
        return []  # the worker has already left the Palace's general area
    return [(place,) for place in range(1, 9)]


def _place_describe(st: TeoCore, frame: Frame, opts: list[Payload]) -> tuple[str, list[str]]:
    labels = []
    for (place,) in opts:
        name = modules.board_name(st, st.place_board[place])
        labels.append("leave it at the Palace" if place == 1 else f"place it on {name}")
    return "Season tile #3: place your Ascended worker on an Action Board of your choice", labels


def _place(st: TeoCore, frame: Frame, p: Payload) -> None:
    st.wb[frame[2]] = st.place_board[p[0]]


# ---- #5 pay 2 cocoa to advance on a different temple ----------------------------------------------------
_PAID_STEP = [False]  # True while #5's own step is taken (synchronously, inside _season5_adv)


def _temple(st: TeoCore, seat: int, t: int) -> list[tuple]:
    if _PAID_STEP[0]:
        return []  # the paid step does not offer #5 again
    if affects(st, seat, "paid_second_temple") and t in TRIGGERS:
        return [("season5", seat, t)]  # cocoa checked when offered: the step's reward comes first
    return []


def _s5_options(st: TeoCore, frame: Frame) -> list[Payload]:
    seat, t = frame[1], frame[2]
    if st.cocoa[seat] < SEASON5_COST:
        return []
    temples = [x for x in BONUS if x != t and effects.can_advance(st, seat, x)]
    return [("no",), *(("pay", x) for x in temples)] if temples else []


def _s5_describe(st: TeoCore, frame: Frame, opts: list[Payload]) -> tuple[str, list[str]]:
    seat = frame[1]
    labels = []
    for p in opts:
        if p[0] == "no":
            labels.append("no")
        else:
            step = st.temple[seat * st.nt + p[1]]
            labels.append(f"pay {SEASON5_COST} cocoa: {TEMPLES[p[1]]} temple (step {step} -> {step + 1})")
    return "Season tile #5: pay 2 cocoa to advance on a different temple?", labels


def _season5(st: TeoCore, frame: Frame, p: Payload) -> None:
    if p[0] == "pay":
        st.cocoa[frame[1]] -= SEASON5_COST
        push(st, ("season5-adv", frame[1], p[1]))


def _season5_adv(st: TeoCore, frame: Frame) -> None:
    _PAID_STEP[0] = True
    try:
        effects.advance(st, frame[1], frame[2])
    finally:
        _PAID_STEP[0] = False


def _bot_season5(st: TeoCore, frame: Frame, opts: list[Payload]) -> Payload:
    """Teotibot always pays if able, on the temple its any-temple rule picks (the one it is
    highest on; ties blue, red, green), the temple just advanced left out."""
    seat = frame[1]
    pays = [p for p in opts if p[0] == "pay"]
    return max(pays, key=lambda p: (st.temple[seat * st.nt + p[1]], -p[1]))


# The rule text names tiles by number: the data's numbering must keep them where it says.
assert NUMBER["move_2_to_4"] == 7, "Ehecatl calls the 2-4 movement tile #07"
assert EXP.seasons[5].teotibot == "uses_if_able" and NUMBER["paid_second_temple"] == 5


# The parts this file adds to a rulebook (rulebook.py), in the order their hooks run.
PARTS: tuple[Part, ...] = (
    Automaton("season5", _bot_season5),
    each("setup", _setup),
    each("eclipse_end", _next_season),
    renderer(_render),
    adjuster("salary", _salary, season="cheap_salary"),
    adjuster("pyramid_step_vp", _pyramid_steps, season="pyramid_track_5_4_3"),
    listener("avenue", _avenue, season="avenue_step_vp"),
    adjuster("main_cost", _main_cost, season="ignore_own_colour"),
    adjuster("collect_cocoa", _collect, season="ignore_own_colour"),
    adjuster("move", _move, season="move_2_to_4"),
    listener("ascend", _ascend, season="ascension_free_placement"),
    Choice("season-place", _place_options, _place_describe, _place),
    listener("temple", _temple, season="paid_second_temple"),
    Choice("season5", _s5_options, _s5_describe, _season5),
    Auto("season5-adv", _season5_adv),
)

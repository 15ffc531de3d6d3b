"""M4 Architecture (7) and M5 Development (8): Action Boards that replace Decorations (7) and
Construction (8) and are resolved like Forest, Stone Quarry and Gold Deposits.

The row is the number of your workers there (the one just moved included; virtual workers
added; at most 3), the column the power of your lowest worker there; the cell gives plain
resources first, then a free unlock of one of your locked workers, then Decoration tiles
(Architecture) or Pyramid tiles (Development) up to its number (at least one must fit, else the
Main action is not possible); then power-ups as on the resource boards (1, 1, 2). The grids are in
data/expansion.toml (marked assumed). Effects naming Decorations / Construction apply here.
Teotibot's own Decorations and Construction actions are unchanged.
"""

from __future__ import annotations

from .. import modules
from ..core import TeoCore
from ..data import DATA
from ..expansion_data import EXP
from ..flow import Frame, Payload, push
from ..hooks import Auto, Board, Choice, MainRule, Part
from ..rules import actions
from ..rules.effects import gain, technology_vp

TILE_KEYS = ("decorations", "pyramid_tiles", "unlock")


def board_count(st: TeoCore, seat: int, board: int, extra: int) -> tuple[int, int]:
    """(row: workers incl. virtual ones, at most 3; column: your lowest power there).

    A virtual worker has the power of your lowest worker there, so it never moves the column."""
    own = st.unlocked_workers(seat, board)
    virtual = extra + (1 if board == 8 and st.has_tech(seat, 15) else 0)
    virtual = modules.adjust(st, "virtual_workers", seat, virtual, board)
    low = min((st.wp[w] for w in own), default=1)
    return min(3, len(own) + virtual), low


def cell(st: TeoCore, seat: int, board: int, extra: int) -> tuple[int, dict]:
    """(worker count, the grid cell) of ``seat``'s Main action on ``board``."""
    count, low = board_count(st, seat, board, extra)
    grid = EXP.architecture if board == 7 else EXP.development
    return count, grid[count - 1][low - 1]


def plain(reward: dict) -> dict:
    """The cell's resources (what ``effects.gain`` knows), without tiles and unlock."""
    return {k: v for k, v in reward.items() if k not in TILE_KEYS}


def _with_plain(st: TeoCore, seat: int, reward: dict, test) -> bool:
    """``test()`` as if the cell's plain resources were already gained (they come first)."""
    b = seat * 3
    add = (reward.get("wood", 0), reward.get("stone", 0), reward.get("gold", 0))
    for i in range(3):
        st.res[b + i] += add[i]
    try:
        return bool(test())
    finally:
        for i in range(3):
            st.res[b + i] -= add[i]


# ---- Architecture (7) ----------------------------------------------------------------------------------
def _arch_possible(st: TeoCore, seat: int, board: int, extra: int) -> bool:
    count, reward = cell(st, seat, board, extra)
    if not reward.get("decorations"):
        return True
    return _with_plain(st, seat, reward, lambda: actions.can_decorate(st, seat, count))


def _arch_start(st: TeoCore, seat: int, board: int, extra: int) -> None:
    count, reward = cell(st, seat, board, extra)
    todo = gain(st, seat, plain(reward))
    if reward.get("unlock"):
        todo.append(("free-unlock", seat))
    if reward.get("decorations"):
        todo.append(("arch-deco", seat, count, reward["decorations"], 0))
    todo.append(("arch-end", seat, count, int(st.has_tech(seat, 13))))
    push(st, *todo)


def _arch_deco_options(st: TeoCore, frame: Frame) -> list[Payload]:
    seat, count, remaining, placed = frame[1:5]
    opts: list[Payload] = list(actions.deco_options(st, seat, count)) if remaining else []
    if placed:
        opts.append(("done",))
    return opts


def _arch_deco_describe(st: TeoCore, frame: Frame, opts: list[Payload]) -> tuple[str, list[str]]:
    labels = ["place no more Decorations" if p[0] == "done" else actions.deco_label(st, *p) for p in opts]
    cost = DATA.deco_cost[frame[2]]
    return f"Architecture: pay {cost} gold per Decoration ({frame[3]} more allowed)", labels


def _arch_deco(st: TeoCore, frame: Frame, p: Payload) -> None:
    seat, count, remaining, placed = frame[1:5]
    if p[0] == "done":
        return
    # the offer is refilled only when the action ends (several tiles: none drawn in between)
    steps = actions.place_decoration(st, seat, count, p[0], p[1], refill=False)
    more = [("arch-deco", seat, count, remaining - 1, placed + 1)] if remaining > 1 else []
    push(st, *steps, *more)


def _arch_end(st: TeoCore, frame: Frame) -> None:
    seat, count, had13 = frame[1], frame[2], frame[3]
    if st.has_tech(seat, 9):
        technology_vp(st, seat, 4)  # "after your Decorations (7) Main action": once per action
    push(st, *actions.power_up_frames(st, seat, 7, count, bool(had13)), ("arch-refill", seat))


def _arch_refill(st: TeoCore, frame: Frame) -> None:
    if st.bot >= 0:
        actions.slide_offer(st.deco_offer, st.deco_deck)  # solo rule: slide left, refill the end
        return
    for slot in range(len(st.deco_offer)):
        if not st.deco_offer[slot] and st.deco_deck:
            st.deco_offer[slot] = st.deco_deck.pop()


# ---- Development (8) -----------------------------------------------------------------------------------
def _dev_possible(st: TeoCore, seat: int, board: int, extra: int) -> bool:
    count, reward = cell(st, seat, board, extra)
    if not reward.get("pyramid_tiles"):
        return True
    disc = 1 if st.has_tech(seat, 15) else 0
    return _with_plain(st, seat, reward, lambda: actions.build_tiles(st, seat, disc))


def _dev_start(st: TeoCore, seat: int, board: int, extra: int) -> None:
    count, reward = cell(st, seat, board, extra)
    todo = gain(st, seat, plain(reward))
    if reward.get("unlock"):
        todo.append(("free-unlock", seat))
    tiles = reward.get("pyramid_tiles", 0)
    disc = 1 if st.has_tech(seat, 15) else 0
    # the base Construction frames: tiles, then Technologies 11/17, power-ups (1/1/2), refill
    todo.append(("build", seat, tiles, 0, disc, count) if tiles else ("build-end", seat, count))
    push(st, *todo)


# ---- the free unlock of both boards --------------------------------------------------------------------
def _unlock_options(st: TeoCore, frame: Frame) -> list[Payload]:
    seat = frame[1]
    return [(w,) for w in range(seat * 4, seat * 4 + 4) if st.wb[w] and st.ws[w] >= 0]


def _unlock_describe(st: TeoCore, frame: Frame, opts: list[Payload]) -> tuple[str, list[str]]:
    return "Unlock one of your locked workers for free", [
        f"unlock your power-{st.wp[w]} worker on {modules.board_name(st, st.wb[w])}" for (w,) in opts
    ]


def _free_unlock(st: TeoCore, frame: Frame, p: Payload) -> None:
    w = p[0]
    st.space_occ[st.ws[w]] = -1
    st.ws[w] = -1


# The parts of M4 and M5 (rulebook.py), and the free unlock both boards' cells may give.
ARCHITECTURE: tuple[Part, ...] = (
    Board(7, MainRule("Architecture", _arch_possible, _arch_start)),
    Choice("arch-deco", _arch_deco_options, _arch_deco_describe, _arch_deco),
    Auto("arch-end", _arch_end),
    Auto("arch-refill", _arch_refill),
)
DEVELOPMENT: tuple[Part, ...] = (Board(8, MainRule("Development", _dev_possible, _dev_start)),)
EITHER: tuple[Part, ...] = (Choice("free-unlock", _unlock_options, _unlock_describe, _free_unlock),)

"""Helpers for Teotihuacan scenario tests: an empty table, placing workers, picking options."""

from __future__ import annotations

from engine.teotihuacan import GAME, modules
from engine.teotihuacan.core import KIND_IDS
from engine.teotihuacan.data import DATA
from engine.teotihuacan.flow import run
from engine.teotihuacan.state import TeoState

# First-game layout, clockwise from place 1: Palace, Stone Quarry, Alchemy, Forest,
# Construction, Decorations, Nobles, Gold Deposits.


def blank(players: int = 2, seed: int = 0, **options) -> TeoState:
    """A first-game table with every player stripped bare and no worker on any board."""
    st = GAME.setup(players, seed, {"first_game": True, **options})
    n = st.n
    st.cocoa = [0] * n
    st.res = [0] * (3 * n)
    st.vp = [0] * n
    st.avenue = [0] * n
    st.temple = [0] * (3 * n)
    st.tech_marks = [0] * 6
    st.wb = [0] * 16
    st.wp = [1] * 16
    st.ws = [-1] * 16
    st.space_occ = [-1] * 7
    st.events = []
    st.first = 0  # scenario tests: seat 0 holds Player Order token 1
    return st


def put(st: TeoState, w: int, board: int, power: int = 1, space: int = -1) -> int:
    """Place worker slot ``w`` on ``board`` (locked on worship ``space`` if given)."""
    st.wb[w] = board
    st.wp[w] = power
    st.ws[w] = space
    if space >= 0:
        st.space_occ[space] = w
    return w


def give(st: TeoState, seat: int, cocoa: int = 0, wood: int = 0, stone: int = 0, gold: int = 0) -> None:
    """Set a seat's cocoa and resources."""
    st.cocoa[seat] = cocoa
    st.res[seat * 3 : seat * 3 + 3] = [wood, stone, gold]


def own_tile(st: TeoState, seat: int, kind: str, index: int = 0) -> int:
    """Give ``seat`` an unused discovery tile of ``kind`` (taken out of wherever it lay)."""
    tid = KIND_IDS[kind][index]
    if tid in st.d_deck:
        st.d_deck.remove(tid)
    for stack in (*st.d_avenue, *st.d_temple):
        if tid in stack:
            stack.remove(tid)
    if tid in st.d_offer:
        st.d_offer[st.d_offer.index(tid)] = 0
    st.d_owner[tid] = seat
    st.d_used[tid] = 0
    return tid


def refresh(st: TeoState) -> None:
    """Recompute the hooks and the current decision after a test changed the state by hand."""
    modules.refresh(st)
    st.opts = None
    st.dec = None
    run(st)


def start_turn(st: TeoState, seat: int) -> None:
    """Make it ``seat``'s turn now."""
    st.stack = [("turn", seat)]
    st.dec = None
    run(st)


def acts(st: TeoState) -> list[list]:
    """The 'act' payloads of the current decision."""
    seat = st.to_act()[0]
    return [o["act"] for o in st.decision(seat).options]


def choose(st: TeoState, *prefix) -> None:
    """Pick the only option whose payload starts with ``prefix``."""
    seat = st.to_act()[0]
    options = st.decision(seat).options
    hits = [i for i, o in enumerate(options) if o["act"][: len(prefix)] == list(prefix)]
    assert len(hits) == 1, f"{prefix} matches {len(hits)} of {[o['act'] for o in options]}"
    st.apply(seat, hits[0])


def kind(st: TeoState) -> str:
    """Kind of the decision now on top."""
    return st.stack[-1][0] if st.stack else ""


def arrive(st: TeoState, seat: int, w: int, board: int, power: int = 1) -> None:
    """Start ``seat``'s turn with worker ``w`` one place before ``board`` and move it there."""
    before = st.place_board[(st.board_place[board] - 2) % 8 + 1]
    put(st, w, before, power)
    start_turn(st, seat)
    choose(st, "move", w, 1)


def first_tech_pos(st: TeoState, number: int) -> int:
    """Alchemy position of Technology ``number`` (the first game shows 01 03 05 / 09 15 17)."""
    return st.tech.index(number)


def set_tech(st: TeoState, seat: int, number: int) -> None:
    """Give ``seat`` a marker on Technology ``number``, placing that tile if absent."""
    if number not in st.tech:
        st.tech[5] = number
        st.tech_marks[5] = 0
    st.tech_marks[st.tech.index(number)] |= 1 << seat


BOARD_NAMES = DATA.board_names

"""A player's turn: move a worker (or unlock), choose the action, use tiles, end the turn."""

from __future__ import annotations

from .. import modules
from ..core import TeoCore
from ..data import DATA
from ..flow import Frame, Payload, push
from ..hooks import Choice, Part
from . import actions, worship
from .effects import instant_tiles, tile_name, use_tile

BOARD = DATA.board_names
MOVES = (1, 2, 3)  # a normal move: 1-3 boards clockwise (a module may change it)


def unlock_price(st: TeoCore, seat: int) -> int:
    """Cocoa to unlock all your workers (3; a priest may change it; -1: never allowed)."""
    if not st.mods:
        return DATA.unlock_cost
    return modules.adjust(st, "unlock_cost", seat, DATA.unlock_cost)


def _can_pay_unlock(st: TeoCore, seat: int) -> bool:
    price = unlock_price(st, seat)
    return price >= 0 and st.cocoa[seat] >= price


def _locked(st: TeoCore, seat: int) -> bool:
    """Whether ``seat`` has a locked worker in play (on a Worship space)."""
    wb, ws = st.wb, st.ws
    for w in range(seat * 4, seat * 4 + 4):
        if wb[w] and ws[w] >= 0:
            return True
    return False


def unlock_all(st: TeoCore, seat: int) -> None:
    """Slide every locked worker of ``seat`` to its board's general area."""
    for w in range(seat * 4, seat * 4 + 4):
        s = st.ws[w]
        if s >= 0:
            st.ws[w] = -1
            st.space_occ[s] = -1


def distinct_workers(st: TeoCore, seat: int) -> list[int]:
    """Unlocked workers in play, one per (board, power): moving either is the same move."""
    seen = set()
    out = []
    for w in st.unlocked_workers(seat):
        key = (st.wb[w], st.wp[w])
        if key not in seen:
            seen.add(key)
            out.append(w)
    return out


def destination(st: TeoCore, board: int, distance: int) -> tuple[int, bool]:
    """The board ``distance`` places clockwise of ``board``, and whether the move reaches or
    passes the Palace (place 1)."""
    p = st.board_place[board] - 1 + distance
    return st.place_board[p % 8 + 1], p >= 8


def move(st: TeoCore, seat: int, w: int, distance: int) -> None:
    """Move worker ``w``; Technology 01 pays 1 cocoa for reaching or passing the Palace."""
    dest, passes = destination(st, st.wb[w], distance)
    st.wb[w] = dest
    if passes and st.has_tech(seat, 1):
        st.cocoa[seat] += 1


def worker_text(st: TeoCore, w: int) -> str:
    """'worker 3 on Forest'."""
    where = modules.board_name(st, st.wb[w])
    lock = ", locked" if st.ws[w] >= 0 else ""
    return f"power-{st.wp[w]} worker on {where}{lock}"


# ---- the turn decision ---------------------------------------------------------------------------
def _turn_options(st: TeoCore, frame: Frame) -> list[Payload]:
    seat = frame[1]
    moves = modules.adjust(st, "move", seat, MOVES) if st.mods else MOVES
    opts: list[Payload] = [("move", w, d) for w in distinct_workers(st, seat) for d in moves]
    if opts:
        tid = st.holds(seat, "move_anywhere")
        if tid:
            opts.append(("anywhere", tid))
    if _locked(st, seat):
        if _can_pay_unlock(st, seat):
            opts.append(("unlock-pay",))
        opts.append(("unlock-free",))
    opts.extend(("use", tid) for tid in instant_tiles(st, seat))
    if st.mods:  # a module's own ways to take the turn: ("mod", name, ...), see hooks.TurnOption
        opts = modules.adjust(st, "turn_options", seat, opts)
    return opts


def _turn_label(st: TeoCore, seat: int, p: Payload) -> str:
    kind = p[0]
    if kind == "move":
        dest, _ = destination(st, st.wb[p[1]], p[2])
        return f"move {worker_text(st, p[1])} {p[2]} board(s) to {modules.board_name(st, dest)}"
    if kind == "anywhere":
        return "use the move-anywhere tile to move a worker any distance"
    if kind == "unlock-pay":
        return f"pay {unlock_price(st, seat)} cocoa to unlock all your workers (then take your turn)"
    if kind == "mod":
        return st.rules.turn[p[1]].label(st, p)
    if kind == "unlock-free":
        return "unlock all your workers for free (this is your whole turn)"
    return f"use discovery tile: {tile_name(p[1])}"


def _turn_describe(st: TeoCore, frame: Frame, opts: list[Payload]) -> tuple[str, list[str]]:
    return f"Seat {frame[1]}: your turn", [_turn_label(st, frame[1], p) for p in opts]


def _turn(st: TeoCore, frame: Frame, p: Payload) -> None:
    seat = frame[1]
    kind = p[0]
    if kind == "move":
        origin = st.wb[p[1]]
        move(st, seat, p[1], p[2])
        after_move(st, seat, p[1], origin)
    elif kind == "anywhere":
        push(st, ("anywhere-w", seat, p[1]))
    elif kind == "unlock-pay":
        st.cocoa[seat] -= unlock_price(st, seat)
        unlock_all(st, seat)
        push(st, ("turn", seat))
    elif kind == "mod":
        st.rules.turn[p[1]].resolve(st, seat, p)
    elif kind == "unlock-free":
        unlock_all(st, seat)
        push(st, ("end-turn", seat))
    else:
        push(st, ("turn", seat))
        use_tile(st, seat, p[1])


def after_move(st: TeoCore, seat: int, w: int, origin: int) -> None:
    """Offer the double-move tile if it applies, then the action on the destination."""
    others = [x for x in st.unlocked_workers(seat, origin) if x != w]
    tid = st.holds(seat, "double_move")
    first = ("double", seat, w, origin, tid) if tid and others else ("action", seat, w, -1)
    push(st, first, ("end-options", seat), ("end-turn", seat))
    later = modules.fire(st, "moved", seat, w) if st.mods else ()
    if later:
        push(st, *later)


# ---- move-anywhere and double-move tiles ----------------------------------------------------------
def _anywhere_w_options(st: TeoCore, frame: Frame) -> list[Payload]:
    return [(w,) for w in distinct_workers(st, frame[1])]


def _anywhere_w_describe(st: TeoCore, frame: Frame, opts: list[Payload]) -> tuple[str, list[str]]:
    return "Move-anywhere tile: which worker?", [worker_text(st, w) for (w,) in opts]


def _anywhere_w(st: TeoCore, frame: Frame, p: Payload) -> None:
    push(st, ("anywhere-d", frame[1], frame[2], p[0]))


def _anywhere_d_options(st: TeoCore, frame: Frame) -> list[Payload]:
    return [(d,) for d in range(1, 9)]


def _anywhere_d_describe(st: TeoCore, frame: Frame, opts: list[Payload]) -> tuple[str, list[str]]:
    w = frame[3]
    return "Move-anywhere tile: how far clockwise?", [
        f"{d} board(s) to {modules.board_name(st, destination(st, st.wb[w], d)[0])}" for (d,) in opts
    ]


def _anywhere_d(st: TeoCore, frame: Frame, p: Payload) -> None:
    seat, tid, w = frame[1], frame[2], frame[3]
    st.d_used[tid] = 1
    origin = st.wb[w]
    move(st, seat, w, p[0])
    after_move(st, seat, w, origin)


def _double_options(st: TeoCore, frame: Frame) -> list[Payload]:
    seat, w, origin = frame[1], frame[2], frame[3]
    seen = set()
    opts: list[Payload] = [("no",)]
    for x in st.unlocked_workers(seat, origin):
        if x != w and st.wp[x] not in seen:
            seen.add(st.wp[x])
            opts.append(("w", x))
    return opts


def _double_describe(st: TeoCore, frame: Frame, opts: list[Payload]) -> tuple[str, list[str]]:
    dest = modules.board_name(st, st.wb[frame[2]])
    return "Double-move tile: move a second worker along?", [
        "no" if p[0] == "no" else f"also move the power-{st.wp[p[1]]} worker to {dest}" for p in opts
    ]


def _double(st: TeoCore, frame: Frame, p: Payload) -> None:
    seat, w, origin, tid = frame[1], frame[2], frame[3], frame[4]
    if p[0] == "no":
        push(st, ("action", seat, w, -1))
        return
    st.d_used[tid] = 1
    w2 = p[1]
    st.wb[w2] = st.wb[w]
    dest_place = st.board_place[st.wb[w]]
    if dest_place <= st.board_place[origin] and st.has_tech(seat, 1):
        st.cocoa[seat] += 1  # the second worker also reaches or passes the Palace
    push(st, ("action", seat, w, w2))


# ---- the action on the destination board -----------------------------------------------------------
def main_cost(st: TeoCore, seat: int, board: int, w: int, w2: int) -> int:
    """Cocoa for the Main action: one per other colour on the board (a module may change it)."""
    cost = st.colours_on(board, (w, w2))
    return modules.adjust(st, "main_cost", seat, cost, board, (w, w2)) if st.mods else cost


def cocoa_gain(st: TeoCore, seat: int, board: int, w: int, w2: int) -> int:
    """Cocoa from Collect Cocoa: one plus one per other colour (a module may change it)."""
    amount = st.colours_on(board, (w, w2)) + 1
    return modules.adjust(st, "collect_cocoa", seat, amount, board, (w, w2)) if st.mods else amount


def _action_options(st: TeoCore, frame: Frame) -> list[Payload]:
    seat, w, w2 = frame[1], frame[2], frame[3]
    board = st.wb[w]
    opts: list[Payload] = [("cocoa",)]
    free = st.holds(seat, "free_payment")
    worship_ok = None  # asked only on a board with a Worship space (a priest may forbid it)
    for s, b in worship.spaces(st):
        if b != board:
            continue
        if worship_ok is None:
            worship_ok = not st.mods or modules.adjust(st, "may_worship", seat, True)
        if not worship_ok:
            continue
        occ = st.space_occ[s]
        if occ >= 0 and occ >> 2 == seat:
            continue  # never unlock your own worker this way
        # an occupied space: its worker is unlocked for a fee (a module may change it)
        if occ < 0 or free or st.cocoa[seat] >= (worship.worship_fee(st, seat, 1, 0) if st.mods else 1):
            opts.append(("worship", s))
    if board != 1:
        cost = main_cost(st, seat, board, w, w2)
        extras = st.holds_count(seat, "additional_worker") if board in (5, 6, 8) else 0
        base = actions.base_count(st, seat, board) if extras else 0  # (counted for the tiles only)
        wood = modules.adjust(st, "main_wood", seat, 0, board) if st.mods else 0
        if wood > st.res[seat * 3]:
            extras = -1  # a priest's extra wood cannot be paid: no Main action
        for extra in range(extras + 1):
            if extra and base + extra > 3:
                break  # a further additional-worker tile would change nothing (cap of 3)
            st.res[seat * 3] -= wood  # the extra wood is paid first
            possible = actions.main_possible(st, seat, board, extra)
            st.res[seat * 3] += wood
            if not possible:
                continue
            if st.cocoa[seat] >= cost:
                opts.append(("main", extra, 0))
            if free and cost:
                opts.append(("main", extra, 1))
    return opts


def _action_label(st: TeoCore, frame: Frame, p: Payload) -> str:
    kind = p[0]
    seat, w, w2 = frame[1], frame[2], frame[3]
    board = st.wb[w]
    if kind == "cocoa":
        return f"Collect Cocoa (+{cocoa_gain(st, seat, board, w, w2)} cocoa)"
    if kind == "worship":
        return worship.space_label(st, seat, p[1])
    cost = main_cost(st, seat, board, w, w2)
    pay = "using the free-payment tile" if p[2] else f"paying {cost} cocoa"
    wood = modules.adjust(st, "main_wood", seat, 0, board) if st.mods else 0
    pay += f" and {wood} wood" if wood else ""
    extra = f" with {p[1]} additional-worker tile(s)" if p[1] else ""
    return f"Main action of {modules.board_name(st, board)}{extra}, {pay}"


def _action_describe(st: TeoCore, frame: Frame, opts: list[Payload]) -> tuple[str, list[str]]:
    board = modules.board_name(st, st.wb[frame[2]])
    return f"Choose the action on {board}", [_action_label(st, frame, p) for p in opts]


def _action(st: TeoCore, frame: Frame, p: Payload) -> None:
    seat, w, w2 = frame[1], frame[2], frame[3]
    board = st.wb[w]
    kind = p[0]
    if kind == "cocoa":
        st.cocoa[seat] += cocoa_gain(st, seat, board, w, w2)
    elif kind == "worship":
        push(st, ("worship-mode", seat, w, p[1]))
    else:
        cost = main_cost(st, seat, board, w, w2)
        if p[2]:
            st.d_used[st.holds(seat, "free_payment")] = 1
        else:
            st.cocoa[seat] -= cost
        extra = p[1]
        for _ in range(extra):
            st.d_used[st.holds(seat, "additional_worker")] = 1
        if st.mods:
            st.res[seat * 3] -= modules.adjust(st, "main_wood", seat, 0, board)
        actions.start_main(st, seat, board, extra)


# ---- end of the turn ---------------------------------------------------------------------------------
def _end_options(st: TeoCore, frame: Frame) -> list[Payload]:
    seat = frame[1]
    opts: list[Payload] = [("end",)]
    opts.extend(("use", tid) for tid in instant_tiles(st, seat))
    if _locked(st, seat) and _can_pay_unlock(st, seat):
        opts.append(("unlock-pay",))
    return opts


def _end_describe(st: TeoCore, frame: Frame, opts: list[Payload]) -> tuple[str, list[str]]:
    labels = []
    for p in opts:
        if p[0] == "end":
            labels.append("end your turn")
        elif p[0] == "use":
            labels.append(f"use discovery tile: {tile_name(p[1])}")
        else:
            labels.append(f"pay {unlock_price(st, frame[1])} cocoa to unlock all your workers")
    return "Anything else before your turn ends?", labels


def _end(st: TeoCore, frame: Frame, p: Payload) -> None:
    seat = frame[1]
    if p[0] == "end":
        return
    push(st, ("end-options", seat))
    if p[0] == "use":
        use_tile(st, seat, p[1])
    else:
        st.cocoa[seat] -= unlock_price(st, seat)
        unlock_all(st, seat)


# The parts this file adds to a rulebook (rulebook.py), in the order their hooks run.
PARTS: tuple[Part, ...] = (
    Choice("turn", _turn_options, _turn_describe, _turn),
    Choice("anywhere-w", _anywhere_w_options, _anywhere_w_describe, _anywhere_w),
    Choice("anywhere-d", _anywhere_d_options, _anywhere_d_describe, _anywhere_d),
    Choice("double", _double_options, _double_describe, _double),
    Choice("action", _action_options, _action_describe, _action),
    Choice("end-options", _end_options, _end_describe, _end),
)

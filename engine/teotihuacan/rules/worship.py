"""The Worship action: spaces, the ability / discovery / both choice, and the 9 Royal tiles."""

from __future__ import annotations

from .. import modules, teotibot
from ..core import TeoCore
from ..data import DATA, MIXES, RESOURCES, SPACE_BOARD, TEMPLES
from ..expansion_data import NOBLES_SPACE, ORANGE, SPACE_BOARD_M2, TEMPLE_NAMES, WORSHIP_OFFER_M2
from ..flow import Frame, Payload, push
from ..hooks import Auto, Choice, Part
from .effects import INSTANT_KINDS, can_claim, can_pay, claim, claim_label, draw_discovery, tile_name

BOARD = DATA.board_names
SIDEBAR_TEMPLE = {b: (TEMPLES.index(t) if t != "any" else -1) for b, t in DATA.worship_temple.items()}
SPACES = tuple(enumerate(SPACE_BOARD))  # the base game's (space, board) pairs
# Lookups below use the tables with M2's Nobles (6) Worship space (expansion_data): base games
# have no space 7 / offer slot 5, so they never reach those entries.
SIDEBAR_TEMPLE[6] = ORANGE
assert len(SPACES) == NOBLES_SPACE


def spaces(st: TeoCore) -> tuple:
    """The (space, board) pairs of this game's Worship spaces (M2 adds the Nobles one)."""
    return modules.per_set(st, "worship_spaces", SPACES) if st.mods else SPACES


ROYAL_SIDE = ("left", "centre", "right")
ROYAL_TEXT = {t["number"]: t["effect"] for t in DATA.raw["royal_tiles"]}


def space_label(st: TeoCore, seat: int, s: int) -> str:
    """Label of a Worship space option (which space, what it does, the unlock cost)."""
    board = SPACE_BOARD_M2[s]
    if board == 1:
        what = f"Royal tile {st.royal[s]:02d} ({ROYAL_SIDE[s]}): {ROYAL_TEXT[st.royal[s]]}"
    else:
        t = SIDEBAR_TEMPLE[board]
        what = f"{modules.board_name(st, board)} temple sidebar ({'any' if t < 0 else TEMPLE_NAMES[t]} temple step)"
    occ = st.space_occ[s]
    unlock = f", paying 1 cocoa to unlock seat {occ // 4}'s worker" if occ >= 0 else ""
    return f"Worship on {what}{unlock}"


def worship_fee(st: TeoCore, seat: int, unlock: int, both: int) -> int:
    """Cocoa of a Worship: 1 to unlock a worker there, 1 for both options (a module may change it)."""
    if not st.mods:
        return unlock + both
    return modules.adjust(st, "worship_fee", seat, unlock + both, unlock, both)


def _mode_options(st: TeoCore, frame: Frame) -> list[Payload]:
    seat, _w, s = frame[1], frame[2], frame[3]
    board = SPACE_BOARD_M2[s]
    unlock = 1 if st.space_occ[s] >= 0 else 0
    tid = st.d_offer[WORSHIP_OFFER_M2[board]]
    free = st.holds(seat, "free_payment")
    modes = [("ability", worship_fee(st, seat, unlock, 0) if st.mods else unlock)]
    if tid and st.mods and not modules.adjust(st, "may_claim", seat, True, tid, "worship"):
        tid = 0  # a priest forbids claiming this tile: only the ability
    if tid:
        both = worship_fee(st, seat, unlock, 1) if st.mods else unlock + 1
        if board != 1:
            modes.append(("discovery", modes[0][1]))
        modes.append(("both", both))
        if DATA.discoveries[tid].kind in INSTANT_KINDS:
            # "both, in any order": claiming first matters only if the tile is flipped at once
            modes.append(("claim-first", both))
    opts = []
    cocoa = st.cocoa[seat]
    for mode, total in modes:
        for use_free in (0, 1):
            if use_free and (not free or not total):
                continue
            paid = 0 if use_free else total
            if paid > cocoa:
                continue
            if mode in ("discovery", "claim-first"):
                cost = DATA.discoveries[tid].cost
                if st.mods:
                    st.cocoa[seat] -= paid  # the tile is claimed after the Worship is paid
                    ok = can_claim(st, seat, tid, "worship")
                    st.cocoa[seat] += paid
                    if not ok:
                        continue
                elif not can_pay(st, seat, (cost[0] + paid, cost[1], cost[2], cost[3])):
                    continue
            opts.append((mode, use_free))
    return opts


def _mode_describe(st: TeoCore, frame: Frame, opts: list[Payload]) -> tuple[str, list[str]]:
    _seat, s = frame[1], frame[3]
    board = SPACE_BOARD_M2[s]
    tid = st.d_offer[WORSHIP_OFFER_M2[board]]
    unlock = 1 if st.space_occ[s] >= 0 else 0
    labels = []
    for mode, use_free in opts:
        total = unlock + (1 if mode in ("both", "claim-first") else 0)
        if st.mods:
            total = worship_fee(st, _seat, unlock, 1 if mode in ("both", "claim-first") else 0)
        pay = " (free-payment tile)" if use_free else (f" (pay {total} cocoa)" if total else "")
        if mode == "ability":
            text = "use the ability"
        elif mode == "discovery":
            text = claim_label(tid)
        elif mode == "claim-first":
            text = f"{claim_label(tid)} first (may flip it at once), then use the ability"
        else:
            text = f"use the ability and claim {tile_name(tid)}"
        labels.append(text + pay)
    return f"Worship on {modules.board_name(st, board)}: ability, discovery tile or both", labels


def _worship_mode(st: TeoCore, frame: Frame, p: Payload) -> None:
    seat, w, s = frame[1], frame[2], frame[3]
    mode, use_free = p
    board = SPACE_BOARD_M2[s]
    occ = st.space_occ[s]
    total = (1 if occ >= 0 else 0) + (1 if mode in ("both", "claim-first") else 0)
    if st.mods:
        total = worship_fee(st, seat, 1 if occ >= 0 else 0, 1 if mode in ("both", "claim-first") else 0)
    if use_free:
        st.d_used[st.holds(seat, "free_payment")] = 1
    else:
        st.cocoa[seat] -= total
    if occ >= 0 and occ >> 2 == st.bot:
        teotibot.relocate_unlocked(st, occ, s)  # solo: the bot's worker moves on, still locked
    elif occ >= 0:
        st.ws[occ] = -1
    st.ws[w] = s
    st.space_occ[s] = w
    todo: list[tuple] = []
    if mode in ("discovery", "claim-first"):
        take_offer(st, seat, board)
    if mode == "claim-first":
        todo.append(("use-tiles", seat))
    if mode != "discovery":
        todo.append(ability_frame(st, seat, s, st.wp[w]))
    if mode == "both":  # a tile the ability brought may be flipped before paying for this one
        todo.append(("use-tiles", seat))
        todo.append(("worship-claim", seat, board))
    push(st, *todo)


def ability_frame(st: TeoCore, seat: int, s: int, power: int) -> tuple:
    """The frame that resolves the ability of Worship space ``s`` for a worker of ``power``."""
    board = SPACE_BOARD_M2[s]
    if board == 1:
        return ("royal", seat, st.royal[s], power)
    t = SIDEBAR_TEMPLE[board]
    return ("any-temple", seat) if t < 0 else ("adv", seat, t)


def take_offer(st: TeoCore, seat: int, board: int) -> None:
    """Claim the face-up tile beside ``board``'s Worship space and refill it at once."""
    slot = WORSHIP_OFFER_M2[board]
    claim(st, seat, st.d_offer[slot])
    st.d_offer[slot] = draw_discovery(st)


def _claim_options(st: TeoCore, frame: Frame) -> list[Payload]:
    seat, board = frame[1], frame[2]
    tid = st.d_offer[WORSHIP_OFFER_M2[board]]
    if tid and can_claim(st, seat, tid, "worship"):
        return [("claim",), ("decline",)]
    return []


def _claim_describe(st: TeoCore, frame: Frame, opts: list[Payload]) -> tuple[str, list[str]]:
    tid = st.d_offer[WORSHIP_OFFER_M2[frame[2]]]
    return "Claim the Worship discovery tile?", [
        claim_label(tid) if p[0] == "claim" else "do not claim it" for p in opts
    ]


def _worship_claim(st: TeoCore, frame: Frame, p: Payload) -> None:
    if p[0] == "claim":
        take_offer(st, frame[1], frame[2])


# ---- Royal tiles ------------------------------------------------------------------------------------
def _royal(st: TeoCore, frame: Frame) -> None:
    seat, number, power = frame[1], frame[2], frame[3]
    if number == 1:
        st.cocoa[seat] += power + 1
    elif number == 4:
        st.add_vp(seat, 2 * min(st.tech_count(seat), power), "royal_tiles")
    elif number == 5:
        st.add_vp(seat, 2 * min(st.ptrack[seat], power), "royal_tiles")
    elif number == 9:
        st.add_vp(seat, min(st.avenue[seat], power + 1), "royal_tiles")
    elif number in (2, 6, 8):
        push(st, ("royal-buy", seat, number, power))
    elif number == 3:
        push(st, ("royal-sell", seat, power))
    elif number == 7:
        push(st, ("royal-trade", seat, power))


ROYAL_BUY = {2: (0, 1), 6: (2, 1)}  # resource indices gained per cocoa


def _buy_options(st: TeoCore, frame: Frame) -> list[Payload]:
    seat, number, power = frame[1], frame[2], frame[3]
    top = min(power - 1 if number == 8 else power, st.cocoa[seat])
    return [(k,) for k in range(top, -1, -1)]


def _buy_describe(st: TeoCore, frame: Frame, opts: list[Payload]) -> tuple[str, list[str]]:
    number = frame[2]
    if number == 8:
        what = "advance(s) on any temple"
    else:
        a, b = ROYAL_BUY[number]
        what = f"x ({RESOURCES[a]} + {RESOURCES[b]})"
    return f"Royal tile {number:02d}: how many times (1 cocoa each)?", [
        f"pay {k} cocoa: {k} {what}" for (k,) in opts
    ]


def _royal_buy(st: TeoCore, frame: Frame, p: Payload) -> None:
    seat, number = frame[1], frame[2]
    k = p[0]
    st.cocoa[seat] -= k
    if number == 8:
        push(st, *[("any-temple", seat)] * k)
    else:
        for r in ROYAL_BUY[number]:
            st.res[seat * 3 + r] += k


def _affordable_mixes(st: TeoCore, seat: int, total: int) -> list[tuple[int, int, int]]:
    b = seat * 3
    res = st.res
    return [m for m in MIXES[total] if m[0] <= res[b] and m[1] <= res[b + 1] and m[2] <= res[b + 2]]


def _sell_options(st: TeoCore, frame: Frame) -> list[Payload]:
    seat, power = frame[1], frame[2]
    held = sum(st.res[seat * 3 : seat * 3 + 3])
    return [(k,) for k in range(min(power, held), -1, -1)]


def _sell_describe(st: TeoCore, frame: Frame, opts: list[Payload]) -> tuple[str, list[str]]:
    return "Royal tile 03: how many resources to sell (2 cocoa each)?", [
        f"sell {k} resource(s) for {2 * k} cocoa" for (k,) in opts
    ]


def _royal_sell(st: TeoCore, frame: Frame, p: Payload) -> None:
    seat, k = frame[1], p[0]
    st.cocoa[seat] += 2 * k
    if k:
        push(st, ("pay-res", seat, k))


def _pay_res_options(st: TeoCore, frame: Frame) -> list[Payload]:
    return _affordable_mixes(st, frame[1], frame[2])


def _pay_res_describe(st: TeoCore, frame: Frame, opts: list[Payload]) -> tuple[str, list[str]]:
    return f"Which {frame[2]} resource(s) do you give up?", [
        "give " + ", ".join(f"{n} {RESOURCES[i]}" for i, n in enumerate(m) if n) for m in opts
    ]


def _pay_res(st: TeoCore, frame: Frame, mix: Payload) -> None:
    b = frame[1] * 3
    for i in range(3):
        st.res[b + i] -= mix[i]


def _trade_options(st: TeoCore, frame: Frame) -> list[Payload]:
    seat = frame[1]
    opts: list[Payload] = [("no",)]
    if st.cocoa[seat] >= 1:
        opts.extend(("pay", r) for r in range(3) if st.res[seat * 3 + r])
    return opts


def _trade_describe(st: TeoCore, frame: Frame, opts: list[Payload]) -> tuple[str, list[str]]:
    power = frame[2]
    return "Royal tile 07: pay 1 cocoa and 1 resource for resources?", [
        "do not trade" if p[0] == "no" else f"pay 1 cocoa + 1 {RESOURCES[p[1]]}, gain {power} resources"
        for p in opts
    ]


def _royal_trade(st: TeoCore, frame: Frame, p: Payload) -> None:
    if p[0] == "no":
        return
    seat = frame[1]
    st.cocoa[seat] -= 1
    st.res[seat * 3 + p[1]] -= 1
    push(st, ("any-res", seat, frame[2]))


# The parts this file adds to a rulebook (rulebook.py), in the order their hooks run.
PARTS: tuple[Part, ...] = (
    Choice("worship-mode", _mode_options, _mode_describe, _worship_mode),
    Choice("worship-claim", _claim_options, _claim_describe, _worship_claim),
    Auto("royal", _royal),
    Choice("royal-buy", _buy_options, _buy_describe, _royal_buy),
    Choice("royal-sell", _sell_options, _sell_describe, _royal_sell),
    Choice("pay-res", _pay_res_options, _pay_res_describe, _pay_res),
    Choice("royal-trade", _trade_options, _trade_describe, _royal_trade),
)

"""M2 Height of Development: the orange temple (a fourth temple, ``st.nt = 4``, index ``ORANGE``)
with its Special Ability steps (levels I/II/III), the "1-2" step, its Discovery tiles and Temple
Bonus tile; the new Nobles (6) board's Worship space (space 7, orange temple, a discovery tile in
offer slot 5); the eight Special Abilities (``st.ability[seat]``, bit i = ``EXP.abilities[i]``);
Teotibot's orange-temple rules.

The temple's steps are ``EXP.orange_table`` (data/expansion.toml, positions and rewards marked
assumed); the shared temple code (effects.advance) runs its minor, major, bonus and top steps
and hands the ability and "1-2" steps to this module. Readings: docs/teotihuacan.md.
"""

from __future__ import annotations

from random import Random

from .. import modules
from ..core import TeoCore
from ..data import DATA, RESOURCES
from ..expansion_data import EXP, NOBLES_SLOT, NOBLES_SPACE, ORANGE, TEMPLE_NAMES
from ..flow import Frame, Payload, push
from ..hooks import Choice, Part, adjuster, each, listener, renderer
from ..rules import turn, worship
from ..rules.effects import describe_gain, mask_sets, tile_name
from ..rules.worship import SPACES

M = "height"
MODULE_BIT = modules.BIT[M]
ROMAN = {1: "I", 2: "II", 3: "III"}
BIT = {a.id: 1 << i for i, a in enumerate(EXP.abilities)}


def has_ability(st: TeoCore, seat: int, aid: str) -> bool:
    """Whether ``seat`` holds Special Ability ``aid`` (the module in play)."""
    return bool(st.mods & MODULE_BIT and st.ability[seat] & BIT[aid])


def ability_text(i: int) -> str:
    a = EXP.abilities[i]
    return f"[{ROMAN[a.level]}] {a.effect}"


# ---- set-up ---------------------------------------------------------------------------------------------
def _setup(st: TeoCore, rng: Random) -> None:
    n, old = st.n, st.nt
    # every seat's worshipper starts on the bottom step of the orange temple too
    st.temple = [x for s in range(n) for x in (*st.temple[s * old : s * old + old], 0)]
    st.nt = old + 1
    if st.bot >= 0:  # "place one of Teotibot's worshippers on the Temple Bonus tile of the orange temple"
        st.temple[st.bot * st.nt + ORANGE] = EXP.orange_bonus
    st.bonus.append(rng.choice(sorted(set(DATA.bonus_tiles) - set(st.bonus))))
    st.d_temple.append([st.d_deck.pop() for _ in range(EXP.orange_discovery[n])])
    st.space_occ.append(-1)  # the Worship space of the new Nobles (6) board
    st.d_offer.append(st.d_deck.pop())  # and the discovery tile beside it
    assert len(st.space_occ) == NOBLES_SPACE + 1 and len(st.d_offer) == NOBLES_SLOT + 1


def _spaces(st: TeoCore, seat: int, spaces: tuple) -> tuple:
    return (*spaces, (NOBLES_SPACE, 6))


def _render(st: TeoCore) -> list[str]:
    steps = []
    for pos, (kind, reward) in enumerate(EXP.orange_table):
        labels = {"ability": f"ability {ROMAN.get(EXP.orange_levels.get(pos, 0), '')}", "move_back": "1-2"}
        label = labels.get(kind, kind) if kind else ""
        steps.append(f"{pos} {label}" + (f" {describe_gain(reward)}" if reward else ""))
    markers = ", ".join(f"seat {s} {st.temple[s * st.nt + ORANGE]}" for s in range(st.n))
    tiles = ", ".join(tile_name(t) for t in st.d_temple[-1]) or "-"
    occ = st.space_occ[NOBLES_SPACE]
    lines = [
        f"Orange temple (steps: {'; '.join(steps)}): {markers}",
        f"  step {EXP.orange_major} discovery tiles: {tiles}; Temple Bonus tile {st.bonus[ORANGE]}; "
        f"Nobles Worship space: {'-' if occ < 0 else f'seat {occ // 4} locked'}, "
        f"tile {tile_name(st.d_offer[NOBLES_SLOT]) if st.d_offer[NOBLES_SLOT] else '-'}",
    ]
    for s in range(st.n):
        held = [ability_text(i) for i in range(len(EXP.abilities)) if st.ability[s] >> i & 1]
        lines.append(f"  Special Abilities seat {s}: {'; '.join(held) or '-'}")
    return lines


# ---- the orange temple's own steps ------------------------------------------------------------------------
def _orange_step(st: TeoCore, seat: int, step: int) -> list[tuple]:
    kind = EXP.orange_table[step][0]
    if kind == "ability":
        return [("ability", seat, EXP.orange_levels[step])]
    return [("move-back", seat)]


def ability_options(st: TeoCore, seat: int, level: int) -> list[Payload]:
    """Abilities ``seat`` may take on a level-``level`` step: of that level exactly (never a
    lower one), none it holds already (other players' choices do not matter)."""
    return [(i,) for i, a in enumerate(EXP.abilities) if a.level == level and not st.ability[seat] >> i & 1]


def _ability_options(st: TeoCore, frame: Frame) -> list[Payload]:
    return ability_options(st, frame[1], frame[2])


def _ability_describe(st: TeoCore, frame: Frame, opts: list[Payload]) -> tuple[str, list[str]]:
    return f"Orange temple: choose a Special Ability of level {ROMAN[frame[2]]}", [
        f"gain {ability_text(i)}" for (i,) in opts
    ]


def _ability(st: TeoCore, frame: Frame, p: Payload) -> None:
    st.ability[frame[1]] |= 1 << p[0]
    modules.refresh(st)  # the ability's hooks run from now on


def _back_options(st: TeoCore, frame: Frame) -> list[Payload]:
    seat = frame[1]
    workers = turn.distinct_workers(st, seat)
    return [("no",), *(("w", w, d) for w in workers for d in EXP.move_back)] if workers else []


def back_destination(st: TeoCore, board: int, distance: int) -> int:
    """The board ``distance`` places counter-clockwise of ``board``."""
    return st.place_board[(st.board_place[board] - 1 - distance) % 8 + 1]


def back_reaches_palace(st: TeoCore, board: int, distance: int) -> bool:
    """Whether a move ``distance`` places counter-clockwise from ``board`` lands on or passes
    the Palace (place 1); leaving the Palace is neither."""
    place = st.board_place[board]
    return place > 1 and place - distance <= 1


def _back_describe(st: TeoCore, frame: Frame, opts: list[Payload]) -> tuple[str, list[str]]:
    labels = []
    for p in opts:
        if p[0] == "no":
            labels.append("move no worker")
        else:
            dest = modules.board_name(st, back_destination(st, st.wb[p[1]], p[2]))
            labels.append(f"move your {turn.worker_text(st, p[1])} {p[2]} board(s) back to {dest}")
    return "Orange temple 1-2: move one of your unlocked workers 1 or 2 boards backwards?", labels


def _move_back(st: TeoCore, frame: Frame, p: Payload) -> None:
    """A move (docs/teotihuacan.md, M2 reading 2): no action where it lands, but Technology 01's
    cocoa onto or past the Palace and the moves' hooks (Teotibot's Metzli)."""
    if p[0] != "w":
        return
    seat, w, distance = frame[1], p[1], p[2]
    origin = st.wb[w]
    st.wb[w] = back_destination(st, origin, distance)
    if back_reaches_palace(st, origin, distance) and st.has_tech(seat, 1):
        st.cocoa[seat] += 1
    push(st, *modules.fire(st, "moved", seat, w))


# ---- the eight Special Abilities ----------------------------------------------------------------------------
def _main_cost(st: TeoCore, seat: int, cost: int, board: int, exclude: tuple) -> int:
    if board in (2, 3, 4) and has_ability(st, seat, "resource_boards_cocoa_minus_1"):
        return max(0, cost - 1)
    return cost


def _worship_fee(st: TeoCore, seat: int, fee: int, unlock: int, both: int) -> int:
    # "choose both options at no cocoa cost": the fee for both, not the unlock
    return fee - both if has_ability(st, seat, "worship_both_free") else fee


def _virtual(st: TeoCore, seat: int, extra: int, board: int) -> int:
    return extra + 1 if board == 7 and has_ability(st, seat, "decorations_extra_worker") else extra


def _shortfall(st: TeoCore, seat: int, tid: int) -> list[int]:
    cost = DATA.discoveries[tid].cost
    return [max(0, cost[1 + r] - st.res[seat * 3 + r]) for r in range(3)]


def _can_pay(st: TeoCore, seat: int, ok: bool, tid: int) -> bool:
    if ok or not has_ability(st, seat, "discovery_plus_resource"):
        return ok
    # the resource gained with the tile "may be used to help pay the cost of the tile"
    return st.cocoa[seat] >= DATA.discoveries[tid].cost[0] and sum(_shortfall(st, seat, tid)) <= 1


def _claim(st: TeoCore, seat: int, tid: int) -> list[tuple]:
    if not has_ability(st, seat, "discovery_plus_resource"):
        return []
    short = _shortfall(st, seat, tid)
    if any(short):  # the only useful choice: the resource the tile still needs
        st.res[seat * 3 + short.index(1)] += 1
        st.note(seat, f"Special Ability: +1 {RESOURCES[short.index(1)]} to pay the discovery tile")
        return []
    return [("any-res", seat, 1)]


def _new_worker(st: TeoCore, seat: int, w: int) -> list[tuple]:
    if has_ability(st, seat, "new_worker_power_2"):
        st.wp[w] = 2
    return []


AVENUE_BONUS = 2


def _avenue(st: TeoCore, seat: int, position: int) -> int:
    return position + AVENUE_BONUS if has_ability(st, seat, "avenue_plus_2") else position


def _salary(st: TeoCore, seat: int, due: int) -> int:
    return 0 if has_ability(st, seat, "no_salary") else due


def set_vp(size: int) -> int:
    """VP of a mask set of ``size`` different masks (8, 9, 10 from the ability's text)."""
    return DATA.mask_set_vp[size] if size < len(DATA.mask_set_vp) else EXP.mask_set_extra[size]


def _masks(st: TeoCore, seat: int, vp: int) -> int:
    if not has_ability(st, seat, "mask_set_plus_1"):
        return vp
    sets = mask_sets(st, seat)
    if not sets:
        return vp  # no set, nothing to add a mask to
    return vp - set_vp(sets[0]) + set_vp(sets[0] + 1)  # the largest set scores the most


# ---- Teotibot -------------------------------------------------------------------------------------------------
def _bot_marker(st: TeoCore) -> None:
    """At the start of each Eclipse Teotibot marks the ability the solo rules name (levels ignored)."""
    if st.bot < 0:
        return
    aid = EXP.teotibot_markers.get(st.eclipses + 1)
    if aid:
        st.ability[st.bot] |= BIT[aid]
        modules.refresh(st)
        st.note(st.bot, f"Teotibot marks the Special Ability: {EXP.abilities[EXP.ability_index[aid]].effect}")


assert not EXP.teotibot_advances_on_orange and TEMPLE_NAMES[ORANGE] == "orange"
assert worship.SIDEBAR_TEMPLE[6] == ORANGE and len(SPACES) == NOBLES_SPACE


# The parts this file adds to a rulebook (rulebook.py), in the order their hooks run.
PARTS: tuple[Part, ...] = (
    each("setup", _setup),
    adjuster("worship_spaces", _spaces),
    renderer(_render),
    listener("orange_step", _orange_step),
    Choice("ability", _ability_options, _ability_describe, _ability),
    Choice("move-back", _back_options, _back_describe, _move_back),
    adjuster("main_cost", _main_cost, ability="resource_boards_cocoa_minus_1"),
    adjuster("worship_fee", _worship_fee, ability="worship_both_free"),
    adjuster("virtual_workers", _virtual, ability="decorations_extra_worker"),
    adjuster("can_pay_claim", _can_pay, ability="discovery_plus_resource"),
    listener("claim", _claim, ability="discovery_plus_resource"),
    listener("ascend", _new_worker, ability="new_worker_power_2"),
    adjuster("eclipse_avenue", _avenue, ability="avenue_plus_2"),
    adjuster("salary", _salary, last=True, ability="no_salary"),
    adjuster("eclipse_masks", _masks, ability="mask_set_plus_1"),
    each("eclipse_start", _bot_marker),
)

"""Main actions of boards 2-8: resource grids, Alchemy, Nobles, Decorations, Construction."""

from __future__ import annotations

from .. import modules
from ..core import TeoCore
from ..data import DATA, RESOURCES, SIDES, TEMPLES
from ..expansion_data import EXP
from ..flow import Frame, Payload, push
from ..hooks import Auto, Choice, Part
from ..icons import icons_text
from .effects import gain, technology_vp

BOARD = DATA.board_names
TEMPLE_OF = {"B": 0, "R": 1, "G": 2}


def own_count(st: TeoCore, seat: int, board: int) -> int:
    """``seat``'s unlocked workers on ``board`` (the arriving ones included), uncapped."""
    return len(st.unlocked_workers(seat, board))


def base_count(st: TeoCore, seat: int, board: int) -> int:
    """Own workers plus Technology 15's virtual worker on Construction, uncapped."""
    extra = 1 if board == 8 and st.has_tech(seat, 15) else 0
    if st.mods:  # a priest's or ability's virtual worker
        extra = modules.adjust(st, "virtual_workers", seat, extra, board)
    return own_count(st, seat, board) + extra


def worker_count(st: TeoCore, seat: int, board: int, extra: int) -> int:
    """The worker count a Main action uses: own (+ virtual) workers, capped at 3."""
    return min(3, base_count(st, seat, board) + extra)


def power_up_frames(st: TeoCore, seat: int, board: int, count: int, had13: bool) -> list[tuple]:
    """One power-up, an optional second one with 3 workers, then Technology 13's offer."""
    out: list[tuple] = [("power-up", seat, board, 0)]
    if DATA.power_ups[count] >= 2:
        out.append(("power-up", seat, board, 1))
    if had13:
        out.append(("tech13", seat, board))
    return out


def main_possible(st: TeoCore, seat: int, board: int, extra: int) -> bool:
    """Whether the Main action of ``board`` can be carried out (ignoring its cocoa cost)."""
    if board in (2, 3, 4):
        return True
    if st.mods:
        rule = modules.main_rule(st, board)
        if rule is not None:
            return rule.possible(st, seat, board, extra)
    count = worker_count(st, seat, board, extra)
    if board == 5:
        return bool(alchemy_options(st, seat, count))
    if board == 6:
        return bool(noble_rows(st, seat, count))
    if board == 7:
        return can_decorate(st, seat, count)
    return bool(build_tiles(st, seat, 1 if st.has_tech(seat, 15) else 0))


def start_main(st: TeoCore, seat: int, board: int, extra: int) -> None:
    """Begin the Main action of ``board`` (its cocoa already paid)."""
    if st.mods:
        rule = modules.main_rule(st, board)
        if rule is not None:
            rule.start(st, seat, board, extra)
            return
    count = worker_count(st, seat, board, extra)
    if board in (2, 3, 4):
        later = modules.fire(st, "resource_main", seat, board) if st.mods else ()
        if later:  # e.g. a priest's choice of another player's worker to count as one's own
            push(st, *later)
            return
        resource_grid(st, seat, board)
    elif board == 5:
        push(st, ("alchemy", seat, count))
    elif board == 6:
        push(st, ("nobles", seat, count))
    elif board == 7:
        push(st, ("deco", seat, count))
    else:
        disc = 1 if st.has_tech(seat, 15) else 0
        push(st, ("build", seat, count, 0, disc, count))


# ---- Forest (2), Stone Quarry (3), Gold Deposits (4) ------------------------------------------------
def resource_grid(st: TeoCore, seat: int, board: int, borrowed: int = -1) -> None:
    """The Main action of a resource board; ``borrowed``: another player's worker counted as
    one's own (row and column; the power-ups stay with one's own workers)."""
    workers = st.unlocked_workers(seat, board)
    if borrowed >= 0:
        workers.append(borrowed)
    count = min(3, len(workers))
    low = min(st.wp[w] for w in workers)
    todo = gain(st, seat, DATA.grids[board][count - 1][low - 1], "action_rewards")
    if st.has_tech(seat, 5):
        st.res[seat * 3 + board - 2] += 1  # wood / stone / gold for boards 2 / 3 / 4
    if st.has_tech(seat, 7):
        st.cocoa[seat] += 1
        technology_vp(st, seat, 1)
    push(st, *todo, *power_up_frames(st, seat, board, count, st.has_tech(seat, 13)))


# ---- Alchemy (5) ---------------------------------------------------------------------------------------
def alchemy_options(st: TeoCore, seat: int, count: int) -> list[tuple[int, int]]:
    """(position, forfeit) pairs: Technologies ``seat`` may develop now."""
    gold = st.res[seat * 3 + 2]
    if st.mods:
        return _module_alchemy_options(st, seat, count, gold)
    single = 0
    if count == 1:
        single = max(st.wp[w] for w in st.unlocked_workers(seat, 5))
    out = []
    for pos in range(6):
        number = st.tech[pos]
        if st.tech_marks[pos] >> seat & 1 or DATA.tech_gold[number] > gold:
            continue
        if pos < 3:
            out.append((pos, 0))
        elif count >= 2:
            out.append((pos, 0))
        elif single >= 4:
            out.append((pos, 1))  # the power 4-5 exception: no power-up afterwards
    return out


def tech_price(st: TeoCore, seat: int, number: int) -> int:
    """Gold for Technology ``number`` (a priest may lower it)."""
    gold = DATA.tech_gold[number]
    return modules.adjust(st, "tech_gold", seat, gold) if st.mods else gold


def _module_alchemy_options(st: TeoCore, seat: int, count: int, gold: int) -> list[tuple[int, int]]:
    """alchemy_options with the modules' price and row changes (kept apart: the base stays as is)."""
    if modules.adjust(st, "alchemy_any_row", seat, False):
        count = max(count, 2)
    single = max(st.wp[w] for w in st.unlocked_workers(seat, 5)) if count == 1 else 0
    out = []
    for pos in range(6):
        if st.tech_marks[pos] >> seat & 1 or tech_price(st, seat, st.tech[pos]) > gold:
            continue
        if pos < 3 or count >= 2:
            out.append((pos, 0))
        elif single >= 4:
            out.append((pos, 1))
    return out


def _alchemy_options(st: TeoCore, frame: Frame) -> list[Payload]:
    return alchemy_options(st, frame[1], frame[2])


TECH_TEXT = {t["number"]: t["effect"] for t in DATA.raw["technology_tiles"]}


def _alchemy_describe(st: TeoCore, frame: Frame, opts: list[Payload]) -> tuple[str, list[str]]:
    labels = []
    for pos, forfeit in opts:
        number = st.tech[pos]
        col = TEMPLES[DATA.tech_columns[pos % 3]]
        note = " (no power-up: single power 4-5 worker)" if forfeit else ""
        labels.append(
            f"Technology {number:02d} for {tech_price(st, frame[1], number)} gold, {col} step{note}: "
            f"{TECH_TEXT[number]}"
        )
    return "Alchemy: develop a Technology", labels


def _alchemy(st: TeoCore, frame: Frame, p: Payload) -> None:
    seat, _count = frame[1], frame[2]
    pos, forfeit = p
    had3, had13 = st.has_tech(seat, 3), st.has_tech(seat, 13)
    number = st.tech[pos]
    st.res[seat * 3 + 2] -= tech_price(st, seat, number)
    for other in range(st.n):
        if other != seat and st.tech_marks[pos] >> other & 1:
            st.add_vp(other, DATA.tech_vp_earlier, "technologies")
    st.tech_marks[pos] |= 1 << seat
    if had3:
        technology_vp(st, seat, 3)
    todo = [("adv", seat, DATA.tech_columns[pos % 3])]
    if not forfeit:
        todo.extend(power_up_frames(st, seat, 5, 1, had13))
    push(st, *todo)


# ---- Nobles (6) -------------------------------------------------------------------------------------------
def empty_noble_spaces(st: TeoCore, row: int) -> list[int]:
    """The empty spaces of Nobles ``row``, left to right (``st.nob_taken[row]`` bit k: space k built)."""
    taken = st.nob_taken[row]
    return [k for k in range(len(DATA.noble_rows[row])) if not taken >> k & 1]


def place_building(st: TeoCore, seat: int, row: int, space: int) -> None:
    """The next Building goes on ``space`` of Nobles ``row``: ``seat`` scores its printed VP."""
    st.add_vp(seat, DATA.noble_rows[row][space], "nobles")
    st.nob_taken[row] |= 1 << space
    st.buildings_taken += 1


def noble_rows(st: TeoCore, seat: int, count: int) -> list[int]:
    """Rows the Building may go to: the row of the worker count, else a row above it."""
    if st.res[seat * 3] < DATA.noble_cost or st.buildings_taken >= DATA.buildings:
        return []
    if st.mods and sum(st.res[seat * 3 : seat * 3 + 3]) - DATA.noble_cost < build_extra(st, seat):
        return []  # a priest's extra resource cannot be paid
    target = count - 1
    if empty_noble_spaces(st, target):
        return [target]
    return [r for r in range(target - 1, -1, -1) if empty_noble_spaces(st, r)]


def _nobles_options(st: TeoCore, frame: Frame) -> list[Payload]:
    return [(r,) for r in noble_rows(st, frame[1], frame[2])]


ROW_NAMES = ("top", "centre", "bottom")


def _nobles_describe(st: TeoCore, frame: Frame, opts: list[Payload]) -> tuple[str, list[str]]:
    return "Nobles: where does the Building go?", [
        f"{ROW_NAMES[r]} row for {DATA.noble_rows[r][empty_noble_spaces(st, r)[0]]} VP (pay 2 wood, Avenue +1)"
        for (r,) in opts
    ]


def _nobles(st: TeoCore, frame: Frame, p: Payload) -> None:
    seat, count = frame[1], frame[2]
    row = p[0]
    st.res[seat * 3] -= DATA.noble_cost
    place_building(st, seat, row, empty_noble_spaces(st, row)[0])  # a player takes the leftmost
    if st.has_tech(seat, 3):
        technology_vp(st, seat, 3)
    fee = [("pay-res", seat, build_extra(st, seat))] if st.mods and build_extra(st, seat) else []
    push(st, *fee, ("avenue", seat), *power_up_frames(st, seat, 6, count, st.has_tech(seat, 13)))


def build_extra(st: TeoCore, seat: int) -> int:
    """Resources of one's choice a priest adds to the price of a Building or Pyramid tile."""
    return modules.adjust(st, "build_extra", seat, 0)


# ---- Decorations (7) -------------------------------------------------------------------------------------
def deco_space_open(st: TeoCore, space: int) -> bool:
    """Whether a Decoration may go on ``space`` now (empty, lower one filled, tiles beneath)."""
    if st.deco_space[space]:
        return False
    if space % 4 == 0:
        return True
    if not st.deco_space[space - 1]:
        return False
    return all(st.pyr_pos[p] >= 0 for p in DATA.deco_spaces[space][2])


def deco_options(st: TeoCore, seat: int, count: int) -> list[tuple[int, int]]:
    """(offer slot, space) pairs ``seat`` can afford and place."""
    if st.res[seat * 3 + 2] < DATA.deco_cost[count]:
        return []
    spaces = [sp for sp in range(16) if deco_space_open(st, sp)]
    return [(slot, sp) for slot in range(len(st.deco_offer)) if st.deco_offer[slot] for sp in spaces]


def can_decorate(st: TeoCore, seat: int, count: int) -> bool:
    """Whether ``deco_options`` has any option (without listing them all)."""
    return (
        st.res[seat * 3 + 2] >= DATA.deco_cost[count]
        and any(st.deco_offer)
        and any(deco_space_open(st, sp) for sp in range(16))
    )


def _deco_options(st: TeoCore, frame: Frame) -> list[Payload]:
    return deco_options(st, frame[1], frame[2])


def covered_icons(st: TeoCore, space: int) -> tuple[str, str]:
    """The two icons a Decoration on ``space`` covers (clockwise order)."""
    printed, squares, _ = DATA.deco_spaces[space]
    if printed is not None:
        return printed
    return st.grid[squares[0]], st.grid[squares[1]]


def match(new: str, old: str) -> tuple[int, int]:
    """(VP, temple index or -1) for one new icon covering one old icon.

    Same symbol type matches, case ignored; a blank covering a blank also scores 1 VP
    (reference README); only a coloured icon on the new piece gives a temple step."""
    if new == ".":
        return (1, -1) if old == "." else (0, -1)
    if old.lower() != new.lower():
        return 0, -1
    return 1, TEMPLE_OF.get(new, -1)


def _score_icons(st: TeoCore, seat: int, new: tuple, old: tuple, category: str) -> list[tuple]:
    steps = []
    for a, b in zip(new, old, strict=True):
        vp, t = match(a, b)
        st.add_vp(seat, vp, category)
        if t >= 0:
            steps.append(("adv", seat, t))
    return steps


def slide_offer(offer: list, deck: list) -> None:
    """Solo rule: the tiles left in an offer slide to its start; the stack refills its end."""
    kept = [t for t in offer if t]
    kept.extend(deck.pop() for _ in range(min(len(offer) - len(kept), len(deck))))
    offer[:] = kept + [0] * (len(offer) - len(kept))


def take_decoration(st: TeoCore, slot: int) -> None:
    """A Decoration left the offer: refill its slot (solo: slide the rest up, refill the end)."""
    st.deco_offer[slot] = 0
    if st.bot >= 0:
        slide_offer(st.deco_offer, st.deco_deck)
    elif st.deco_deck:
        st.deco_offer[slot] = st.deco_deck.pop()


def deco_label(st: TeoCore, slot: int, sp: int) -> str:
    """'decoration coloured blue, red on top level 1 covering blank, blank (1 matching VP)'."""
    tid = st.deco_offer[slot]
    icons = DATA.deco_tiles[tid]
    old = covered_icons(st, sp)
    vp = sum(match(a, b)[0] for a, b in zip(icons, old, strict=True))
    return (
        f"decoration {icons_text(icons)} on {SIDES[sp // 4]} level {sp % 4 + 1} "
        f"covering {icons_text(old)} ({vp} matching VP)"
    )


def _deco_describe(st: TeoCore, frame: Frame, opts: list[Payload]) -> tuple[str, list[str]]:
    cost = DATA.deco_cost[frame[2]]
    return f"Decorations: pay {cost} gold, choose a tile and a space", [
        deco_label(st, slot, sp) for slot, sp in opts
    ]


def place_decoration(
    st: TeoCore, seat: int, count: int, slot: int, sp: int, refill: bool = True
) -> list[tuple]:
    """Pay for and place the Decoration of offer ``slot`` on ``sp``: matching icons, VP, the
    Pyramid track; returns the temple steps. ``refill=False`` leaves the slot empty."""
    tid = st.deco_offer[slot]
    st.res[seat * 3 + 2] -= DATA.deco_cost[count]
    steps = _score_icons(st, seat, DATA.deco_tiles[tid], covered_icons(st, sp), "decorations")
    st.add_vp(seat, DATA.deco_vp, "decorations")
    st.ptrack[seat] = min(DATA.pyramid_track_max, st.ptrack[seat] + 1)
    st.deco_space[sp] = tid
    if refill:
        take_decoration(st, slot)
    else:
        st.deco_offer[slot] = 0
    return steps


def _deco(st: TeoCore, frame: Frame, p: Payload) -> None:
    seat, count = frame[1], frame[2]
    slot, sp = p
    steps = place_decoration(st, seat, count, slot, sp)
    if st.has_tech(seat, 9):
        technology_vp(st, seat, 4)
    push(st, *steps, *power_up_frames(st, seat, 7, 1, st.has_tech(seat, 13)))


# ---- Construction (8) -------------------------------------------------------------------------------------
def open_positions(st: TeoCore) -> list[int]:
    """Empty pyramid positions whose supporting tiles are all in place."""
    pos = st.pyr_pos
    return [i for i, p in enumerate(DATA.positions) if pos[i] < 0 and all(pos[s] >= 0 for s in p.supports)]


def position_costs(st: TeoCore, seat: int, disc: int, keep_discount: bool = False) -> list[tuple[int, int]]:
    """(position, discount kind) pairs ``seat`` can pay: kind -1 none, 0 stone off, 1 wood off.

    Technology 15's discount belongs to the action: the player gives it to the tile of their
    choice, so while more tiles may follow (``keep_discount``) the full price is offered too."""
    stone, wood = st.res[seat * 3 + 1], st.res[seat * 3]
    out = []
    for i in open_positions(st):
        need_s, need_w = DATA.level_cost[DATA.positions[i].level]
        if disc:
            if stone >= need_s - 1 and wood >= need_w:
                out.append((i, 0))
            if need_w and stone >= need_s and wood >= need_w - 1:
                out.append((i, 1))
        if (not disc or keep_discount) and stone >= need_s and wood >= need_w:
            out.append((i, -1))
    if st.mods and build_extra(st, seat):
        return _with_extra(st, seat, out, build_extra(st, seat))
    return out


def _with_extra(st: TeoCore, seat: int, out: list[tuple[int, int]], extra: int) -> list[tuple[int, int]]:
    """The (position, discount) pairs still payable when a priest adds ``extra`` resources of
    one's choice to each tile's price."""
    held = sum(st.res[seat * 3 : seat * 3 + 3])
    keep = []
    for i, kind in out:
        need_s, need_w = DATA.level_cost[DATA.positions[i].level]
        if held - (need_s + need_w - (1 if kind >= 0 else 0)) >= extra:
            keep.append((i, kind))
    return keep


def build_tiles(st: TeoCore, seat: int, disc: int) -> list[int]:
    """Offer slots with a tile, when some position is affordable."""
    slots = [slot for slot, tid in enumerate(st.pyr_offer) if tid]
    if not slots or not position_costs(st, seat, disc):  # (the costs only when there is a tile)
        return []
    return slots


def _build_options(st: TeoCore, frame: Frame) -> list[Payload]:
    seat, remaining, placed, disc = frame[1], frame[2], frame[3], frame[4]
    opts: list[Payload] = [("tile", slot) for slot in build_tiles(st, seat, disc)] if remaining else []
    if placed:
        opts.append(("done",))
    return opts


def _build_describe(st: TeoCore, frame: Frame, opts: list[Payload]) -> tuple[str, list[str]]:
    labels = []
    for p in opts:
        if p[0] == "done":
            labels.append("place no more tiles")
        else:
            labels.append(
                f"place pyramid tile #{st.pyr_offer[p[1]]} "
                f"({icons_text(DATA.pyramid_tiles[st.pyr_offer[p[1]]])})"
            )
    return f"{modules.board_name(st, 8)}: choose a pyramid tile ({frame[2]} more allowed)", labels


def _build(st: TeoCore, frame: Frame, p: Payload) -> None:
    seat, remaining, placed, disc, count = frame[1:6]
    if p[0] == "done":
        push(st, ("build-end", seat, count))
        return
    push(st, ("build-pos", seat, p[1], remaining, placed, disc, count))


def _pos_options(st: TeoCore, frame: Frame) -> list[Payload]:
    seat, remaining, disc = frame[1], frame[3], frame[5]
    return position_costs(st, seat, disc, keep_discount=remaining > 1)


def position_text(i: int) -> str:
    """'level 2 at row 1, col 0'."""
    p = DATA.positions[i]
    return f"level {p.level} at row {p.row}, col {p.col}"


def _pos_describe(st: TeoCore, frame: Frame, opts: list[Payload]) -> tuple[str, list[str]]:
    labels = []
    for i, kind in opts:
        s, w = DATA.level_cost[DATA.positions[i].level]
        if kind == 0:
            s -= 1
        elif kind == 1:
            w -= 1
        cost = f"{s} stone" + (f" + {w} wood" if w else "")
        if kind >= 0:
            note = " (Technology 15 discount)"
        else:
            note = " (Technology 15 discount kept for a later tile)" if frame[5] else ""
        labels.append(f"{position_text(i)}: pay {cost}{note}, {level_vp(st, DATA.positions[i].level)} VP")
    return "Construction: where does the tile go?", labels


def _build_pos(st: TeoCore, frame: Frame, p: Payload) -> None:
    seat, slot, remaining, placed, disc, count = frame[1:7]
    push(st, ("build-rot", seat, slot, p[0], p[1], remaining, placed, disc, count))


def rotated(tid: int, rot: int) -> tuple:
    """Icons of pyramid tile ``tid`` turned ``rot`` quarter turns clockwise (TL, TR, BR, BL)."""
    icons = DATA.pyramid_tiles[tid]
    return tuple(icons[(i - rot) % 4] for i in range(4))


def _rot_options(st: TeoCore, frame: Frame) -> list[Payload]:
    tid = st.pyr_offer[frame[2]]
    seen = set()
    out = []
    for rot in range(4):
        icons = rotated(tid, rot)
        if icons not in seen:
            seen.add(icons)
            out.append((rot,))
    return out


def _rot_describe(st: TeoCore, frame: Frame, opts: list[Payload]) -> tuple[str, list[str]]:
    tid, pos = st.pyr_offer[frame[2]], frame[3]
    squares = DATA.positions[pos].squares
    labels = []
    for (rot,) in opts:
        icons = rotated(tid, rot)
        old = [st.grid[q] for q in squares]
        scored = [match(a, b) for a, b in zip(icons, old, strict=True)]
        vp = sum(v for v, _ in scored)
        temples = ", ".join(TEMPLES[t] for _, t in scored if t >= 0) or "none"
        labels.append(
            f"rotation {rot} puts {icons_text(icons)} over {icons_text(old)}: {vp} matching VP, "
            f"temple steps: {temples}"
        )
    return "Construction: how is the tile turned?", labels


def _build_rot(st: TeoCore, frame: Frame, p: Payload) -> None:
    seat, slot, pos, kind, remaining, placed, disc, count = frame[1:9]
    tid = st.pyr_offer[slot]
    level = DATA.positions[pos].level
    need_s, need_w = DATA.level_cost[level]
    if kind == 0:
        need_s -= 1
    elif kind == 1:
        need_w -= 1
    st.res[seat * 3 + 1] -= need_s
    st.res[seat * 3] -= need_w
    squares = DATA.positions[pos].squares
    steps = _score_icons(st, seat, rotated(tid, p[0]), tuple(st.grid[q] for q in squares), "pyramid_tiles")
    place_pyramid_tile(st, seat, tid, pos, p[0])
    st.pyr_offer[slot] = 0
    placed += 1
    more = ("build", seat, remaining - 1, placed, 0 if kind >= 0 else disc, count)
    # a tile may be flipped between two pyramid tiles (e.g. one claimed through a temple step)
    flip = [("use-tiles", seat)] if remaining > 1 else []
    fee = [("pay-res", seat, build_extra(st, seat))] if st.mods and build_extra(st, seat) else []
    push(st, *fee, *steps, *flip, more)


def place_pyramid_tile(st: TeoCore, seat: int, tid: int, pos: int, rot: int) -> None:
    """Put pyramid tile ``tid`` turned ``rot`` on ``pos``: icons, level VP, Pyramid track, and
    the final Eclipse when the top is placed (icon matching is the caller's)."""
    level = DATA.positions[pos].level
    for q, icon in zip(DATA.positions[pos].squares, rotated(tid, rot), strict=True):
        st.grid[q] = icon
    st.pyr_pos[pos] = tid * 4 + rot
    st.add_vp(seat, level_vp(st, level), "pyramid_tiles")
    st.ptrack[seat] = min(DATA.pyramid_track_max, st.ptrack[seat] + 1)
    if level == 4:
        # the Pyramid is finished: the light disc jumps to the dark one, the final Eclipse follows
        st.pyramid_done = True
        st.light = st.dark
        st.note(seat, "the Pyramid is finished: the final Eclipse is triggered")


def level_vp(st: TeoCore, level: int) -> int:
    """VP for a pyramid tile on ``level``: 1/3/5/7, or 1/2/3/4 with the expert_pyramid option."""
    if st.options.get("expert_pyramid"):
        return EXP.expert_level_vp[level]
    return DATA.level_vp[level]


def take_pyramid(st: TeoCore, slot: int) -> None:
    """A pyramid tile left the offer (the bot's Construction): slide the rest, refill the end."""
    st.pyr_offer[slot] = 0
    slide_offer(st.pyr_offer, st.pyr_deck)


def _build_end(st: TeoCore, frame: Frame) -> None:
    seat, count = frame[1], frame[2]
    todo = []
    if st.has_tech(seat, 11):
        technology_vp(st, seat, 3)
    if st.has_tech(seat, 17):
        todo.append(("any-temple", seat))
    todo.extend(power_up_frames(st, seat, 8, count, st.has_tech(seat, 13)))
    todo.append(("refill-pyramid", seat))
    push(st, *todo)


def _refill(st: TeoCore, frame: Frame) -> None:
    if st.bot >= 0:
        slide_offer(st.pyr_offer, st.pyr_deck)  # solo rule: slide left, refill the right end
        return
    for slot in range(len(st.pyr_offer)):
        if not st.pyr_offer[slot] and st.pyr_deck:
            st.pyr_offer[slot] = st.pyr_deck.pop()


# ---- Technology 13 ------------------------------------------------------------------------------------------
def _tech13_options(st: TeoCore, frame: Frame) -> list[Payload]:
    seat, board = frame[1], frame[2]
    if st.cocoa[seat] >= 1 and st.unlocked_workers(seat, board):
        return [("pay",), ("no",)]
    return []


def _tech13_describe(st: TeoCore, frame: Frame, opts: list[Payload]) -> tuple[str, list[str]]:
    return "Technology 13: pay 1 cocoa for one more power-up here?", [
        f"pay 1 cocoa, power up a worker on {modules.board_name(st, frame[2])}" if p[0] == "pay" else "no"
        for p in opts
    ]


def _tech13(st: TeoCore, frame: Frame, p: Payload) -> None:
    if p[0] == "pay":
        st.cocoa[frame[1]] -= 1
        push(st, ("power-up", frame[1], frame[2], 0))


RESOURCE_NAMES = RESOURCES


# The parts this file adds to a rulebook (rulebook.py), in the order their hooks run.
PARTS: tuple[Part, ...] = (
    Choice("alchemy", _alchemy_options, _alchemy_describe, _alchemy),
    Choice("nobles", _nobles_options, _nobles_describe, _nobles),
    Choice("deco", _deco_options, _deco_describe, _deco),
    Choice("build", _build_options, _build_describe, _build),
    Choice("build-pos", _pos_options, _pos_describe, _build_pos),
    Choice("build-rot", _rot_options, _rot_describe, _build_rot),
    Auto("build-end", _build_end),
    Auto("refill-pyramid", _refill),
    Choice("tech13", _tech13_options, _tech13_describe, _tech13),
)

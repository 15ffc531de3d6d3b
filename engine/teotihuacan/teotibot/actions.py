"""Teotibot's turn (the dice pick an Action tile) and its seven actions with every fallback step.

Each *step* returns the frames that finish it (temple and Avenue steps, run through the base
rules with the bot's policies) when it succeeds, or None when it fails. The bot pays only the
resources its tiles name, never cocoa for actions. "A worker on a board" means an unlocked
worker there (the bot's locked Worship worker does not count), as for players.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.draws import below

from .. import modules
from ..core import TeoCore
from ..data import DATA
from ..expansion_data import OFFER_BOARDS_M2, WORSHIP_OFFER_M2
from ..flow import Frame, push
from ..hooks import Auto, BotStep, BotTile, Part
from ..rules.actions import (
    deco_space_open,
    empty_noble_spaces,
    open_positions,
    place_building,
    place_pyramid_tile,
    take_decoration,
    take_pyramid,
)
from ..rules.effects import can_pay, claim, draw_discovery, power_up
from .rules import (
    ACT,
    DICE_POSITION,
    MASK_RARITY,
    POSITION_NAMES,
    SIDEBAR_TEMPLE,
    TILE_NAMES,
    adjust,
    advance_target,
    highest,
    lowest,
    move_locked,
    next_temple_spaces,
    rank_high,
)

Step = Callable[..., list | None]


def _has(st: TeoCore, seat: int, board: int) -> bool:
    return bool(st.unlocked_workers(seat, board))


def _spend(st: TeoCore, seat: int, resource: int, amount: int) -> bool:
    """Spend ``amount`` of resource index ``resource`` (0 wood, 1 stone, 2 gold) if held."""
    i = seat * 3 + resource
    if st.res[i] < amount:
        return False
    st.res[i] -= amount
    return True


# ---- steps ------------------------------------------------------------------------------------------------
def construct(st: TeoCore, seat: int) -> list | None:
    """Construction step 1: 2 stone, the leftmost pyramid tile (rotated at random) on the lowest
    level, top-left open position; level VP, Pyramid track, 2 VP and an any-temple step."""
    if not _has(st, seat, 8):
        return None
    return build_pyramid(st, seat, ACT["construction_stone"])


def build_pyramid(st: TeoCore, seat: int, stone: int) -> list | None:
    """The bot's pyramid tile as in Construction, paying ``stone`` (a priest tile pays 1)."""
    slots = [k for k, tid in enumerate(st.pyr_offer) if tid]
    positions = open_positions(st)
    if not slots or not positions or st.res[seat * 3 + 1] < stone:
        return None
    _spend(st, seat, 1, stone)
    pos = positions[0]
    rot = st.chance_rng().randrange(4)
    place_pyramid_tile(st, seat, st.pyr_offer[slots[0]], pos, rot)
    take_pyramid(st, slots[0])
    st.add_vp(seat, ACT["construction_extra_vp"], "teotibot_extras")
    st.note(seat, f"Teotibot builds a pyramid tile on level {DATA.positions[pos].level}")
    return [("any-temple", seat)]


def decorate(st: TeoCore, seat: int) -> list | None:
    """Decorations step 1: 2 gold, the topmost Decoration on the first open space clockwise from
    the top side; 5 VP, Pyramid track, an any-temple step."""
    if not _has(st, seat, 7):
        return None
    return place_decoration(st, seat, ACT["decoration_gold"])


def place_decoration(st: TeoCore, seat: int, gold: int) -> list | None:
    """The bot's Decoration as in Decorations, paying ``gold`` (a priest tile pays 1)."""
    slots = [k for k, tid in enumerate(st.deco_offer) if tid]
    spaces = [sp for sp in range(16) if deco_space_open(st, sp)]
    if not slots or not spaces or st.res[seat * 3 + 2] < gold:
        return None
    _spend(st, seat, 2, gold)
    st.deco_space[spaces[0]] = st.deco_offer[slots[0]]
    take_decoration(st, slots[0])
    st.add_vp(seat, ACT["decoration_vp"], "teotibot_extras")
    st.ptrack[seat] = min(DATA.pyramid_track_max, st.ptrack[seat] + 1)
    st.note(seat, "Teotibot places a Decoration")
    return [("any-temple", seat)]


def develop(st: TeoCore, seat: int) -> list | None:
    """Alchemy step 1: 1 gold, the lowest-numbered Technology without any marker; if every tile
    the bot lacks carries the player's marker, the lowest-numbered one it lacks (the player
    scores 3 VP). A temple step on its column."""
    lacking = [pos for pos in range(6) if not st.tech_marks[pos] >> seat & 1]
    if not _has(st, seat, 5) or not lacking or st.res[seat * 3 + 2] < ACT["alchemy_gold"]:
        return None
    free = [pos for pos in lacking if not st.tech_marks[pos]]
    pos = min(free or lacking, key=lambda p: st.tech[p])
    _spend(st, seat, 2, ACT["alchemy_gold"])
    for other in range(st.n):
        if other != seat and st.tech_marks[pos] >> other & 1:
            st.add_vp(other, DATA.tech_vp_earlier, "technologies")
    st.tech_marks[pos] |= 1 << seat
    st.note(seat, f"Teotibot develops Technology {st.tech[pos]:02d}")
    return [("adv", seat, DATA.tech_columns[pos % 3])]


def noble_space(st: TeoCore) -> tuple[int, int] | None:
    """Where the bot's Building goes, (row, space): the leftmost empty space of the era's row; if
    that row is full, the empty space with the lowest printed VP of all three rows (ties in
    reading order: upper row first, then leftmost). None when no space or Building is left."""
    if st.buildings_taken >= DATA.buildings:
        return None
    era = min(st.eclipses, 2)
    spaces = empty_noble_spaces(st, era)
    if spaces:
        return era, spaces[0]
    empty = [(DATA.noble_rows[r][k], r, k) for r in range(3) for k in empty_noble_spaces(st, r)]
    if not empty:
        return None
    _, row, space = min(empty)
    return row, space


def build_noble(st: TeoCore, seat: int) -> list | None:
    """Nobles step 1: 2 wood, a Building in the row of the current era; its VP and an Avenue step."""
    where = noble_space(st)
    if not _has(st, seat, 6) or where is None or st.res[seat * 3] < ACT["nobles_wood"]:
        return None
    _spend(st, seat, 0, ACT["nobles_wood"])
    place_building(st, seat, *where)
    st.note(seat, f"Teotibot builds a Building in row {where[0] + 1}, space {where[1] + 1}")
    return [("avenue", seat)]


def gather(board: int) -> Step:
    """Step 2 of Nobles / Construction / Decorations: 2 of the board's resource with a worker there."""

    def step(st: TeoCore, seat: int) -> list | None:
        if not _has(st, seat, board):
            return None
        st.res[seat * 3 + board - 2] += ACT["fallback_resources"]
        return []

    return step


# ---- finishing moves ---------------------------------------------------------------------------------------
def power_and_advance(st: TeoCore, seat: int, w: int, todo: list) -> None:
    """Run the step's frames, then power up ``w`` (Ascension resolved normally), then advance it
    (the reborn worker, after an Ascension)."""
    push(st, *todo, ("bot-power", seat, w), ("bot-advance", seat, w))


def fallback(st: TeoCore, seat: int) -> None:
    """Neither step worked: 5 cocoa, power up the lowest powered worker, advance it."""
    st.cocoa[seat] += ACT["fallback_cocoa"]
    st.note(seat, f"Teotibot gains {ACT['fallback_cocoa']} cocoa instead")
    workers = st.unlocked_workers(seat)
    if workers:
        power_and_advance(st, seat, lowest(st, workers), [])


def _bot_power(st: TeoCore, frame: Frame) -> None:
    power_up(st, frame[1], frame[2])


def _bot_advance(st: TeoCore, frame: Frame) -> None:
    w = frame[2]
    if st.ws[w] < 0:
        st.wb[w] = advance_target(st, w)


# ---- the seven tiles -----------------------------------------------------------------------------------------
def board_tile(main: Step, main_board: int, second_board: int) -> Callable:
    """Construction, Decorations and Nobles: the main step, else the resource step, else the fallback."""

    def tile(st: TeoCore, seat: int) -> None:
        for board, step in ((main_board, main), (second_board, st.rules.bot_steps[second_board])):
            todo = step(st, seat)
            if todo is not None:
                workers = st.unlocked_workers(seat, board)
                power_and_advance(st, seat, highest(st, workers), todo)
                return
        fallback(st, seat)

    return tile


def alchemy_tile(st: TeoCore, seat: int) -> None:
    """Alchemy: develop, else power up the lowest unlocked worker by two (no advance)."""
    todo = st.rules.bot_steps[5](st, seat)  # develop (a priest tile may change it)
    if todo is not None:
        power_and_advance(st, seat, highest(st, st.unlocked_workers(seat, 5)), todo)
        return
    workers = st.unlocked_workers(seat)
    if workers:
        w = lowest(st, workers)
        push(st, *[("bot-power", seat, w)] * ACT["alchemy_fallback_power"])


def mastery_tile(st: TeoCore, seat: int) -> None:
    """Mastery: the action of the board of the highest powered unlocked worker that succeeds."""
    workers = sorted(st.unlocked_workers(seat), key=lambda w: rank_high(st, w), reverse=True)
    for w in workers:
        step = st.rules.bot_steps.get(st.wb[w])
        todo = step(st, seat) if step else None
        if todo is not None:
            power_and_advance(st, seat, w, todo)
            return
    fallback(st, seat)


def worship_tile(st: TeoCore, seat: int) -> None:
    """Worship: the locked worker moves to the next temple Worship space clockwise (unlocking the
    player's worker there); 2 steps on its temple (3 any-temple steps on Decorations); the
    discovery tile beside it is discarded and replaced."""
    locked = [w for w in range(seat * 4, seat * 4 + 4) if st.wb[w] and st.ws[w] >= 0]
    if not locked:
        fallback(st, seat)  # cannot happen in play: the bot always has one locked worker
        return
    w = locked[0]
    move_locked(st, w, next_temple_spaces(st, st.wb[w])[0])
    board = st.wb[w]
    temple = SIDEBAR_TEMPLE.get(board, -2)  # -2: M2's Nobles (6) space (orange temple)
    extra = adjust(st, "teotibot_worship_steps")
    todo: list[tuple]
    if temple == -2:  # it never advances on orange: its steps become any-temple steps
        todo = [("any-temple", seat)] * (ACT["worship_steps"] + extra)
    elif temple < 0:
        todo = [("any-temple", seat)] * (ACT["worship_any_steps"] + extra)
    else:
        todo = [("adv", seat, temple)] * (ACT["worship_steps"] + extra)
    slot = WORSHIP_OFFER_M2[board]
    if st.d_offer[slot]:
        st.d_owner[st.d_offer[slot]] = -2  # discarded: out of the game, face up
        st.d_offer[slot] = draw_discovery(st)
    st.note(seat, f"Teotibot worships on {modules.board_name(st, board)}")
    push(st, *todo)


def mask_tile(st: TeoCore, seat: int) -> None:
    """Mask collection: a mask the bot lacks from beside a Worship space, if it can pay; lowest
    rarity number first, ties clockwise from the Palace. Else the fallback."""
    owned = {DATA.discoveries[t].mask for t in range(1, 55) if st.d_owner[t] == seat}
    best = None
    for slot, board in enumerate(OFFER_BOARDS_M2[: len(st.d_offer)]):  # M2 adds the Nobles tile
        tid = st.d_offer[slot]
        if not tid:
            continue
        tile = DATA.discoveries[tid]
        if tile.mask and tile.mask not in owned and can_pay(st, seat, tile.cost):
            key = (MASK_RARITY[tile.mask], st.board_place[board])
            if best is None or key < best[0]:
                best = (key, slot, tid)
    if best is None:
        fallback(st, seat)
        return
    _, slot, tid = best
    claim(st, seat, tid)
    st.d_offer[slot] = draw_discovery(st)
    st.note(seat, f"Teotibot collects mask {DATA.discoveries[tid].mask}")


def perform(st: TeoCore, seat: int, tile: int) -> None:
    """Carry out Action tile ``tile`` for the bot."""
    st.rules.bot_tiles[tile](st, seat)


# ---- the turn ------------------------------------------------------------------------------------------
def _bot_turn(st: TeoCore, frame: Frame) -> None:
    seat = frame[1]
    rng = st.chance_rng()
    a, b = 1 + below(rng, 6), 1 + below(rng, 6)  # rng.randint(1, 6) twice, the same draws
    pos = DICE_POSITION[a + b]
    tile = st.act_pyr[pos]
    st.roll = a + b
    st.note(seat, f"Teotibot rolls {a} + {b} = {a + b}: {TILE_NAMES[tile]} ({POSITION_NAMES[pos]})")
    plan = modules.fire(st, "bot_roll", seat, pos) if st.mods else ()
    if plan:  # a priest tile's two actions instead of one
        push(st, *plan)
        return
    push(st, ("bot-done", seat, pos))
    perform(st, seat, tile)


# The parts this file adds to a rulebook (rulebook.py), in the order their hooks run.
PARTS: tuple[Part, ...] = (
    BotStep(2, gather(2)),
    BotStep(3, gather(3)),
    BotStep(4, gather(4)),
    BotStep(5, develop),
    BotStep(6, build_noble),
    BotStep(7, decorate),
    BotStep(8, construct),
    BotTile(1, board_tile(construct, 8, 3)),
    BotTile(2, board_tile(decorate, 7, 4)),
    BotTile(3, alchemy_tile),
    BotTile(4, board_tile(build_noble, 6, 2)),
    BotTile(5, mastery_tile),
    BotTile(6, worship_tile),
    BotTile(7, mask_tile),
    Auto("bot-power", _bot_power),
    Auto("bot-advance", _bot_advance),
    Auto("bot-turn", _bot_turn),
)

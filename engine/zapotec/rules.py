"""Rule primitives shared by the players' turns and by Cocijobot: costs, building, the Sacrifice
track, Pyramids, Ritual discs and Trade tiles. They change the state but ask nothing."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .data import CATEGORY_OF_PROP, SMALL, TradeTile

if TYPE_CHECKING:
    from .core import ZapotecCore

# VP gained during play, booked per seat in ``state.sheet`` after one turn-scoring slot per round.
PLAY_CATEGORIES = ("sacrifice_steps", "difficulty")


def add_vp(state: ZapotecCore, seat: int, vp: int, category: str) -> None:
    """Add ``vp`` to ``seat``'s score, booked for the score sheet under ``category``: one of
    PLAY_CATEGORIES, or "turn_scoring" (this round's)."""
    state.score[seat] += vp
    rounds = state.data.rounds
    slot = state.round - 1 if category == "turn_scoring" else rounds + PLAY_CATEGORIES.index(category)
    state.sheet[seat][slot] += vp


def can_pay(res: list[int], cost: tuple[int, ...] | list[int]) -> bool:
    """Whether the resources ``res`` cover ``cost``."""
    for have, need in zip(res, cost, strict=True):  # a loop, not all(): the rules' hottest call
        if have < need:
            return False
    return True


def pay(res: list[int], cost: tuple[int, ...] | list[int]) -> None:
    """Spend ``cost`` from ``res`` (the caller checked ``can_pay``)."""
    for i, need in enumerate(cost):
        if need:
            res[i] -= need
            if res[i] < 0:
                raise AssertionError("resources went negative: a cost was not checked")


def gain(res: list[int], amounts: tuple[int, ...] | list[int]) -> None:
    """Add ``amounts`` to ``res``."""
    for i, amount in enumerate(amounts):
        res[i] += amount


def trade_price(state: ZapotecCore, seat: int, level: int) -> int:
    """Gold price of a level 1-3 Trade tile for ``seat``, after Sacrifice-track discounts (min 1)."""
    d = state.data
    price = d.trade_cost[level - 1]
    step = state.sac[seat]
    for n in range(1, step + 1):
        disc_level, gold = d.sacrifice_discount[n]
        if disc_level == level:
            price -= gold
    return max(price, 1)


def owned(state: ZapotecCore, seat: int, kind: str) -> list[TradeTile]:
    """The Trade tiles of ``kind`` that ``seat`` owns."""
    tiles = state.data.trade_tiles
    return [tiles[t] for t in state.tiles_owned[seat] if tiles[t].kind == kind]


def tile_ready(state: ZapotecCore, seat: int, tile: TradeTile) -> bool:
    """Owned and face up (not yet used this round, or ever for one-off tiles)."""
    return tile.index in state.tiles_owned[seat] and tile.index not in state.tiles_down[seat]


def building_cost(state: ZapotecCore, seat: int, kind: int) -> tuple[int, ...]:
    """Cost of a House of building type ``kind`` (Z31-Z33 replace it for good)."""
    for tile in owned(state, seat, "building_cost_override"):
        if tile.prop == kind:
            return tile.cost
    return state.data.building_cost[kind]


def matches(space_props: tuple[int, int, int], prop: int) -> bool:
    """Whether a space with (type, region, terrain) has property ``prop``."""
    return space_props[CATEGORY_OF_PROP[prop]] == prop


def house_count(state: ZapotecCore, seat: int, prop: int) -> int:
    """Houses of ``seat`` on spaces with property ``prop``; the Palace counts as two."""
    spaces = state.data.spaces
    category = CATEGORY_OF_PROP[prop]
    palace = state.palace[seat]
    count = 0
    for index in state.houses[seat]:
        if spaces[index].props[category] == prop:
            count += state.data.palace_houses if index == palace else 1
    return count


def place_house(state: ZapotecCore, seat: int, space: int, palace: bool) -> int:
    """Put a House (on the Palace tile if ``palace``) on ``space``; returns the building tile taken."""
    tile = state.space_tile[space]
    if tile < 0 or state.space_owner[space] >= 0 or state.houses_left[seat] <= 0:
        raise AssertionError(f"space {state.data.spaces[space].id} cannot be built")
    state.space_tile[space] = -1
    state.space_owner[space] = seat
    state.houses[seat].append(space)
    state.houses_left[seat] -= 1
    if palace:
        state.palace[seat] = space
        state.palace_tile[seat] = tile
    return tile


def place_on_grid(state: ZapotecCore, seat: int, tile: int, cell: int) -> int:
    """Put a building tile on an empty grid cell; returns the advanced resource gained (-1 if none)."""
    grid = state.grid[seat]
    if grid[cell] >= 0:
        raise AssertionError("grid cell already covered")
    grid[cell] = tile
    printed = state.data.grid_advanced[cell]
    if printed >= 0:  # tiles never move, so this is the first (and only) time the cell is covered
        state.res[seat][printed] += 1
    return printed


def income(state: ZapotecCore, seat: int, resource: int, line: str) -> list[int]:
    """Resources a row or column pays: the header icon plus both icons of every tile on it."""
    d = state.data
    headers = d.grid_rows if line == "row" else d.grid_columns
    index = headers.index(resource)
    cells = [index * 3 + c for c in range(3)] if line == "row" else [r * 3 + index for r in range(3)]
    got = [0] * 6
    got[resource] += 1
    tiles = d.building_tiles
    for cell in cells:
        tile = state.grid[seat][cell]
        if tile >= 0:
            got[tiles[tile].basic] += 1
            got[tiles[tile].advanced] += 1
    return got


def advance_sacrifice(state: ZapotecCore, seat: int, steps: int) -> list[int]:
    """Move ``seat`` up the Sacrifice track (capped at the top); returns the steps reached.

    The disc lands on top of any discs already there (a later arrival), which decides ties.
    """
    start = state.sac[seat]
    end = min(start + steps, state.data.sacrifice_top)
    if end > start:
        state.sac[seat] = end
        state.sac_clock += 1
        state.sac_order[seat] = state.sac_clock
    return list(range(start + 1, end + 1))


def free_sacrifice_bonuses(state: ZapotecCore, seat: int, reached: list[int]) -> None:
    """A player's bonuses for the steps passed: VP now, then queued choices (resource, Ritual)."""
    d = state.data
    for step in reached:
        add_vp(state, seat, d.sacrifice_vp[step], "sacrifice_steps")
        state.pending.extend(["resource"] * d.sacrifice_resource[step])
        if step == d.free_ritual_step:
            state.pending.append("free-ritual")


def pyramid_complete(state: ZapotecCore, pyramid: int) -> bool:
    """A Pyramid is complete once its top piece is small."""
    return state.pyr_pieces[pyramid][-1] % 3 == SMALL


def pyramid_top(state: ZapotecCore, pyramid: int) -> int:
    """Size index of the top piece of a Pyramid."""
    return state.pyr_pieces[pyramid][-1] % 3


def largest_piece(state: ZapotecCore, seat: int) -> int:
    """Size index of the largest piece ``seat`` still has, -1 if none."""
    for size, left in enumerate(state.pieces[seat]):
        if left:
            return size
    return -1


def add_piece(state: ZapotecCore, seat: int, pyramid: int, size: int) -> None:
    """Put a piece of ``size`` on Pyramid ``pyramid`` (pieces are stored as seat * 3 + size)."""
    state.pieces[seat][size] -= 1
    state.built_pieces[seat] += 1
    state.pyr_pieces[pyramid].append(seat * 3 + size)
    state.pyr_this_round[seat].append(pyramid)


def start_pyramid(state: ZapotecCore, seat: int, prop: int) -> int:
    """Start a Pyramid with scoring tile ``prop`` and the largest piece of ``seat``; returns its index."""
    state.scoring_avail.remove(prop)
    state.pyr_tile.append(prop)
    state.pyr_pieces.append([])
    pyramid = len(state.pyr_tile) - 1
    add_piece(state, seat, pyramid, largest_piece(state, seat))
    return pyramid


# Pending free Ritual discs: the Sacrifice track's step-11 disc, "completely independent from
# Pyramid levels", and Z36's, which ignores the requirements when placed but then counts toward
# the Ritual limit like a normal Ritual.
FREE_DISCS = ("free-ritual", "z36-ritual")


def free_ritual_cards(state: ZapotecCore, seat: int) -> list[int]:
    """Slots of the Ritual cards on display without a disc of ``seat``."""
    return [slot for slot, discs in enumerate(state.ritual_discs) if seat not in discs]


def place_disc(state: ZapotecCore, seat: int, slot: int) -> None:
    """Put a disc of ``seat`` on the Ritual card in ``slot``."""
    if seat in state.ritual_discs[slot]:
        raise AssertionError("one disc per Ritual card per player")
    state.ritual_discs[slot].append(seat)


def take_trade_tile(state: ZapotecCore, seat: int, level: int, slot: int) -> TradeTile:
    """Move the face-up tile of ``level`` in ``slot`` to ``seat`` (refilled at the end of the turn)."""
    tile = state.data.trade_tiles[state.display[level - 1][slot]]
    state.display[level - 1][slot] = -1
    state.tiles_owned[seat].append(tile.index)
    return tile


def refill_display(state: ZapotecCore) -> None:
    """Reveal new tiles from the stacks into the empty display slots (not in solo: no stacks)."""
    for level in range(3):
        shown, stack = state.display[level], state.stacks[level]
        for slot in range(len(shown)):
            if shown[slot] < 0 and stack:
                shown[slot] = stack.pop()


def space_name(state: ZapotecCore, space: int) -> str:
    """'Temple in Mitla forest' for a space."""
    return state.data.spaces[space].name

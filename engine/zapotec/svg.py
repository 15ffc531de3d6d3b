"""The position drawn as SVG (the web arena's board): map, pyramids, Sacrifice track, rituals,
every seat's holdings. A pure function of the state, next to the text ``render``.

``viewer`` draws what that seat may see (others' hands and unrevealed picks stay face down, as
in ``observation.observe``); None is the referee's view of everything. Seats are numbered from 0,
as the arena numbers them; ``names`` (optional, one per seat) are shown beside the numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from engine.svg import circle, document, rect, seat_colour, text, title

from .data import PROPERTIES, RESOURCES, SIZES

if TYPE_CHECKING:
    from .state import ZapotecState

WIDTH = 960
_TYPE_LETTER = ("C", "T", "V")
_RESOURCE_FILL = {
    "wood": "#8b5a2b",
    "brick": "#c1502e",
    "stone": "#9a9a9a",
    "corn": "#e8c547",
    "gold": "#d4af37",
    "priest": "#6a3d9a",
}
_PIECE = {0: 22, 1: 16, 2: 11}  # size index -> drawn side


def _name(state: ZapotecState, seat: int, names: Sequence[str]) -> str:
    """'seat 1', or 'seat 1 flatmc' when the seat's name is known; Cocijobot's seat says so."""
    name = names[seat] if seat < len(names) else ("Cocijobot" if state.solo and seat == 1 else "")
    return f"seat {seat} {name}" if name else f"seat {seat}"


def _sees(state: ZapotecState, viewer: int | None, seat: int) -> bool:
    return viewer is None or viewer == seat


def _map(state: ZapotecState, x0: int, y0: int, names: Sequence[str]) -> list[str]:
    d = state.data
    out = [text(x0, y0 - 6, "Map (rows: region, columns: terrain; C/T/V = cornfield/temple/village)", 11)]
    cell_w, cell_h = 150, 64
    for col, terrain in enumerate((6, 7, 8)):
        out.append(text(x0 + 70 + col * cell_w + cell_w / 2, y0 + 10, PROPERTIES[terrain], 11, "middle"))
    for row, region in enumerate((3, 4, 5)):
        y = y0 + 16 + row * cell_h
        out.append(text(x0, y + cell_h / 2 + 4, PROPERTIES[region], 11))
        for col, terrain in enumerate((6, 7, 8)):
            x = x0 + 70 + col * cell_w
            out.append(rect(x, y, cell_w - 4, cell_h - 4, "#f3ead7", "#b9a57a"))
            spaces = [
                s for s in d.spaces if s.region == region and s.terrain == terrain and state.in_play[s.index]
            ]
            for k, space in enumerate(spaces):
                sx, sy = x + 6 + (k % 4) * 35, y + 6 + (k // 4) * 28
                owner = state.space_owner[space.index]
                palace = owner >= 0 and state.palace[owner] == space.index
                fill = seat_colour(owner) if owner >= 0 else "#fffaf0"
                tile = (
                    d.building_tiles[state.space_tile[space.index]]
                    if state.space_tile[space.index] >= 0
                    else None
                )
                tip = space.name + (
                    f", {_name(state, owner, names)}" + (" palace" if palace else " house") if owner >= 0 else ""
                )
                out.append(
                    "<g>" + title(tip) + rect(sx, sy, 30, 24, fill, "#333", stroke_width=3 if palace else 1)
                )
                out.append(text(sx + 4, sy + 11, _TYPE_LETTER[space.type] + ("*" if palace else ""), 10))
                if tile is not None and owner < 0:
                    out.append(text(sx + 4, sy + 21, RESOURCES[tile.basic][:3], 8))
                out.append("</g>")
    return out


def _pyramids(state: ZapotecState, x0: int, y0: int, names: Sequence[str]) -> list[str]:
    out = [text(x0, y0 - 6, "Pyramids", 11)]
    for i, prop in enumerate(state.pyr_tile):
        y = y0 + i * 30
        out.append(rect(x0, y, 300, 26, "#efe6cf", "#b9a57a"))
        out.append(text(x0 + 4, y + 17, f"{i + 1}. {PROPERTIES[prop]}", 10))
        x = x0 + 90
        for piece in state.pyr_pieces[i]:
            seat, size = piece // 3, piece % 3
            side = _PIECE[size]
            out.append("<g>" + title(f"{SIZES[size]} piece of {_name(state, seat, names)}"))
            out.append(rect(x, y + 13 - side / 2, side, side, seat_colour(seat)) + "</g>")
            x += side + 3
    return out


def _sacrifice(state: ZapotecState, x0: int, y0: int) -> list[str]:
    d = state.data
    top = d.sacrifice_top
    step_w = min(34, 300 // (top + 1))
    out = [text(x0, y0 - 6, "Sacrifice track", 11)]
    for step in range(top + 1):
        out.append(rect(x0 + step * step_w, y0, step_w - 2, 30, "#f6dede", "#a55"))
        out.append(text(x0 + step * step_w + 2, y0 + 10, step, 8))
    for seat in range(state.seats):
        step = min(state.sac[seat], top)
        out.append(
            circle(x0 + step * step_w + 6 + 6 * (seat % 3), y0 + 18 + 6 * (seat // 3), 4, seat_colour(seat))
        )
    return out


def _rituals(state: ZapotecState, x0: int, y0: int) -> list[str]:
    d = state.data
    out = [text(x0, y0 - 6, "Rituals", 11)]
    for slot, card in enumerate(state.ritual_cards):
        y = y0 + slot * 16
        ritual = d.rituals[card]
        out.append(text(x0, y + 10, f"{ritual.id}: {ritual.text}"[:70], 9))
        for k, seat in enumerate(state.ritual_discs[slot]):
            out.append(circle(x0 - 8 - 9 * k, y + 7, 4, seat_colour(seat)))
    return out


def _seat(
    state: ZapotecState, seat: int, viewer: int | None, x0: int, y0: int, names: Sequence[str]
) -> list[str]:
    d = state.data
    out = [rect(x0, y0, 228, 196, "#fafafa", seat_colour(seat), stroke_width=2)]
    out.append(rect(x0, y0, 228, 18, seat_colour(seat), seat_colour(seat)))
    out.append(text(x0 + 6, y0 + 13, f"{_name(state, seat, names)[:30]}: {state.score[seat]} VP", 12, fill="#fff"))
    for i, name in enumerate(RESOURCES):
        x = x0 + 6 + i * 37
        out.append(
            "<g>" + title(f"{state.res[seat][i]} {name}") + rect(x, y0 + 24, 34, 16, _RESOURCE_FILL[name])
        )
        out.append(
            text(x + 17, y0 + 36, f"{name[:2]} {state.res[seat][i]}", 9, "middle", fill="#fff") + "</g>"
        )
    out.append(
        text(x0 + 6, y0 + 54, f"houses left {state.houses_left[seat]}, sacrifice {state.sac[seat]}", 9)
    )
    if state.solo and seat == 1:
        tiles = " ".join(PROPERTIES[t] for t in state.cj_tiles) or "none"
        out.append(text(x0 + 6, y0 + 70, f"tiles: {tiles}"[:44], 9))
        return out
    for cell in range(9):
        x, y = x0 + 6 + (cell % 3) * 72, y0 + 62 + (cell // 3) * 26
        tile = state.grid[seat][cell]
        if tile >= 0:
            bt = d.building_tiles[tile]
            out.append(
                rect(x, y, 68, 22, "#e9dcc0")
                + text(x + 4, y + 15, f"{RESOURCES[bt.basic]}+{RESOURCES[bt.advanced]}"[:13], 9)
            )
        else:
            printed = d.grid_advanced[cell]
            out.append(
                rect(x, y, 68, 22, "none", "#bbb")
                + text(x + 4, y + 15, f"({RESOURCES[printed]})" if printed >= 0 else "", 9, fill="#999")
            )
    if _sees(state, viewer, seat):
        hand = "hand: " + (" ".join(str(c) for c in state.hands[seat]) or "-")
    else:
        hand = f"hand: {len(state.hands[seat])} cards face down"
    out.append(text(x0 + 6, y0 + 156, hand, 10))
    pick = state.picks[seat]
    if pick >= 0:
        shown = pick if state.step != "pick" or _sees(state, viewer, seat) else "face down"
        out.append(text(x0 + 6, y0 + 172, f"played card: {shown}", 10))
    tiles = " ".join(d.trade_tiles[t].id for t in state.tiles_owned[seat])
    out.append(text(x0 + 6, y0 + 188, f"trade: {tiles or '-'}"[:44], 9))
    return out


def svg(state: ZapotecState, viewer: int | None = None, names: Sequence[str] = ()) -> str:
    """The position as an SVG document (string); ``viewer`` hides what that seat cannot see;
    ``names``: the seats' names, if known."""
    d = state.data
    step = "game over" if state.step == "over" else f"step {state.step}"
    head = f"Zapotec round {state.round}/{d.rounds}, {step}"
    if state.current >= 0 and state.step != "over":
        head += f", {_name(state, state.current, names)} to play"
    bonus = d.action_cards[state.bonus[-1]] if state.bonus else None
    body = [rect(0, 0, WIDTH, 10000, "#fff", "none"), text(10, 20, head, 14, font_weight="bold")]
    body.append(
        text(
            10,
            38,
            f"Bonus card {bonus.number if bonus else '-'}; offer {state.offer}; deck {len(state.deck)}",
            11,
        )
    )
    body += _map(state, 10, 64, names)
    body += _pyramids(state, 560, 64, names)
    body += _sacrifice(state, 560, 64 + 30 * max(1, len(state.pyr_tile)) + 22)
    body += _rituals(state, 580, 64 + 30 * max(1, len(state.pyr_tile)) + 90)
    for seat in range(state.seats):
        body += _seat(state, seat, viewer, 10 + seat * 236, 300, names)
    height = 506
    body[0] = rect(0, 0, WIDTH, height, "#fff", "none")
    return document(WIDTH, height, body, head)

"""The position drawn as SVG (the web arena's board): map, pyramids, Sacrifice track, rituals,
every seat's holdings. A pure function of the state, next to the text ``render``.

``viewer`` draws what that seat may see (others' hands and unrevealed picks stay face down, as
in ``observation.observe``); None is the referee's view of everything. Seats are numbered from 0,
as the arena numbers them; ``names`` (optional, one per seat) are shown beside the numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from engine.svg import box, circle, document, fit_size, rect, seat_colour, text, text_lines, title

from .data import PROPERTIES, RESOURCES, SIZES
from .render import card_text

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


def _map(state: ZapotecState, x0: int, y0: int, names: Sequence[str]) -> tuple[list[str], int]:
    d = state.data
    out = [text(x0, y0 - 6, "Map (rows: region, columns: terrain)", 11, font_weight="bold")]
    cell_w, cell_h = 150, 64
    for col, terrain in enumerate((6, 7, 8)):
        out.append(text(x0 + 70 + col * cell_w + cell_w / 2, y0 + 10, PROPERTIES[terrain], 11, "middle"))
    for row, region in enumerate((3, 4, 5)):
        y = y0 + 16 + row * cell_h
        out.append(text(x0, y + cell_h / 2 + 4, PROPERTIES[region], 11))
        for col, terrain in enumerate((6, 7, 8)):
            x = x0 + 70 + col * cell_w
            inner = []
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
                    f", {_name(state, owner, names)}" + (" palace" if palace else " house")
                    if owner >= 0
                    else ""
                )
                inner.append(
                    "<g>" + title(tip) + rect(sx, sy, 30, 24, fill, "#333", stroke_width=3 if palace else 1)
                )
                inner.append(text(sx + 4, sy + 11, _TYPE_LETTER[space.type] + ("*" if palace else ""), 10))
                if tile is not None and owner < 0:  # a free space: what building there yields
                    word = RESOURCES[tile.basic]
                    inner.append(text(sx + 3, sy + 21, word, fit_size(word, 25, 8, 6)))
                inner.append("</g>")
            out.append(box(x, y, cell_w - 4, cell_h - 4, inner, "#f3ead7", "#b9a57a"))
    legend = (
        "Legend: C cornfield, T temple, V village; a seat's colour = its House, outlined with * = its Palace "
        "(counts as 2 Houses); on a free space, the basic resource of its Building tile. A seat's "
        "Building tiles grid: basic+advanced resource of each tile placed; (gold) = the advanced "
        "resource printed on an empty square."
    )
    drawn, height = text_lines(x0, y0 + 16 + 3 * cell_h + 10, legend, 70 + 3 * cell_w - 4, 9)
    return out + drawn, int(16 + 3 * cell_h + height + 4)


def _pyramids(state: ZapotecState, x0: int, y0: int, names: Sequence[str]) -> tuple[list[str], int]:
    out = [text(x0, y0 - 6, "Pyramids", 11, font_weight="bold")]
    free = ", ".join(PROPERTIES[p] for p in state.scoring_avail) or "none"
    if not state.pyr_tile:
        drawn, height = text_lines(x0, y0 + 10, f"No Pyramid started yet. Scoring tiles free: {free}", 380, 9)
        return out + drawn, int(height + 4)
    for i, prop in enumerate(state.pyr_tile):
        y = y0 + i * 30
        inner = [text(x0 + 4, y + 17, f"{i + 1}. {PROPERTIES[prop]}", 10)]
        x = x0 + 90
        for piece in state.pyr_pieces[i]:
            seat, size = piece // 3, piece % 3
            side = _PIECE[size]
            inner.append("<g>" + title(f"{SIZES[size]} piece of {_name(state, seat, names)}"))
            inner.append(rect(x, y + 13 - side / 2, side, side, seat_colour(seat)) + "</g>")
            x += side + 3
        out.append(box(x0, y, 380, 26, inner, "#efe6cf", "#b9a57a"))
    drawn, height = text_lines(x0, y0 + 30 * len(state.pyr_tile) + 10, f"Scoring tiles free: {free}", 380, 9)
    return out + drawn, int(30 * len(state.pyr_tile) + height + 4)


def _sacrifice(state: ZapotecState, x0: int, y0: int) -> tuple[list[str], int]:
    d = state.data
    top = d.sacrifice_top
    step_w = min(34, 380 // (top + 1))
    out = [text(x0, y0 - 6, "Sacrifice track", 11, font_weight="bold")]
    for step in range(top + 1):
        out.append(rect(x0 + step * step_w, y0, step_w - 2, 30, "#f6dede", "#a55"))
        out.append(text(x0 + step * step_w + 2, y0 + 10, step, 8))
    for seat in range(state.seats):
        step = min(state.sac[seat], top)
        out.append(
            circle(x0 + step * step_w + 6 + 6 * (seat % 3), y0 + 18 + 6 * (seat // 3), 4, seat_colour(seat))
        )
    gains = []
    for step in range(1, top + 1):
        parts = [f"{d.sacrifice_vp[step]} VP"] if d.sacrifice_vp[step] else []
        parts += ["a basic resource"] * d.sacrifice_resource[step]
        level, gold = d.sacrifice_discount[step]
        parts += [f"level {level} Trade tiles {gold} gold cheaper"] if gold else []
        parts += ["a free Ritual disc"] if step == d.free_ritual_step else []
        if parts:
            gains.append(f"{step}: {', '.join(parts)}")
    drawn, height = text_lines(x0, y0 + 42, "Reaching a step gives: " + "; ".join(gains), 380, 8.5)
    return out + drawn, 36 + height


def _rituals(state: ZapotecState, x0: int, y0: int) -> tuple[list[str], int]:
    """The Ritual cards in play with their text (wrapped) and the discs placed on them."""
    d = state.data
    out = [text(x0, y0 - 6, "Rituals (discs: the seats that placed one)", 11, font_weight="bold")]
    y = y0
    for slot, card in enumerate(state.ritual_cards):
        ritual = d.rituals[card]
        discs = state.ritual_discs[slot]
        width = 380 - 10 * len(discs)
        drawn, height = text_lines(x0, y + 9, f"{ritual.id}: {ritual.text}", width, 9)
        out += drawn
        for k, seat in enumerate(discs):
            out.append(circle(x0 + 376 - 10 * k, y + 6, 4, seat_colour(seat)))
        y += int(height) + 3
    return out, y - y0


def _market(state: ZapotecState, x0: int, y0: int) -> tuple[list[str], int]:
    """The Trade-tile market: the face-up tiles of each level, with what each does."""
    d = state.data
    out = [
        text(
            x0,
            y0 + 11,
            "Trade tiles on offer (by level; price in gold before Sacrifice discounts)",
            11,
            font_weight="bold",
        )
    ]
    per_row = max(len(row) for row in state.display) or 1
    box_w = (WIDTH - 20 - 80 - 4 * (per_row - 1)) / per_row
    rows = []
    for row in state.display:
        texts = [text_lines(0, 0, d.trade_tiles[t].text, box_w - 10, 8.5)[0] if t >= 0 else [] for t in row]
        rows.append(22 + 8.5 * 1.25 * max((len(lines) for lines in texts), default=0))
    y = y0 + 18
    for level, row in enumerate(state.display):
        left = len(state.stacks[level])
        label = f"level {level + 1}, {d.trade_cost[level]} gold"
        out.append(text(x0, y + 12, label, 9))
        out.append(text(x0, y + 24, f"stack {left}", 9, fill="#666"))
        for k, t in enumerate(row):
            x = x0 + 80 + k * (box_w + 4)
            if t < 0:
                out.append(
                    box(
                        x,
                        y,
                        box_w,
                        rows[level],
                        [text(x + 5, y + 13, "(empty)", 9, fill="#999")],
                        "none",
                        "#bbb",
                    )
                )
                continue
            tile = d.trade_tiles[t]
            inner = [
                text(x + 5, y + 12, f"{tile.id} ({tile.usage.replace('_', ' ')})", 9, font_weight="bold")
            ]
            inner += text_lines(x + 5, y + 24, tile.text, box_w - 10, 8.5)[0]
            out.append(box(x, y, box_w, rows[level], inner, "#eef6ee", "#6a9a6a"))
        y += int(rows[level]) + 4
    return out, y - y0


def _seat(
    state: ZapotecState, seat: int, viewer: int | None, x0: int, y0: int, names: Sequence[str]
) -> tuple[list[str], int]:
    """One seat's box; with the height its content needs."""
    d = state.data
    box_w = 228
    inner = [rect(x0, y0, box_w, 18, seat_colour(seat), seat_colour(seat))]
    label = f"{_name(state, seat, names)}: {state.score[seat]} VP"
    inner.append(text(x0 + 5, y0 + 13, label, fit_size(label, box_w - 10, 12), fill="#fff"))
    for i, name in enumerate(RESOURCES):
        x = x0 + 4 + i * 37
        chip = f"{name} {state.res[seat][i]}"
        inner.append(
            "<g>" + title(f"{state.res[seat][i]} {name}") + rect(x, y0 + 24, 35, 16, _RESOURCE_FILL[name])
        )
        inner.append(text(x + 17.5, y0 + 35, chip, fit_size(chip, 33, 9, 6), "middle", fill="#fff") + "</g>")
    pieces = "/".join(str(n) for n in state.pieces[seat])
    status = f"houses left {state.houses_left[seat]}, sacrifice step {state.sac[seat]}, pyramid pieces L/M/S {pieces}"
    inner.append(text(x0 + 6, y0 + 54, status, fit_size(status, box_w - 12, 9, 6)))
    y = y0 + 62
    lines: list[str] = []
    if state.solo and seat == 1:
        lines.append(
            "Building tiles collected: " + (", ".join(PROPERTIES[t] for t in state.cj_tiles) or "none")
        )
        if state.cj_card >= 0:
            card = d.cocijobot_deck[state.cj_card]
            lines.append(f"Cocijobot card {card.number}: {card.action}")
    else:
        caption = "Building tiles (basic+advanced; empty: (printed advanced))"
        inner.append(text(x0 + 6, y + 8, caption, fit_size(caption, box_w - 12, 8, 6), fill="#555"))
        y += 12
        for cell in range(9):
            x, cy = x0 + 6 + (cell % 3) * 72, y + (cell // 3) * 26
            tile = state.grid[seat][cell]
            if tile >= 0:
                bt = d.building_tiles[tile]
                pair = f"{RESOURCES[bt.basic]}+{RESOURCES[bt.advanced]}"
                inner.append(
                    rect(x, cy, 68, 22, "#e9dcc0") + text(x + 3, cy + 15, pair, fit_size(pair, 62, 9, 6))
                )
            else:
                printed = d.grid_advanced[cell]
                inner.append(
                    rect(x, cy, 68, 22, "none", "#bbb")
                    + text(x + 4, cy + 15, f"({RESOURCES[printed]})" if printed >= 0 else "", 9, fill="#999")
                )
        y += 3 * 26 + 4
        if _sees(state, viewer, seat):
            hand = ", ".join(_card(state, c) for c in state.hands[seat]) or "-"
            lines.append(f"hand: {hand}")
        else:
            lines.append(f"hand: {len(state.hands[seat])} cards face down")
        pick = state.picks[seat]
        if pick >= 0:
            shown = _card(state, pick) if state.step != "pick" or _sees(state, viewer, seat) else "face down"
            lines.append(f"played card: {shown}")
    tiles = [
        d.trade_tiles[t].id + (" (used)" if t in state.tiles_down[seat] else "")
        for t in state.tiles_owned[seat]
    ]
    lines.append(f"trade tiles: {', '.join(tiles) or '-'}")
    for line in lines:
        drawn, height = text_lines(x0 + 6, y + 10, line, box_w - 12, 9)
        inner += drawn
        y += int(height) + 2
    return inner, y + 6 - y0


def _card(state: ZapotecState, number: int) -> str:
    """An Action card: '7 (wood, plains)': its number, income resource and building property."""
    return card_text(state, number)


def _cards(state: ZapotecState, x0: int, y0: int, names: Sequence[str]) -> tuple[list[str], int]:
    """The bonus card, the offer, the cards played this round (each with its income and property)."""
    parts = [f"Bonus card (turn scoring): {_card(state, state.bonus[-1]) if state.bonus else '-'}"]
    parts.append("offer: " + (", ".join(_card(state, c) for c in state.offer) or "-"))
    parts.append(f"deck {len(state.deck)} cards")
    if state.step != "pick":
        played = [
            f"{_name(state, s, names)} {_card(state, state.picks[s])}"
            for s in range(state.players)
            if state.picks[s] >= 0
        ]
        if played:
            parts.append("played: " + ", ".join(played))
    drawn, height = text_lines(
        x0, y0 + 10, "; ".join(parts) + ". Card: number (income resource, building property).", WIDTH - 20, 10
    )
    return drawn, int(height)


def svg(state: ZapotecState, viewer: int | None = None, names: Sequence[str] = ()) -> str:
    """The position as an SVG document (string); ``viewer`` hides what that seat cannot see;
    ``names``: the seats' names, if known."""
    d = state.data
    step = "game over" if state.step == "over" else f"step {state.step}"
    head = f"Zapotec round {state.round}/{d.rounds}, {step}"
    if state.current >= 0 and state.step != "over":
        head += f", {_name(state, state.current, names)} to play"
    body = [
        rect(0, 0, WIDTH, 10, "#fff", "none"),
        text(10, 20, head, fit_size(head, WIDTH - 20, 14), font_weight="bold"),
    ]
    part, height = _cards(state, 10, 28, names)
    body += part
    y = 28 + height + 20
    part, map_h = _map(state, 10, y, names)
    body += part
    right_y = y
    part, height = _pyramids(state, 560, right_y, names)
    for drawn_part in (_sacrifice, _rituals):
        body += part
        right_y += height + 22
        part, height = drawn_part(state, 560, right_y)
    body += part
    right_y += height + 22
    y = max(y + map_h, right_y - 16) + 6
    part, height = _market(state, 10, y)
    body += part
    y += height + 8
    seats = [_seat(state, seat, viewer, 10 + seat * 236, y, names) for seat in range(state.seats)]
    tallest = max(height for _, height in seats)  # every seat's box as tall as the tallest
    for seat, (inner, _) in enumerate(seats):
        body.append(
            box(10 + seat * 236, y, 228, tallest, inner, "#fafafa", seat_colour(seat), stroke_width=2)
        )
    y += tallest + 10
    body[0] = rect(0, 0, WIDTH, y, "#fff", "none")
    return document(WIDTH, y, body, head)

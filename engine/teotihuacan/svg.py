"""The position drawn as SVG (the web arena's board): the eight action boards with the workers
and their powers, the temples (the expansion's orange one too) with their Bonus tiles, avenue and
pyramid tracks, the pyramid, the Technologies, the Royal tiles, each seat's holdings, Teotibot's
action pyramid and the Late Preclassic modules' parts. A pure function of the state, next to the
text ``render``.

Nothing drawn here is hidden from any seat (the face-down stacks and dealt Starting tiles are not
drawn), so ``viewer`` only labels the picture; it is accepted for the same call as every engine.
Seats are numbered from 0, as the arena numbers them; ``names`` (optional, one per seat: the
agents' names where the arena knows them) are shown beside the numbers. Every text is wrapped to
its box (engine/svg.py), never cut.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.svg import box, circle, document, fit_size, rect, seat_colour, text, text_lines, title

from . import modules
from .data import DATA, RESOURCES, SIDES, TEMPLES
from .expansion_data import EXP, ORANGE, TEMPLE_NAMES
from .preclassic import height as height_module
from .render import DICE_POSITION, DIRECTION_SIDES, TILE_NAMES, nobles_text
from .rules.effects import describe_gain, tile_name

WIDTH = 960
_TEMPLE_FILL = ("#3b6fd1", "#c8402f", "#3a9d4a", "#e08a1e")
_ICON_FILL = {"b": "#9db7ea", "r": "#eaa39a", "g": "#a5d6a7", "w": "#f5f5f5", ".": "#d8cdb8"}
_EFFECTS = {
    kind: {tile["number"]: tile["effect"] for tile in DATA.raw[kind]}
    for kind in ("royal_tiles", "technology_tiles", "temple_bonus_tiles")
}
_ORANGE_STEP = {
    "start": "start",
    "ability": "a Special Ability",
    "move_back": "move a worker 1-2 boards back",
    "major": "a discovery tile or",
    "minor": "",
    "bonus_tile": "its Temple Bonus tile",
    "top": "top:",
}


def _worker_colour(state, worker: int) -> str:
    colour = worker // 4
    return seat_colour(colour) if colour < state.n else "#8a8a8a"


def seat_label(seat: int, names: Sequence[str]) -> str:
    """'seat 0', or 'seat 0 flatmc' when the seat's name is known."""
    name = names[seat] if seat < len(names) else ""
    return f"seat {seat} {name}" if name else f"seat {seat}"


def _boards(state, x0: int, y0: int, names: Sequence[str]) -> tuple[list[str], int]:
    """The eight action boards in their clockwise ring; with the height they take."""
    box_w = 232
    notes = {}
    for place in range(1, 9):
        board = state.place_board[place]
        lines = []
        if board in (1, 2, 3, 4, 7):
            tile = state.d_offer[(1, 2, 3, 4, 7).index(board)]
            lines.append(f"discovery tile: {tile_name(tile) if tile else '-'}")
        if board == 1:
            lines.append("Royal tiles: " + ", ".join(f"{r:02d}" for r in state.royal))
        notes[place] = lines
    parts = {
        place: [text_lines(0, 0, line, box_w - 12, 9)[0] for line in lines] for place, lines in notes.items()
    }
    most = max(sum(len(p) for p in lines) for lines in parts.values())
    box_h = 80 + 11 * most
    out = []
    for place in range(1, 9):
        board = state.place_board[place]
        # Clockwise ring: places 1-4 along the top row, 5-8 back along the bottom row.
        col, row = (place - 1, 0) if place <= 4 else (8 - place, 1)
        x, y = x0 + col * (box_w + 4), y0 + row * (box_h + 4)
        inner = [text(x + 6, y + 14, f"{place}. {modules.board_name(state, board)}", 11, font_weight="bold")]
        k = 0
        for worker in range(16):
            if state.wb[worker] != board:
                continue
            space = state.ws[worker]
            wx, wy = x + 6 + (k % 8) * 27, y + 22 + (k // 8) * 27
            who = seat_label(worker // 4, names) if worker // 4 < state.n else "neutral"
            where = "" if space < 0 else (" on a Royal tile" if space < 3 else " locked on a worship space")
            inner.append("<g>" + title(f"{who} worker, power {state.wp[worker]}{where}"))
            inner.append(
                rect(
                    wx,
                    wy,
                    23,
                    23,
                    _worker_colour(state, worker),
                    "#111",
                    stroke_width=3 if space >= 0 else 1,
                    rx=4,
                )
            )
            inner.append(
                text(wx + 11.5, wy + 16, state.wp[worker], 12, "middle", fill="#fff", font_weight="bold")
                + "</g>"
            )
            k += 1
        line_y = y + 86.0
        for line in notes[place]:
            drawn, height = text_lines(x + 6, line_y, line, box_w - 12, 9, leading=11 / 9)
            inner += drawn
            line_y += height
        out.append(box(x, y, box_w, box_h, inner, "#f4efe3", "#9b8a5e"))
    return out, 2 * box_h + 4


def _track(
    x0: float, y0: float, label: str, values: list[int], top: int, fill: str, step_w: int = 20
) -> list[str]:
    out = [text(x0, y0 + 13, label, 10)]
    x1 = x0 + 84
    for step in range(top + 1):
        out.append(rect(x1 + step * step_w, y0, step_w - 2, 18, fill, "#777"))
        out.append(text(x1 + step * step_w + 2, y0 + 8, step, 7))
    for seat, value in enumerate(values):
        out.append(circle(x1 + min(value, top) * step_w + 4 + 4 * seat, y0 + 13, 3.5, seat_colour(seat)))
    return out


def _tracks(state, x0: int, y0: int) -> tuple[list[str], int]:
    out = []
    y = y0
    for t in range(state.nt):
        values = [state.temple[s * state.nt + t] for s in range(state.n)]
        top = DATA.top_step if t != ORANGE else EXP.orange_top
        out += _track(x0, y, f"{TEMPLE_NAMES[t]} temple", values, top, _TEMPLE_FILL[t] + "33")
        y += 24
    out += _track(x0, y, "avenue", list(state.avenue[: state.n]), DATA.avenue_max, "#eee")
    out += _track(x0, y + 24, "pyramid track", list(state.ptrack[: state.n]), DATA.pyramid_track_max, "#eee")
    return out, y + 48 - y0


def _notes(state, x0: int, y0: int, width: int) -> tuple[list[str], int]:
    """Wrapped lines under the tracks: Buildings and Nobles, Temple Bonus tiles, Royal tiles, the
    orange temple's steps."""
    paid = DATA.building_numbers[min(state.buildings_taken, len(DATA.building_numbers) - 1)]
    lines = [
        f"Buildings taken {state.buildings_taken} (Avenue pays {paid} VP a step at the Eclipse). "
        f"Nobles rows, printed VP (B = built): {nobles_text(state)}",
        "Temple Bonus tiles: "
        + "; ".join(
            f"{TEMPLE_NAMES[t]} {number}: {_EFFECTS['temple_bonus_tiles'].get(number, '?')}"
            for t, number in enumerate(state.bonus)
        ),
        "Royal tiles (Palace): "
        + "; ".join(f"{number:02d} {_EFFECTS['royal_tiles'].get(number, '?')}" for number in state.royal),
    ]
    lines.append(
        "Discovery tiles on the Avenue (steps 3/6/8): "
        + "; ".join(", ".join(tile_name(t) for t in spot) or "-" for spot in state.d_avenue)
    )
    majors = [
        f"{TEMPLES[t]} {step}: " + (", ".join(tile_name(x) for x in stack) or "-")
        for (t, step, _), stack in zip(DATA.temple_discovery, state.d_temple, strict=False)
    ]
    lines.append("Discovery tiles on the temples' major steps: " + "; ".join(majors))
    if state.nt > ORANGE:
        steps = []
        for pos, (kind, reward) in enumerate(EXP.orange_table):
            what = " ".join(
                part
                for part in (_ORANGE_STEP.get(str(kind), str(kind)), describe_gain(reward) if reward else "")
                if part
            )
            steps.append(f"{pos} {what}")
        tiles = ", ".join(tile_name(t) for t in state.d_temple[-1]) or "-"
        lines.append(
            f"Orange temple steps: {'; '.join(steps)}. Discovery tiles of step {EXP.orange_major}: {tiles}"
        )
    out = []
    y = y0
    for line in lines:
        drawn, height = text_lines(x0, y + 10, line, width, 9)
        out += drawn
        y += height + 3
    return out, y - y0


def _pyramid(state, x0: int, y0: int) -> tuple[list[str], int]:
    cell = 20
    out = [text(x0, y0 + 10, "Pyramid", 11, font_weight="bold")]
    top = y0 + 16
    for index, icon in enumerate(state.grid):
        x, y = x0 + (index % 8) * cell, top + (index // 8) * cell
        fill = _ICON_FILL.get(icon.lower(), "#ccc")
        out.append(rect(x, y, cell, cell, fill, "#555", stroke_width=2 if icon.isupper() else 0.5))
        if icon != ".":
            out.append(text(x + cell / 2, y + 14, icon, 10, "middle"))
    placed = sum(1 for p in state.pyr_pos if p >= 0)
    out.append(text(x0, top + 8 * cell + 12, f"pyramid tiles placed {placed}/30", 10))
    legend = (
        "Legend: each square shows the icon on top: b blue, r red, g green, w white (any colour); "
        "upper case = a coloured square, its icon matched; beige = no tile yet."
    )
    side_x = x0 + 8 * cell + 10
    drawn, height = text_lines(side_x, top + 10, legend, WIDTH - 10 - side_x, 9)
    out += drawn
    y = top + height + 10
    out.append(text(side_x, y + 10, "Pyramid tiles on offer:", 9))
    for k, tid in enumerate(state.pyr_offer):
        if tid:  # TL, TR, BR, BL as a 2x2 square
            icons = DATA.pyramid_tiles[tid]
            for square, (dx, dy) in enumerate(((0, 0), (1, 0), (1, 1), (0, 1))):
                out.append(_icon(side_x + k * 30 + dx * 12, y + 16 + dy * 12, icons[square]))
    y += 48
    out.append(text(side_x, y + 10, "Decorations on offer:", 9))
    for k, tid in enumerate(state.deco_offer):
        if tid:
            for square, icon in enumerate(DATA.deco_tiles[tid]):
                out.append(_icon(side_x + k * 30 + square * 12, y + 16, icon))
    y += 34
    on_sides = ", ".join(
        f"{side} {sum(1 for i in range(4) if state.deco_space[s * 4 + i])}" for s, side in enumerate(SIDES)
    )
    drawn, height = text_lines(
        side_x, y + 10, f"Decorations placed on the sides: {on_sides}", WIDTH - 10 - side_x, 9
    )
    out += drawn
    return out, max(16 + 8 * cell + 16, y + height - y0)


def _icon(x: float, y: float, icon: str) -> str:
    """One 12-pixel square of a pyramid or decoration tile, in its icon's colour (outlined: coloured)."""
    return rect(
        x,
        y,
        12,
        12,
        _ICON_FILL.get(icon.lower(), "#ccc"),
        "#555",
        stroke_width=1.5 if icon.isupper() else 0.5,
    )


def _technologies(state, x0: int, y0: int) -> tuple[list[str], int]:
    """The six Technology tiles (Alchemy's board): number, gold price, effect, owners' markers."""
    count = len(state.tech)
    box_w = (WIDTH - 20 - 4 * (count - 1)) / count
    effects = [
        text_lines(0, 0, _EFFECTS["technology_tiles"].get(n, "?"), box_w - 10, 8.5)[0] for n in state.tech
    ]
    box_h = 38 + 8.5 * 1.25 * max(len(lines) for lines in effects)
    out = [
        text(x0, y0 + 11, "Technologies (Alchemy); markers: the seats that own each", 11, font_weight="bold")
    ]
    for pos, number in enumerate(state.tech):
        x, y = x0 + pos * (box_w + 4), y0 + 16
        temple = TEMPLES[DATA.tech_columns[pos % 3]]
        inner = [
            text(
                x + 5,
                y + 13,
                f"{number:02d} ({DATA.tech_gold[number]} gold, {temple} step)",
                9,
                font_weight="bold",
            )
        ]
        inner += text_lines(x + 5, y + 26, _EFFECTS["technology_tiles"].get(number, "?"), box_w - 10, 8.5)[0]
        for k, seat in enumerate(s for s in range(state.n) if state.tech_marks[pos] >> s & 1):
            inner.append(circle(x + box_w - 8 - 10 * k, y + 9, 4, seat_colour(seat)))
        out.append(box(x, y, box_w, box_h, inner, "#f7f2fb", "#8a6fae"))
    return out, int(16 + box_h)


def _seats(state, x0: int, y0: int, names: Sequence[str]) -> tuple[list[str], int]:
    box_w = 230
    contents = []
    for seat in range(state.n):
        res = ", ".join(f"{state.res[seat * 3 + i]} {RESOURCES[i]}" for i in range(3))
        temples = ", ".join(f"{TEMPLE_NAMES[t]} {state.temple[seat * state.nt + t]}" for t in range(state.nt))
        tiles = [
            tile_name(t) + (" used" if state.d_used[t] else "")
            for t in range(1, 55)
            if state.d_owner[t] == seat
        ]
        lines = [
            f"{state.cocoa[seat]} cocoa, {res}",
            f"temples: {temples}",
            f"avenue {state.avenue[seat]}, pyramid track {state.ptrack[seat]}",
            f"discovery tiles: {', '.join(tiles) or '-'}",
        ]
        if state.nt > ORANGE and seat != state.bot:
            ability_text = height_module.ability_text  # only with the expansion's M2 in play

            held = [ability_text(i) for i in range(len(EXP.abilities)) if state.ability[seat] >> i & 1]
            lines.append(f"Special Abilities: {'; '.join(held) or '-'}")
        contents.append(lines)
    wrapped = [[text_lines(0, 0, line, box_w - 12, 10)[0] for line in lines] for lines in contents]
    box_h = 26 + 12.5 * max(sum(len(w) for w in lines) for lines in wrapped)
    out = []
    for seat in range(state.n):
        x = x0 + seat * (box_w + 6)
        who = seat_label(seat, names)
        role = " Teotibot" if seat == state.bot and "teotibot" not in who.lower() else ""
        role += " (first player)" if state.order(seat) == 0 else ""
        label = f"{who}{role}: {state.vp[seat]} VP"
        inner = [rect(x, y0, box_w, 18, seat_colour(seat), seat_colour(seat))]
        inner.append(text(x + 5, y0 + 13, label, fit_size(label, box_w - 10, 12), fill="#fff"))
        y = y0 + 32.0
        for line in contents[seat]:
            drawn, height = text_lines(x + 6, y, line, box_w - 12, 10)
            inner += drawn
            y += height
        out.append(box(x, y0, box_w, box_h, inner, "#fafafa", seat_colour(seat), stroke_width=2))
    return out, int(box_h)


def _teotibot(state, x0: int, y0: int) -> tuple[list[str], int]:
    """Teotibot's action pyramid (the dice sums that pick each tile), set-aside tile, Direction tiles."""
    out = [
        text(
            x0,
            y0 + 11,
            "Teotibot's action pyramid (the dice sums that pick each tile)",
            11,
            font_weight="bold",
        )
    ]
    cell_w, cell_h = 150, 30
    rows = ((0,), (1, 2), (3, 4, 5))
    for r, row in enumerate(rows):
        for k, pos in enumerate(row):
            x = x0 + (3 - len(row)) * cell_w / 2 + k * cell_w + 2
            y = y0 + 18 + r * (cell_h + 2)
            sums = "/".join(str(s) for s, p in DICE_POSITION.items() if p == pos)
            inner = [
                text(x + 5, y + 12, f"dice {sums}" if sums else "no roll picks it", 9),
                text(x + 5, y + 24, TILE_NAMES[state.act_pyr[pos]] or "(empty)", 10),
            ]
            out.append(box(x, y, cell_w - 4, cell_h, inner, "#eef3fb", "#6a86b8"))
    side_x = x0 + 3 * cell_w + 16
    line = (
        f"Set aside: {TILE_NAMES[state.act_aside]}. Direction tiles (top first): "
        + ", ".join(DIRECTION_SIDES[d] for d in state.dirs)
        + (f". Last roll: {state.roll}" if state.roll else "")
    )
    drawn, _ = text_lines(side_x, y0 + 32, line, WIDTH - 10 - side_x, 10)
    return out + drawn, 18 + 3 * (cell_h + 2)


def _module_lines(state, x0: int, y0: int) -> tuple[list[str], int]:
    """The Season tile and the priest tiles (M3, M1) as wrapped text; M2 is drawn in place."""
    hooks = [hook for hook in state.rules.hooks["render"] if hook.fn.__module__ != height_module.__name__]
    lines = [line.strip() for hook in hooks for line in hook.fn(state)]
    out = []
    y = y0
    for line in lines:
        drawn, height = text_lines(x0, y + 10, line, WIDTH - 20, 10)
        out += drawn
        y += height + 2
    return out, int(y - y0)


def svg(state, viewer: int | None = None, names: Sequence[str] = ()) -> str:
    """The position as an SVG document (string); ``names``: the seats' names, if known."""
    head = (
        f"Teotihuacan, {state.n} players. Calendar: light {state.light} / dark {state.dark}, "
        f"Eclipses scored {state.eclipses}" + (", GAME OVER" if state.over else "")
    )
    body = [
        rect(0, 0, WIDTH, 10, "#fff", "none"),
        text(10, 20, head, fit_size(head, WIDTH - 20, 14), font_weight="bold"),
    ]
    y = 26
    seats = state.to_act()
    if seats:
        many = (
            "choose Starting tiles" if state.stack[-1][0] == "start-pick" else state.decision(seats[0]).prompt
        )
        prompt = state.decision(seats[0]).prompt if len(seats) == 1 else many
        who = ", ".join(seat_label(s, names) for s in seats)
        drawn, height = text_lines(10, y + 10, f"To act: {who}: {prompt}", WIDTH - 20, 11)
        body += drawn
        y += int(height)
    y += 6
    part, height = _boards(state, 10, y, names)
    body += part
    y += height + 12
    tracks, track_h = _tracks(state, 10, y)
    notes, notes_h = _notes(state, 10, y + track_h + 4, 520)
    pyramid, pyramid_h = _pyramid(state, 560, y - 4)
    body += tracks + notes + pyramid
    y += max(track_h + 4 + notes_h, pyramid_h) + 8
    part, height = _technologies(state, 10, y)
    body += part
    y += height + 10
    part, height = _seats(state, 10, y, names)
    body += part
    y += height + 10
    if state.bot >= 0:
        part, height = _teotibot(state, 10, y)
        body += part
        y += height + 8
    if state.mods:
        part, height = _module_lines(state, 10, y)
        body += part
        y += height + 6
    body[0] = rect(0, 0, WIDTH, y, "#fff", "none")
    return document(WIDTH, y, body, head)

"""The position drawn as SVG (the web arena's board): the eight action boards with the workers
and their powers, temples, avenue and pyramid tracks, the pyramid, calendar and each seat's
holdings. A pure function of the state, next to the text ``render``.

Nothing drawn here is hidden from any seat (the face-down stacks and dealt Starting tiles are not
drawn), so ``viewer`` only labels the picture; it is accepted for the same call as every engine.
Seats are numbered from 0, as the arena numbers them; ``names`` (optional, one per seat: the
agents' names where the arena knows them) are shown beside the numbers.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.svg import circle, document, rect, seat_colour, text, title

from . import modules
from .data import DATA, RESOURCES, TEMPLES
from .expansion_data import TEMPLE_NAMES
from .render import nobles_text
from .rules.effects import tile_name

WIDTH = 960
_TEMPLE_FILL = ("#3b6fd1", "#c8402f", "#3a9d4a")
_ICON_FILL = {"b": "#9db7ea", "r": "#eaa39a", "g": "#a5d6a7", "w": "#f5f5f5", ".": "#d8cdb8"}


def _worker_colour(state, worker: int) -> str:
    colour = worker // 4
    return seat_colour(colour) if colour < state.n else "#8a8a8a"


def seat_label(seat: int, names: Sequence[str]) -> str:
    """'seat 0', or 'seat 0 flatmc' when the seat's name is known."""
    name = names[seat] if seat < len(names) else ""
    return f"seat {seat} {name}" if name else f"seat {seat}"


def _boards(state, x0: int, y0: int, names: Sequence[str]) -> list[str]:
    out = []
    box_w, box_h = 232, 96
    for place in range(1, 9):
        board = state.place_board[place]
        # Clockwise ring: places 1-4 along the top row, 5-8 back along the bottom row.
        col, row = (place - 1, 0) if place <= 4 else (8 - place, 1)
        x, y = x0 + col * (box_w + 4), y0 + row * (box_h + 4)
        out.append(rect(x, y, box_w, box_h, "#f4efe3", "#9b8a5e"))
        out.append(
            text(x + 6, y + 14, f"{place}. {modules.board_name(state, board)}", 11, font_weight="bold")
        )
        k = 0
        for worker in range(16):
            if state.wb[worker] != board:
                continue
            space = state.ws[worker]
            wx, wy = x + 6 + (k % 8) * 27, y + 22 + (k // 8) * 27
            who = seat_label(worker // 4, names) if worker // 4 < state.n else "neutral"
            where = "" if space < 0 else (" on a Royal tile" if space < 3 else " locked on a worship space")
            out.append("<g>" + title(f"{who} worker, power {state.wp[worker]}{where}"))
            out.append(
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
            out.append(
                text(wx + 11.5, wy + 16, state.wp[worker], 12, "middle", fill="#fff", font_weight="bold")
                + "</g>"
            )
            k += 1
        extra = ""
        if board in (1, 2, 3, 4, 7):
            tile = state.d_offer[(1, 2, 3, 4, 7).index(board)]
            extra = f"tile: {tile_name(tile) if tile else '-'}"
        if board == 1:
            extra += "  Royal " + ", ".join(f"{r:02d}" for r in state.royal)
        out.append(text(x + 6, y + box_h - 8, extra[:42], 9))
    return out


def _track(
    state, x0: int, y0: int, label: str, values: list[int], top: int, fill: str, step_w: int = 20
) -> list[str]:
    out = [text(x0, y0 + 12, label, 10)]
    x1 = x0 + 70
    for step in range(top + 1):
        out.append(rect(x1 + step * step_w, y0, step_w - 2, 18, fill, "#777"))
        out.append(text(x1 + step * step_w + 2, y0 + 8, step, 7))
    for seat, value in enumerate(values):
        out.append(circle(x1 + min(value, top) * step_w + 4 + 4 * seat, y0 + 13, 3.5, seat_colour(seat)))
    return out


def _pyramid(state, x0: int, y0: int) -> list[str]:
    out = [text(x0, y0 - 6, "Pyramid (upper case = coloured)", 10)]
    cell = 20
    for index, icon in enumerate(state.grid):
        x, y = x0 + (index % 8) * cell, y0 + (index // 8) * cell
        fill = _ICON_FILL.get(icon.lower(), "#ccc")
        out.append(rect(x, y, cell, cell, fill, "#555", stroke_width=2 if icon.isupper() else 0.5))
        if icon != ".":
            out.append(text(x + cell / 2, y + 14, icon, 10, "middle"))
    placed = sum(1 for p in state.pyr_pos if p >= 0)
    out.append(text(x0, y0 + 8 * cell + 12, f"tiles placed {placed}/30", 10))
    return out


def _seats(state, x0: int, y0: int, names: Sequence[str]) -> list[str]:
    out = []
    for seat in range(state.n):
        x = x0 + seat * 236
        out.append(rect(x, y0, 230, 90, "#fafafa", seat_colour(seat), stroke_width=2))
        out.append(rect(x, y0, 230, 18, seat_colour(seat), seat_colour(seat)))
        who = seat_label(seat, names)
        role = " Teotibot" if seat == state.bot and "teotibot" not in who.lower() else ""
        role += " (first player)" if state.order(seat) == 0 else ""
        label = f"{who[:24]}{role}: {state.vp[seat]} VP"
        out.append(text(x + 6, y0 + 13, label, 12 if len(label) <= 30 else 10, fill="#fff"))
        res = ", ".join(f"{state.res[seat * 3 + i]} {RESOURCES[i]}" for i in range(3))
        out.append(text(x + 6, y0 + 34, f"{state.cocoa[seat]} cocoa, {res}", 10))
        temples = ", ".join(f"{TEMPLE_NAMES[t]} {state.temple[seat * state.nt + t]}" for t in range(state.nt))
        out.append(text(x + 6, y0 + 50, f"temples {temples}", 10))
        tiles = [tile_name(t) for t in range(1, 55) if state.d_owner[t] == seat]
        out.append(text(x + 6, y0 + 66, f"tiles: {', '.join(tiles) or '-'}"[:44], 9))
        out.append(
            text(x + 6, y0 + 80, f"avenue {state.avenue[seat]}, pyramid track {state.ptrack[seat]}", 10)
        )
    return out


def svg(state, viewer: int | None = None, names: Sequence[str] = ()) -> str:
    """The position as an SVG document (string); ``names``: the seats' names, if known."""
    head = (
        f"Teotihuacan, {state.n} players. Calendar: light {state.light} / dark {state.dark}, "
        f"Eclipses scored {state.eclipses}" + (", GAME OVER" if state.over else "")
    )
    body = [rect(0, 0, WIDTH, 10, "#fff", "none"), text(10, 20, head, 14, font_weight="bold")]
    seats = state.to_act()
    if seats:
        many = "choose Starting tiles" if state.stack[-1][0] == "start-pick" else state.decision(seats[0]).prompt
        prompt = state.decision(seats[0]).prompt if len(seats) == 1 else many
        who = ", ".join(seat_label(s, names) for s in seats)
        body.append(text(10, 38, f"To act: {who}: {prompt}"[:140], 11))
    body += _boards(state, 10, 48, names)
    y = 260
    for t in range(len(TEMPLES)):  # the orange temple (M2) is in the seat boxes
        values = [state.temple[s * state.nt + t] for s in range(state.n)]
        body += _track(
            state, 10, y + t * 24, f"{TEMPLES[t]} temple", values, DATA.top_step, _TEMPLE_FILL[t] + "33"
        )
    body += _track(state, 10, y + 72, "avenue", list(state.avenue[: state.n]), DATA.avenue_max, "#eee")
    body += _track(
        state, 10, y + 96, "pyramid", list(state.ptrack[: state.n]), DATA.pyramid_track_max, "#eee"
    )
    body.append(
        text(
            10,
            y + 136,
            f"Buildings taken {state.buildings_taken} (Avenue pays "
            f"{DATA.building_numbers[min(state.buildings_taken, len(DATA.building_numbers) - 1)]}/step); "
            f"Nobles {nobles_text(state)}",
            10,
        )
    )
    body += _pyramid(state, 560, y + 6)
    body += _seats(state, 10, 440, names)
    height = 550
    if state.bot >= 0:
        from .render import teotibot_lines

        for k, line in enumerate(teotibot_lines(state)):
            body.append(text(10, height + 14 * k, line, 9, font_family="monospace", xml_space="preserve"))
        height += 14 * 5 + 6
    if state.mods:  # the modules' lines of render(): Season tile, ...
        lines = modules.render_lines(state)
        for k, line in enumerate(lines):
            body.append(
                text(10, height + 14 * k, line[:160], 9, font_family="monospace", xml_space="preserve")
            )
        height += 14 * len(lines) + 6
    body[0] = rect(0, 0, WIDTH, height, "#fff", "none")
    return document(WIDTH, height, body, head)

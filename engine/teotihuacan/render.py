"""A plain-text view of the board, and readable log events."""

from __future__ import annotations

from . import modules
from .core import TeoCore
from .data import DATA, RESOURCES, SIDES, TEMPLES
from .expansion_data import TEMPLE_NAMES
from .icons import icons_text
from .rules.effects import tile_name
from .teotibot.rules import DICE_POSITION, TILE_NAMES
from .teotibot.rules import SIDES as DIRECTION_SIDES

BOARD = DATA.board_names


def phase(st: TeoCore) -> str:
    """The part of the game the position is in: its era, the moves up to the next Eclipse (the
    match viewer's headings)."""
    return f"until Eclipse {st.eclipses + 1}"


def event_text(st: TeoCore, event: tuple) -> dict:
    """One log entry as a dict: who, what kind, and the option taken in words."""
    seat, kind, text = event
    return {"seat": seat, "kind": kind, "text": text}


def nobles_text(st: TeoCore) -> str:
    """The Nobles rows, top first: each space's printed VP, or B where a Building stands."""
    return " / ".join(
        " ".join("B" if st.nob_taken[r] >> k & 1 else str(vp) for k, vp in enumerate(row))
        for r, row in enumerate(DATA.noble_rows)
    )


def _tiles_text(offer: list[int], icons: dict) -> str:
    """An offer of Pyramid or Decoration tiles in words: ``#28 (blue, blank, coloured red, green); -``."""
    return "; ".join(f"#{tile} ({icons_text(icons[tile])})" if tile else "-" for tile in offer) or "none"


def render(st: TeoCore) -> str:
    """The position as text: calendar, boards with workers, pyramid, players."""
    lines = []
    lines.append(
        f"Teotihuacan, {st.n} players. Calendar: light {st.light} / dark {st.dark}, "
        f"Eclipses scored {st.eclipses}"
        + (", Eclipse pending" if st.pending >= 0 else "")
        + (", GAME OVER" if st.over else "")
    )
    lines.append(
        f"Buildings taken {st.buildings_taken} (Avenue pays {DATA.building_numbers[st.buildings_taken]}"
        f"/step); Nobles rows {nobles_text(st)}"
    )
    lines.append("Boards (clockwise from the Palace):")
    for place in range(1, 9):
        b = st.place_board[place]
        workers = []
        for w in range(16):
            if st.wb[w] == b:
                who = f"seat{w // 4}" if w // 4 < st.n else "neutral"
                space = st.ws[w]
                lock = "" if space < 0 else (f"*Royal{st.royal[space]:02d}" if space < 3 else "*worship")
                workers.append(f"{who}:{st.wp[w]}{lock}")
        extra = ""
        if b in (1, 2, 3, 4, 7):
            tid = st.d_offer[(1, 2, 3, 4, 7).index(b)]
            extra = f"  [tile: {tile_name(tid) if tid else '-'}]"
        if b == 1:
            extra += "  Royal tiles " + ", ".join(f"{r:02d}" for r in st.royal)
        lines.append(f"  {place}. {modules.board_name(st, b):<13} {' '.join(workers) or '-'}{extra}")
    lines.append(
        "Avenue discovery spots (steps 3/6/8): "
        + "; ".join(", ".join(tile_name(t) for t in spot) or "-" for spot in st.d_avenue)
    )
    majors = []
    for (t, step, _), stack in zip(
        DATA.temple_discovery, st.d_temple[: len(DATA.temple_discovery)], strict=True
    ):
        majors.append(f"{TEMPLES[t]} {step}: " + (", ".join(tile_name(x) for x in stack) or "-"))
    lines.append("Temple major steps: " + "; ".join(majors))
    techs = " ".join(
        f"{t:02d}:{''.join(str(s) for s in range(st.n) if m >> s & 1) or '-'}"
        for t, m in zip(st.tech, st.tech_marks, strict=True)
    )
    lines.append(f"Technologies (top row, bottom row): {techs}")
    lines.append(
        "Temple Bonus tiles: " + ", ".join(f"{TEMPLE_NAMES[t]} {number}" for t, number in enumerate(st.bonus))
    )
    lines.append("Pyramid (top icons; upper case = coloured):")
    for r in range(8):
        lines.append("  " + " ".join(st.grid[r * 8 : r * 8 + 8]))
    placed = sum(1 for p in st.pyr_pos if p >= 0)
    lines.append(
        f"  tiles placed {placed}/30; offer: {_tiles_text(st.pyr_offer, DATA.pyramid_tiles)}; decorations "
        + ", ".join(f"{SIDES[i // 4]}{i % 4 + 1}" for i in range(16) if st.deco_space[i])
    )
    lines.append(f"Decoration offer: {_tiles_text(st.deco_offer, DATA.deco_tiles)}")
    for s in range(st.n):
        res = ", ".join(f"{st.res[s * 3 + i]} {RESOURCES[i]}" for i in range(3))
        temples = ", ".join(f"{TEMPLE_NAMES[t]} {st.temple[s * st.nt + t]}" for t in range(st.nt))
        tiles = [
            tile_name(t) + (" (used)" if st.d_used[t] else "") for t in range(1, 55) if st.d_owner[t] == s
        ]
        token = st.order(s) + 1
        role = " first player" if token == 1 else (" Last Player" if s == st.last_seat() else "")
        role += ", Teotibot" if s == st.bot else ""
        lines.append(
            f"Seat {s} (order {token}{role}): {st.vp[s]} VP, {st.cocoa[s]} cocoa, {res}; {temples}; avenue {st.avenue[s]}, "
            f"pyramid track {st.ptrack[s]}; tiles: {', '.join(tiles) or '-'}"
        )
    if st.mods:
        lines.extend(modules.render_lines(st))
    if st.bot >= 0:
        lines.extend(teotibot_lines(st))
    seats = st.to_act()
    if seats:
        many = "choose Starting tiles" if st.stack[-1][0] == "start-pick" else st.decision(seats[0]).prompt
        prompt = st.decision(seats[0]).prompt if len(seats) == 1 else many
        lines.append(f"To act: seat {', '.join(str(s) for s in seats)}: {prompt}")
    return "\n".join(lines)


def teotibot_lines(st: TeoCore) -> list[str]:
    """Teotibot's action pyramid (with the dice sums that pick each tile), set-aside tile,
    Direction tiles and last roll."""

    def cell(pos: int) -> str:
        sums = [str(k) for k, p in DICE_POSITION.items() if p == pos]
        return f"[{'/'.join(sums) or '-'}: {TILE_NAMES[st.act_pyr[pos]]}]"

    return [
        "Teotibot action pyramid (dice sums: tile):",
        "  " + " " * 24 + cell(0),
        "  " + " " * 12 + cell(1) + " " + cell(2),
        "  " + " ".join(cell(p) for p in (3, 4, 5)),
        f"  set aside: {TILE_NAMES[st.act_aside]}; Direction tiles (top first): "
        + ", ".join(DIRECTION_SIDES[d] for d in st.dirs)
        + (f"; last roll {st.roll}" if st.roll else ""),
    ]

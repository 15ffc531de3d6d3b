"""A plain-text picture of the position: cards, board by region and terrain, trade display,
pyramids, rituals, the Sacrifice track and every seat's holdings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .data import PROPERTIES, RESOURCES, SIZES

if TYPE_CHECKING:
    from .core import ZapotecCore

_TYPE_LETTER = ("C", "T", "V")


def phase(state: ZapotecCore) -> str:
    """The part of the game the position is in: its round (the match viewer's headings)."""
    return f"Round {state.round}"


def card_text(state: ZapotecCore, number: int) -> str:
    """An Action card: '7 (wood, plains)': its number, income resource and building property."""
    card = state.data.action_cards[number]
    return f"{number} ({RESOURCES[card.resource]}, {PROPERTIES[card.prop]})"


def _seat_name(state: ZapotecCore, seat: int) -> str:
    return "Cocijobot" if state.solo and seat == 1 else f"seat {seat}"


def _board(state: ZapotecCore) -> list[str]:
    d = state.data
    lines = [
        "Board (C/T/V = cornfield/temple/village; free tile shows its basic resource; seat N = house, *=palace):"
    ]
    for region in (3, 4, 5):
        for terrain in (6, 7, 8):
            cells = []
            for space in d.spaces:
                if space.region != region or space.terrain != terrain or not state.in_play[space.index]:
                    continue
                owner = state.space_owner[space.index]
                if owner >= 0:
                    mark = "*" if state.palace[owner] == space.index else ""
                    what = f"{_seat_name(state, owner)}{mark}"
                else:
                    what = RESOURCES[d.building_tiles[state.space_tile[space.index]].basic]
                cells.append(f"{_TYPE_LETTER[space.type]}:{what}")
            lines.append(f"  {PROPERTIES[region]:8} {PROPERTIES[terrain]:7} " + "  ".join(cells))
    return lines


def _seat(state: ZapotecCore, seat: int) -> list[str]:
    d = state.data
    res = ", ".join(f"{state.res[seat][i]} {name}" for i, name in enumerate(RESOURCES) if state.res[seat][i])
    hand = f"{len(state.hands[seat])} cards" if not (state.solo and seat == 1) else "-"
    lines = [
        f"{_seat_name(state, seat)}: {state.score[seat]} VP | {res or 'no resources'} | houses left "
        f"{state.houses_left[seat]} | sacrifice step {state.sac[seat]} | pieces left "
        + "/".join(str(n) for n in state.pieces[seat])
        + f" | hand {hand}"
    ]
    tiles = [
        d.trade_tiles[t].id + ("(used)" if t in state.tiles_down[seat] else "")
        for t in state.tiles_owned[seat]
    ]
    if tiles:
        lines.append("    trade tiles: " + " ".join(tiles))
    if state.solo and seat == 1:
        lines.append("    tiles collected: " + (" ".join(PROPERTIES[t] for t in state.cj_tiles) or "none"))
        return lines
    for row in range(3):
        cells = []
        for col in range(3):
            tile = state.grid[seat][row * 3 + col]
            if tile >= 0:
                bt = d.building_tiles[tile]
                cells.append(f"{RESOURCES[bt.basic]}+{RESOURCES[bt.advanced]}")
            else:
                printed = d.grid_advanced[row * 3 + col]
                cells.append(f"({RESOURCES[printed]})" if printed >= 0 else "-")
        lines.append(f"    {RESOURCES[d.grid_rows[row]]:5} row: " + " | ".join(f"{c:12}" for c in cells))
    return lines


def render(state: ZapotecCore) -> str:
    """The whole position as text."""
    d = state.data
    step = "game over" if state.step == "over" else f"step {state.step}"
    head = f"Zapotec round {state.round}/{d.rounds}, {step}"
    if state.current >= 0:
        head += f", {_seat_name(state, state.current)} to play"
    lines = [head]
    bonus = d.action_cards[state.bonus[-1]]
    lines.append(
        f"Bonus card {bonus.number} ({PROPERTIES[bonus.prop]}); offer: "
        + (", ".join(card_text(state, card) for card in state.offer) or "none")
        + f"; deck {len(state.deck)}"
    )
    if state.step != "pick":
        lines.append(
            "Played: "
            + ", ".join(f"{_seat_name(state, s)} {state.picks[s]}" for s in range(state.players))
            + (f"; Cocijobot card {d.cocijobot_deck[state.cj_card].number}" if state.cj_card >= 0 else "")
        )
    lines.extend(_board(state))
    for level in range(3):
        shown = [d.trade_tiles[t].id if t >= 0 else "--" for t in state.display[level]]
        lines.append(f"Trade level {level + 1}: {' '.join(shown)} (stack {len(state.stacks[level])})")
    lines.append("Scoring tiles free: " + (", ".join(PROPERTIES[p] for p in state.scoring_avail) or "none"))
    for i, prop in enumerate(state.pyr_tile):
        pieces = ", ".join(f"{SIZES[p % 3]} {_seat_name(state, p // 3)}" for p in state.pyr_pieces[i])
        lines.append(f"Pyramid {i + 1} ({PROPERTIES[prop]}): {pieces}")
    for slot, card in enumerate(state.ritual_cards):
        discs = ", ".join(_seat_name(state, s) for s in state.ritual_discs[slot]) or "no discs"
        lines.append(f"Ritual {d.rituals[card].id}: {d.rituals[card].text} [{discs}]")
    for seat in range(state.seats):
        lines.extend(_seat(state, seat))
    return "\n".join(lines)

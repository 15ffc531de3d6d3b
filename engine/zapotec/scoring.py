"""Turn scoring, end-of-game scoring (Sacrifice track, Rituals, Pyramids; Cocijobot's own end
scoring in solo), the final ranking with the Sacrifice-track tie-break."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.api import Result, competition_ranks

from .data import RitualCard
from .rules import PLAY_CATEGORIES, add_vp, house_count, pyramid_complete

if TYPE_CHECKING:
    from .core import ZapotecCore

COCIJOBOT = 1  # Cocijobot's seat in solo


def mark_round(state: ZapotecCore, label: str) -> None:
    """Note every seat's score now, for the score-over-time chart (``timeline``)."""
    state.marks.append((label, tuple(state.score)))


def breakdown(state: ZapotecCore, seat: int) -> dict[str, int]:
    """``seat``'s score sheet: category -> VP (non-zero ones), adding up to its score."""
    rounds = state.data.rounds
    row = state.sheet[seat]
    sheet = {f"turn_scoring_round_{r + 1}": row[r] for r in range(rounds) if row[r]}
    sheet.update((name, row[rounds + k]) for k, name in enumerate(PLAY_CATEGORIES) if row[rounds + k])
    final = state.final[seat] if state.final else {}
    sheet.update((name, vp) for name, vp in final.items() if name not in ("during_game", "total") and vp)
    return sheet


def timeline(state: ZapotecCore) -> list[dict]:
    """Every seat's score after each round (turn scoring) and after the end scoring."""
    return [{"after": label, "scores": list(scores)} for label, scores in state.marks]


def turn_score(state: ZapotecCore, seat: int, prop: int) -> int:
    """2 VP per House matching ``prop`` (the Palace counts as two); added to the seat's score."""
    gained = state.data.turn_vp_per_house * house_count(state, seat, prop)
    add_vp(state, seat, gained, "turn_scoring")
    return gained


def _building_counts(state: ZapotecCore, seat: int) -> list[list[int]]:
    """One (type, region, terrain) row per building of ``seat``; the Palace gives two rows."""
    spaces = state.data.spaces
    rows = []
    for index in state.houses[seat]:
        weight = state.data.palace_houses if index == state.palace[seat] else 1
        rows.extend([list(spaces[index].props)] * weight)
    return rows


def ritual_points(state: ZapotecCore, seat: int, card: RitualCard) -> int:
    """What one Ritual card is worth to ``seat`` at the end of the game (capped)."""
    d = state.data
    if card.kind == "building_sets":
        # A set needs the same value in one category and all three values of another, so the
        # number of disjoint sets for a value of `same` is its smallest count over `different`.
        counts: dict[int, list[int]] = {}
        for props in _building_counts(state, seat):
            row = counts.setdefault(props[card.same], [0, 0, 0])
            row[props[card.different] - 3 * card.different] += 1
        points = card.vp_per_set * sum(min(row) for row in counts.values())
    elif card.kind == "pyramid_levels":
        points = card.vp_each * state.built_pieces[seat]
    elif card.kind == "leftover_resources":
        res = state.res[seat]
        points = card.vp_basic * sum(res[:3]) + card.vp_advanced * sum(res[3:])
    elif card.kind == "sacrifice_steps":
        points = card.vp_each * state.sac[seat]
    elif card.kind == "trade_tiles":
        points = sum(card.vp_by_level[d.trade_tiles[t].level - 1] for t in state.tiles_owned[seat])
    else:  # pragma: no cover - data validation rejects unknown kinds
        raise ValueError(card.kind)
    return min(points, card.max_vp)


def sacrifice_awards(state: ZapotecCore) -> list[int]:
    """9/6/3 to the top three among seats that moved; lower in a stack (earlier) wins ties.

    In solo, Cocijobot scores 3 if it never moved (its own rule)."""
    d = state.data
    awards = [0] * state.seats
    movers = sorted(
        (s for s in range(state.seats) if state.sac[s] > 0), key=lambda s: (-state.sac[s], state.sac_order[s])
    )
    for place, seat in enumerate(movers[: len(d.end_sacrifice_vp)]):
        awards[seat] = d.end_sacrifice_vp[place]
    if state.solo and state.sac[COCIJOBOT] == 0:
        awards[COCIJOBOT] = d.cocijobot["end_vp_if_never_sacrificed"]
    return awards


def end_scoring(state: ZapotecCore) -> list[dict[str, int]]:
    """What the end scoring gives each seat, by category, if the game ended now (changes nothing).

    Also what a search bot's evaluator reads mid-game (plugins/bots/zapotec_eval.py).
    """
    d = state.data
    details: list[dict[str, int]] = [
        {"sacrifice_track": vp, "rituals": 0, "pyramids": 0} for vp in sacrifice_awards(state)
    ]
    for slot, discs in enumerate(state.ritual_discs):
        card = d.rituals[state.ritual_cards[slot]]
        for seat in discs:
            if state.solo and seat == COCIJOBOT:
                alone = len(discs) == 1
                vp = d.cocijobot["ritual_vp_alone"] if alone else d.cocijobot["ritual_vp_shared"]
            else:
                vp = ritual_points(state, seat, card)
            details[seat]["rituals"] += vp
    for pyramid, pieces in enumerate(state.pyr_pieces):
        complete = pyramid_complete(state, pyramid)
        prop = state.pyr_tile[pyramid]
        for piece in pieces:
            seat = piece // 3
            houses = house_count(state, seat, prop) * d.pyramid_vp_per_house
            bonus = d.pyramid_completion_bonus
            if state.solo and seat == COCIJOBOT:
                vp = houses + bonus if complete else bonus  # every piece gets the 5; houses only if complete
            else:
                vp = houses + (bonus if complete else 0)
            details[seat]["pyramids"] += vp
    if state.solo:
        tiles = d.trade_tiles
        vp_by_level = d.cocijobot["trade_tile_vp"]
        details[COCIJOBOT]["trade_tiles"] = sum(
            vp_by_level[tiles[t].level - 1] for t in state.tiles_owned[COCIJOBOT]
        )
    return details


def end_game(state: ZapotecCore) -> None:
    """Add the end-game points to every seat and keep the breakdown for ``result``."""
    details = [{"during_game": state.score[s], **parts} for s, parts in enumerate(end_scoring(state))]
    mark_round(state, f"round {state.round}")
    for seat in range(state.seats):
        extra = sum(v for k, v in details[seat].items() if k != "during_game")
        state.score[seat] += extra
        details[seat]["total"] = state.score[seat]
    state.final = details
    mark_round(state, "end scoring")
    state.event(
        "Final scores: " + ", ".join(f"seat {s} {state.score[s]}" for s in range(state.seats)),
        kind="end",
        scores=list(state.score),
    )


def tie_key(state: ZapotecCore, seat: int) -> tuple[int, int, int]:
    """Score, then further up the Sacrifice track, then lower in the stack; unmoved seats stay tied."""
    moved = state.sac[seat] > 0
    return (state.score[seat], state.sac[seat], -state.sac_order[seat] if moved else 0)


def result(state: ZapotecCore) -> Result:
    """The final Result (scores, ranks after tie-breaks, per-seat breakdown)."""
    ranks = competition_ranks([tie_key(state, s) for s in range(state.seats)])
    details: dict[str, Any] = {
        "seats": [dict(d) for d in state.final or []],
        "breakdown": [breakdown(state, s) for s in range(state.seats)],
        "timeline": timeline(state),
    }
    if state.solo:
        details["automaton_seat"] = COCIJOBOT
    return Result(tuple(state.score), ranks, details)

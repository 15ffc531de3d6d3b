"""What one seat may see, and the way back: ``observe`` hides other seats' hands, unrevealed
picks, the Action deck and removed cards, the Trade stacks and the Cocijobot deck (their counts
stay visible); ``resample`` samples exactly those hidden parts, for ``determinize`` (in a
clone) and for ``setup.from_observation`` (a full state rebuilt from an observation)."""

from __future__ import annotations

from random import Random
from typing import TYPE_CHECKING, Any, TypeVar

from engine.draws import below, shuffle

from .data import PROPERTIES, RESOURCES

if TYPE_CHECKING:
    from .core import ZapotecCore

S = TypeVar("S", bound="ZapotecCore")


def _tile_id(state: ZapotecCore, index: int) -> str | None:
    return state.data.building_tiles[index].id if index >= 0 else None


def _trade_id(state: ZapotecCore, index: int) -> str | None:
    return state.data.trade_tiles[index].id if index >= 0 else None


def _space_id(state: ZapotecCore, index: int) -> str | None:
    return state.data.spaces[index].id if index >= 0 else None


def _visible_pick(state: ZapotecCore, viewer: int, seat: int) -> int:
    if state.step == "pick" and seat != viewer:
        return -1  # chosen face down, not revealed yet
    return state.picks[seat]


def observe(state: ZapotecCore, seat: int) -> dict[str, Any]:
    """The observation of ``seat``: msgpack-able, and enough for ``from_observation``."""
    d = state.data
    seats = []
    for s in range(state.seats):
        seats.append(
            {
                "resources": {name: state.res[s][i] for i, name in enumerate(RESOURCES)},
                "score": state.score[s],
                "score_sheet": list(state.sheet[s]),
                "grid": [_tile_id(state, t) for t in state.grid[s]],
                "houses": [_space_id(state, i) for i in state.houses[s]],
                "houses_left": state.houses_left[s],
                "palace": _space_id(state, state.palace[s]),
                "palace_tile": _tile_id(state, state.palace_tile[s]),
                "trade_tiles": [_trade_id(state, t) for t in state.tiles_owned[s]],
                "tiles_face_down": [_trade_id(state, t) for t in state.tiles_down[s]],
                "bought_levels": list(state.bought[s]),
                "sacrifice_step": state.sac[s],
                "sacrifice_arrival": state.sac_order[s],
                "pieces_left": list(state.pieces[s]),
                "pieces_built": state.built_pieces[s],
                "counted_rituals": state.rituals_counted[s],
                "pyramids_this_round": list(state.pyr_this_round[s]),
                "hand_count": len(state.hands[s]),
                # Cards this seat took face up from the Offer (still in its hand or face-down pick).
                "known_hand": list(state.known_hand[s]),
                "picked": state.picks[s] >= 0,
                "pick": _visible_pick(state, seat, s),
            }
        )
    return {
        "game": state.game_id,
        "version": state.version,
        "options": dict(state.options),
        "players": state.players,
        "seat": seat,
        "round": state.round,
        "step": state.step,
        "current": state.current,
        "order": list(state.order),
        "turn_pos": state.turn_pos,
        "hand": list(state.hands[seat]),
        "seats": seats,
        "bonus_cards": list(state.bonus),
        "offer": list(state.offer),
        "deck_count": len(state.deck),
        "discard": list(state.discard),
        "spaces": [_tile_id(state, t) for t in state.space_tile],
        "owners": list(state.space_owner),
        "trade_display": [[_trade_id(state, t) for t in row] for row in state.display],
        "trade_stack_counts": [len(stack) for stack in state.stacks],
        "scoring_tiles": [PROPERTIES[p] for p in state.scoring_avail],
        "pyramids": [
            {"tile": PROPERTIES[state.pyr_tile[i]], "pieces": [[p // 3, p % 3] for p in state.pyr_pieces[i]]}
            for i in range(len(state.pyr_tile))
        ],
        "rituals": [
            {"card": d.rituals[card].id, "discs": list(state.ritual_discs[slot])}
            for slot, card in enumerate(state.ritual_cards)
        ],
        "sacrifice_clock": state.sac_clock,
        "pending": list(state.pending),
        "selected": {
            "space": _space_id(state, state.sel_space),
            "building_tile": _tile_id(state, state.sel_tile),
            "trade_tile": _trade_id(state, state.sel_trade),
        },
        "cocijobot": {
            "card": state.cj_card,
            "flipped": list(state.cj_flipped),
            "deck_count": len(state.cj_deck),
            # The back of the top card hints at one of its icons (misleading on high numbers).
            "top_hint": _top_hint(state),
            "tiles": [PROPERTIES[t] for t in state.cj_tiles],
            "pyramid": state.cj_pyramid,
        },
        "final": [dict(x) for x in state.final] if state.final is not None else None,
    }


def _top_hint(state: ZapotecCore) -> str | None:
    return state.data.cocijobot_deck[state.cj_deck[-1]].back_hint if state.cj_deck else None


def resample(
    state: ZapotecCore,
    seat: int,
    rng: Random,
    hand_counts: list[int],
    deck_count: int,
    top_hint: str | None,
) -> None:
    """Deal everything ``seat`` cannot see from the pools it cannot tell apart."""
    d = state.data
    known = set(state.hands[seat]) | set(state.offer) | set(state.bonus) | set(state.discard)
    known.update(c for s in range(state.players) for c in state.known_hand[s])
    hidden_picks = []
    for s in range(state.players):
        if s == seat or state.step != "pick":
            if state.picks[s] >= 0:
                known.add(state.picks[s])
        elif state.picks[s] >= 0:
            hidden_picks.append(s)
    pool = [c for c in range(1, 28) if c not in known]
    shuffle(rng, pool)  # rng.shuffle's draws, faster (engine.draws): a search resamples each iteration
    for s in range(state.players):
        if s != seat:
            # The seat's publicly known cards plus unknown ones; a face-down pick is any of them.
            cards = list(state.known_hand[s])
            wanted = hand_counts[s] + (1 if s in hidden_picks else 0)
            cards += [pool.pop() for _ in range(wanted - len(cards))]
            if s in hidden_picks:
                state.picks[s] = cards.pop(below(rng, len(cards)))
            state.hands[s] = sorted(cards)
    state.deck = [pool.pop() for _ in range(deck_count)]
    state.removed = pool
    owned = {t for tiles in state.tiles_owned for t in tiles}
    for level in (1, 2, 3):
        shown = set(state.display[level - 1])
        unseen = [
            t.index
            for t in d.trade_tiles
            if t.level == level and t.index not in shown and t.index not in owned
        ]
        shuffle(rng, unseen)
        count = len(state.stacks[level - 1])
        state.stacks[level - 1] = unseen[:count]
        state.box[level - 1] = unseen[count:]
    if state.solo:
        flipped = set(state.cj_flipped)
        deck = [c for c in range(len(d.cocijobot_deck)) if c not in flipped]
        shuffle(rng, deck)
        # The top card must show the hint everyone sees on its back.
        top = next(i for i, c in enumerate(deck) if d.cocijobot_deck[c].back_hint == top_hint)
        deck.append(deck.pop(top))
        state.cj_deck = deck
    state.rng = Random(rng.getrandbits(64))


def determinize(state: S, seat: int, rng: Random) -> S:
    """A clone of ``state`` with the parts hidden from ``seat`` resampled."""
    other = state.clone()
    other._cache = None
    resample(other, seat, rng, [len(h) for h in state.hands], len(state.deck), _top_hint(state))
    return other

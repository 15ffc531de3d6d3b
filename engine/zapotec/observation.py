"""What one seat may see, and the way back: ``observe`` hides other seats' hands, unrevealed
picks, the Action deck and removed cards, the Trade stacks and the Cocijobot deck (their counts
stay visible); ``from_observation`` rebuilds a full state from an observation, sampling exactly
those hidden parts; ``determinize`` resamples them in a clone."""

from __future__ import annotations

from random import Random
from typing import TYPE_CHECKING, Any

from .data import PROPERTIES, RESOURCES

if TYPE_CHECKING:
    from .state import ZapotecState

GAME_ID = "zapotec"


def _tile_id(state: ZapotecState, index: int) -> str | None:
    return state.data.building_tiles[index].id if index >= 0 else None


def _trade_id(state: ZapotecState, index: int) -> str | None:
    return state.data.trade_tiles[index].id if index >= 0 else None


def _space_id(state: ZapotecState, index: int) -> str | None:
    return state.data.spaces[index].id if index >= 0 else None


def _visible_pick(state: ZapotecState, viewer: int, seat: int) -> int:
    if state.step == "pick" and seat != viewer:
        return -1  # chosen face down, not revealed yet
    return state.picks[seat]


def observe(state: ZapotecState, seat: int) -> dict[str, Any]:
    """The observation of ``seat``: msgpack-able, and enough for ``from_observation``."""
    d = state.data
    seats = []
    for s in range(state.seats):
        seats.append(
            {
                "resources": {name: state.res[s][i] for i, name in enumerate(RESOURCES)},
                "score": state.score[s],
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
        "game": GAME_ID,
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


def _top_hint(state: ZapotecState) -> str | None:
    return state.data.cocijobot_deck[state.cj_deck[-1]].back_hint if state.cj_deck else None


def _resample(
    state: ZapotecState,
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
    rng.shuffle(pool)
    for s in range(state.players):
        if s != seat:
            # The seat's publicly known cards plus unknown ones; a face-down pick is any of them.
            cards = list(state.known_hand[s])
            wanted = hand_counts[s] + (1 if s in hidden_picks else 0)
            cards += [pool.pop() for _ in range(wanted - len(cards))]
            if s in hidden_picks:
                state.picks[s] = cards.pop(rng.randrange(len(cards)))
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
        rng.shuffle(unseen)
        count = len(state.stacks[level - 1])
        state.stacks[level - 1] = unseen[:count]
        state.box[level - 1] = unseen[count:]
    if state.solo:
        flipped = set(state.cj_flipped)
        deck = [c for c in range(len(d.cocijobot_deck)) if c not in flipped]
        rng.shuffle(deck)
        # The top card must show the hint everyone sees on its back.
        top = next(i for i, c in enumerate(deck) if d.cocijobot_deck[c].back_hint == top_hint)
        deck.append(deck.pop(top))
        state.cj_deck = deck
    state.rng = Random(rng.getrandbits(64))


def determinize(state: ZapotecState, seat: int, rng: Random) -> ZapotecState:
    """A clone of ``state`` with the parts hidden from ``seat`` resampled."""
    other = state.clone()
    other._cache = None
    _resample(other, seat, rng, [len(h) for h in state.hands], len(state.deck), _top_hint(state))
    return other


def from_observation(obs: dict[str, Any], rng: Random) -> ZapotecState:
    """A full state whose ``observation(obs["seat"])`` equals ``obs``; hidden parts sampled."""
    from .state import blank_state

    if obs.get("game") != GAME_ID:
        raise ValueError(f"not a Zapotec observation (game {obs.get('game')!r})")
    state = blank_state()
    d = state.data
    tiles = {t.id: t.index for t in d.building_tiles}
    trades = {t.id: t.index for t in d.trade_tiles}
    spaces = {s.id: s.index for s in d.spaces}
    rituals = {r.id: r.index for r in d.rituals}

    def tile(x: str | None) -> int:
        return -1 if x is None else tiles[x]

    def trade(x: str | None) -> int:
        return -1 if x is None else trades[x]

    def space(x: str | None) -> int:
        return -1 if x is None else spaces[x]

    seat = obs["seat"]
    players = obs["players"]
    state.options = dict(obs["options"])
    state.version = obs["version"]
    state.players = players
    state.solo = players == 1
    state.seats = 2 if state.solo else players
    state.difficulty = state.options.get("difficulty", "normal")
    board_players = 2 if state.solo else players
    state.in_play = tuple(s.min_players <= board_players for s in d.spaces)
    state.round, state.step, state.current = obs["round"], obs["step"], obs["current"]
    state.order, state.turn_pos = list(obs["order"]), obs["turn_pos"]
    state.sac_clock = obs["sacrifice_clock"]
    view = obs["seats"]
    state.res = [[v["resources"][name] for name in RESOURCES] for v in view]
    state.score = [v["score"] for v in view]
    state.grid = [[tile(t) for t in v["grid"]] for v in view]
    state.houses = [[space(i) for i in v["houses"]] for v in view]
    state.houses_left = [v["houses_left"] for v in view]
    state.palace = [space(v["palace"]) for v in view]
    state.palace_tile = [tile(v["palace_tile"]) for v in view]
    state.tiles_owned = [[trade(t) for t in v["trade_tiles"]] for v in view]
    state.tiles_down = [[trade(t) for t in v["tiles_face_down"]] for v in view]
    state.bought = [list(v["bought_levels"]) for v in view]
    state.sac = [v["sacrifice_step"] for v in view]
    state.sac_order = [v["sacrifice_arrival"] for v in view]
    state.pieces = [list(v["pieces_left"]) for v in view]
    state.built_pieces = [v["pieces_built"] for v in view]
    state.rituals_counted = [v["counted_rituals"] for v in view]
    state.pyr_this_round = [list(v["pyramids_this_round"]) for v in view]
    state.picks = [v["pick"] for v in view]
    state.hands = [[] for _ in view]
    state.known_hand = [list(v["known_hand"]) for v in view]
    state.hands[seat] = list(obs["hand"])
    state.bonus = list(obs["bonus_cards"])
    state.offer = list(obs["offer"])
    state.discard = list(obs["discard"])
    state.space_tile = [tile(t) for t in obs["spaces"]]
    state.space_owner = list(obs["owners"])
    state.display = [[trade(t) for t in row] for row in obs["trade_display"]]
    state.stacks = [[-1] * n for n in obs["trade_stack_counts"]]
    state.box = [[], [], []]
    state.scoring_avail = [PROPERTIES.index(p) for p in obs["scoring_tiles"]]
    state.pyr_tile = [PROPERTIES.index(p["tile"]) for p in obs["pyramids"]]
    state.pyr_pieces = [[s * 3 + size for s, size in p["pieces"]] for p in obs["pyramids"]]
    state.ritual_cards = [rituals[r["card"]] for r in obs["rituals"]]
    state.ritual_discs = [list(r["discs"]) for r in obs["rituals"]]
    state.pending = list(obs["pending"])
    sel = obs["selected"]
    state.sel_space, state.sel_tile, state.sel_trade = (
        space(sel["space"]),
        tile(sel["building_tile"]),
        trade(sel["trade_tile"]),
    )
    cj = obs["cocijobot"]
    state.cj_card, state.cj_flipped = cj["card"], list(cj["flipped"])
    state.cj_tiles = [PROPERTIES.index(t) for t in cj["tiles"]]
    state.cj_pyramid = cj["pyramid"]
    state.cj_deck = []
    state.final = [dict(x) for x in obs["final"]] if obs["final"] is not None else None
    state.events = []
    if state.step == "pick":
        for s, v in enumerate(view):
            if s != seat and v["picked"]:
                state.picks[s] = 0  # placeholder; _resample deals the hidden card
    _resample(state, seat, rng, [v["hand_count"] for v in view], obs["deck_count"], cj["top_hint"])
    return state

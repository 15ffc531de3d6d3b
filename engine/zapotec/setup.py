"""Every way a state is made: setup by player count (rule book "Components overview and game
setup", solo setup), an empty state, and a full state rebuilt from an observation."""

from __future__ import annotations

from random import Random
from typing import Any

from .core import GAME_ID, LIST_FIELDS, NESTED_FIELDS, SCALAR_FIELDS
from .data import PROPERTIES, RESOURCES, in_play, load
from .observation import resample
from .rules import PLAY_CATEGORIES
from .state import ZapotecState


def new_game(players: int, seed: int, options: dict[str, Any], version: str) -> ZapotecState:
    """A fresh game for ``players`` agent seats (1 = solo against Cocijobot in seat 1)."""
    state = blank_state()
    d = state.data
    solo = players == 1
    seats = 2 if solo else players
    board_players = 2 if solo else players
    rng = Random(seed)
    state.rng = rng
    state.options = dict(options)
    state.version = version
    state.players, state.seats, state.solo = players, seats, solo
    state.difficulty = options.get("difficulty", "normal")
    state.round, state.step, state.current, state.turn_pos = 1, "pick", -1, 0
    state.sac_clock = 0
    state.cj_card, state.cj_pyramid = -1, -1
    state.sel_space = state.sel_tile = state.sel_trade = -1
    state.final = None

    # 1-2. Board spaces in play and the building tiles shuffled onto them, by type.
    state.in_play = tuple(s.min_players <= board_players for s in d.spaces)
    state.space_tile = [-1] * len(d.spaces)
    state.space_owner = [-1] * len(d.spaces)
    for kind in range(3):
        tiles = [t.index for t in d.building_tiles if t.type == kind and in_play(t.back_mark, board_players)]
        rng.shuffle(tiles)
        for space in d.spaces:
            if space.type == kind and state.in_play[space.index]:
                state.space_tile[space.index] = tiles.pop()

    # 3. Trade tiles: a shuffled stack per level, three face up (solo: the rest go to the box).
    state.stacks, state.display, state.box = [], [], []
    for level in (1, 2, 3):
        stack = [t.index for t in d.trade_tiles if t.level == level]
        rng.shuffle(stack)
        shown = [stack.pop() for _ in range(d.face_up_per_level)]
        state.display.append(shown)
        if solo:
            state.stacks.append([])
            state.box.append(stack)
        else:
            state.stacks.append(stack)
            state.box.append([])

    # 4. Scoring tiles: players + 1 (solo: see assumed.toml [solo]).
    count = d.solo_scoring_tiles if solo else players + 1
    state.scoring_avail = rng.sample(list(d.scoring_tiles), count)
    state.pyr_tile, state.pyr_pieces = [], []

    # 5. Action deck: bonus card, Offer, small face-down deck, hands, removed cards.
    setup = d.card_setup[players]
    deck = list(range(1, 28))
    rng.shuffle(deck)
    state.bonus = [deck.pop() for _ in range(setup["bonus_card"])]
    state.offer = [deck.pop() for _ in range(setup["offer"])]
    state.deck = [deck.pop() for _ in range(setup["facedown_deck"])]
    state.hands = [sorted(deck.pop() for _ in range(setup["hand"])) for _ in range(players)]
    if solo:
        state.hands.append([])  # Cocijobot holds no Action cards
    state.removed = deck
    state.known_hand = [[] for _ in range(seats)]  # cards publicly taken from the Offer, not yet played
    state.discard = []
    state.picks = [-1] * seats
    state.order = []

    # 6. Ritual cards: three face up, the rest to the box.
    state.ritual_cards = rng.sample(range(len(d.rituals)), d.rituals_in_play)
    state.ritual_discs = [[] for _ in state.ritual_cards]

    # 7. Player pieces and starting resources.
    state.res = [list(d.starting_resources) for _ in range(seats)]
    if solo:
        state.res[1] = [0] * 6  # Cocijobot takes no resources
    state.score = [0] * seats
    state.sheet = [[0] * (d.rounds + len(PLAY_CATEGORIES)) for _ in range(seats)]  # see scoring.add_vp
    state.marks = []  # (label, every seat's score) after each round
    state.grid = [[-1] * 9 for _ in range(seats)]
    state.houses = [[] for _ in range(seats)]
    state.houses_left = [d.houses] * seats
    state.palace = [-1] * seats
    state.palace_tile = [-1] * seats
    state.tiles_owned = [[] for _ in range(seats)]
    state.tiles_down = [[] for _ in range(seats)]
    state.bought = [[0, 0, 0] for _ in range(seats)]
    state.sac = [0] * seats
    state.sac_order = [0] * seats
    state.pieces = [list(d.pyramid_pieces) for _ in range(seats)]
    state.built_pieces = [0] * seats
    state.rituals_counted = [0] * seats  # discs under the Ritual limit: normal Rituals and Z36
    state.pyr_this_round = [[] for _ in range(seats)]
    state.pending = []
    state.events = []

    # Solo: the Cocijobot deck, shuffled face down.
    state.cj_deck = list(range(len(d.cocijobot_deck))) if solo else []
    rng.shuffle(state.cj_deck)
    state.cj_flipped = []
    state.cj_tiles = []
    state.event(
        f"Setup for {players} player(s){' against Cocijobot' if solo else ''}; bonus card "
        f"{state.bonus[-1]}, scoring tiles {', '.join(PROPERTIES[p] for p in state.scoring_avail)}",
        kind="setup",
    )
    return state


def blank_state() -> ZapotecState:
    """A state with every field present and empty (filled by setup or from_observation)."""
    state = ZapotecState()
    state.data = load()
    for name in SCALAR_FIELDS:
        if name != "data":
            setattr(state, name, None)
    for name in LIST_FIELDS + NESTED_FIELDS:
        setattr(state, name, [])
    state.rng = Random(0)
    state.keep_log = True
    return state


def from_observation(obs: dict[str, Any], rng: Random) -> ZapotecState:
    """A full state whose ``observation(obs["seat"])`` equals ``obs``; hidden parts sampled."""
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
    state.sheet = [list(v["score_sheet"]) for v in view]
    state.marks = []  # the chart's past rounds are not part of a seat's view
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
                state.picks[s] = 0  # placeholder; resample deals the hidden card
    resample(state, seat, rng, [v["hand_count"] for v in view], obs["deck_count"], cj["top_hint"])
    return state

"""Setup by player count (rule book "Components overview and game setup", solo setup)."""

from __future__ import annotations

from random import Random
from typing import Any

from .data import PROPERTIES, in_play
from .state import ZapotecState, blank_state


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

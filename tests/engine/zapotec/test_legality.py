"""Offered options == legal moves: an oracle written from the rule book, independent of turn.py,
compared with the engine's options on every decision of seeded "eager" random games."""

from __future__ import annotations

from random import Random

import pytest

from engine.zapotec import GAME
from engine.zapotec.data import CATEGORY_OF_PROP, PROPERTIES, RESOURCES, load
from tests.engine.zapotec.util import eager_choice, enrich

D = load()
WOOD, BRICK, STONE, CORN, GOLD, PRIEST = range(6)
TOP = D.sacrifice_top


def _afford(res, cost) -> bool:
    return all(res[i] >= cost[i] for i in range(6))


def _price(state, seat, level) -> int:
    # Rule book: 1/2/3 Gold; step 3 takes 1 off level 2, step 6 takes 2 off level 3; never below 1.
    price = (1, 2, 3)[level - 1]
    if level == 2 and state.sac[seat] >= 3:
        price -= 1
    if level == 3 and state.sac[seat] >= 6:
        price -= 2
    return max(price, 1)


def _ready(state, seat, tile_id):
    tile = D.trade_by_id[tile_id]
    return tile.index in state.tiles_owned[seat] and tile.index not in state.tiles_down[seat]


def _owned_ready(state, seat, kind):
    return [
        D.trade_tiles[t].id
        for t in state.tiles_owned[seat]
        if D.trade_tiles[t].kind == kind and t not in state.tiles_down[seat]
    ]


def _cards_without_disc(state, seat):
    return [slot for slot, discs in enumerate(state.ritual_discs) if seat not in discs]


def _capital_moves(state, seat) -> set:
    res = state.res[seat]
    moves = {("done",)}
    for level in (1, 2, 3):
        if not state.bought[seat][level - 1] and res[GOLD] >= _price(state, seat, level):
            for slot, tile in enumerate(state.display[level - 1]):
                tile_id = D.trade_tiles[tile].id if tile >= 0 else None
                # Trade: any face-up tile you can pay for (Z34 / Z36 even if their effect is lost)
                if tile_id:
                    moves.add(("buy", tile_id, level, slot))
    for tile_id in _owned_ready(state, seat, "convert"):
        if _afford(res, D.trade_by_id[tile_id].pay):
            moves.add(("use", tile_id))
    pyramid_cost = [1, 1, 1, 0, 0, 1]  # 1 Wood, 1 Brick, 1 Stone, 1 Priest
    pieces = state.pieces[seat]
    if _afford(res, pyramid_cost) and sum(pieces):
        if len(state.pyr_tile) < 5:
            for prop in state.scoring_avail:
                moves.add(("pyramid-new", PROPERTIES[prop]))
        for p, stack in enumerate(state.pyr_pieces):
            top = stack[-1] % 3
            if top < 2 and p not in state.pyr_this_round[seat] and pieces[top + 1] > 0:
                moves.add(("pyramid-add", p))
    built = 6 - sum(pieces)
    # the limit counts normal Ritual discs and Z36's, not the step-11 disc
    if built >= 1 and state.rituals_counted[seat] < min(built, 3):
        for slot in _cards_without_disc(state, seat):
            priest = 0 if state.sac[seat] >= 9 else 1
            gold = len(state.ritual_discs[slot])
            if res[PRIEST] >= priest and res[GOLD] >= gold:
                moves.add(("ritual", slot))
    if res[PRIEST] >= 1:
        for corn in range(1, 6):
            if res[CORN] >= corn and state.sac[seat] + corn <= TOP:
                moves.add(("sacrifice", corn))
    return moves


def _house_cost(state, seat, kind):
    for t in state.tiles_owned[seat]:
        tile = D.trade_tiles[t]
        if tile.kind == "building_cost_override" and tile.prop == kind:
            return tile.cost
    return D.building_cost[kind]


def _has(space, prop) -> bool:
    return space.props[CATEGORY_OF_PROP[prop]] == prop


def _build_moves(state, seat) -> set:
    res = state.res[seat]
    moves = {("done",)}
    prop = D.action_cards[state.picks[seat]].prop
    houses = state.houses_left[seat] > 0
    palace = houses and state.palace[seat] < 0 and _afford(res, (1, 1, 1, 0, 0, 0))
    for space in D.spaces:
        if state.space_tile[space.index] < 0 or not _has(space, prop):
            continue
        if (houses and _afford(res, _house_cost(state, seat, space.type))) or palace:
            moves.add(("build", space.id))
    for tile_id in _owned_ready(state, seat, "build_ignoring_card"):
        tile = D.trade_by_id[tile_id]
        free = [s for s in D.spaces if state.space_tile[s.index] >= 0 and _has(s, tile.prop)]
        if houses and free and _afford(res, tile.pay):
            moves.add(("use", tile_id))
    for tile_id in _owned_ready(state, seat, "convert"):
        if _afford(res, D.trade_by_id[tile_id].pay):
            moves.add(("use", tile_id))
    return moves


def _key(option: dict) -> tuple:
    action = option["action"]
    if action == "buy":
        return ("buy", option["tile"], option["level"], option["slot"])
    if action == "pyramid":
        return ("pyramid-new", option["new"]) if "new" in option else ("pyramid-add", option["pyramid"])
    if action == "ritual":
        return ("ritual", option["slot"])
    if action == "sacrifice":
        return ("sacrifice", option["corn"])
    if action in ("use", "build"):
        return (action, option.get("tile") or option.get("space"))
    return (action,)


def _expected(state, seat) -> set | None:
    """The legal moves by the oracle, or None for decisions it does not model."""
    if state.pending:
        if state.pending[0] == "resource":
            return {("take", r) for r in RESOURCES[:3]}
        return {("free-ritual", slot) for slot in _cards_without_disc(state, seat)}
    if state.step == "capital":
        return _capital_moves(state, seat)
    if state.step == "build":
        return _build_moves(state, seat)
    if state.step == "grid":
        return {("grid", c) for c in range(9) if state.grid[seat][c] < 0}
    if state.step == "pick":
        return {("pick", c) for c in state.hands[seat]}
    if state.step == "draw":
        return {("draw", c) for c in state.offer}
    if state.step == "tile-space":
        prop = D.trade_tiles[state.sel_trade].prop
        return {("tile-build", s.id) for s in D.spaces if state.space_tile[s.index] >= 0 and _has(s, prop)}
    if state.step == "score-card":
        return {("score", c) for c in [state.bonus[-1], *state.hands[seat]]}
    return None


def _offered(state, seat) -> set:
    keys = set()
    for option in state.decision(seat).options:
        if state.step == "pick":
            keys.add(("pick", option["card"]))
        elif option["action"] in ("take",):
            keys.add(("take", option["resource"]))
        elif option["action"] in ("free-ritual", "grid", "draw", "score"):
            keys.add((option["action"], option.get("slot", option.get("cell", option.get("card")))))
        elif option["action"] == "tile-build":
            keys.add(("tile-build", option["space"]))
        else:
            keys.add(_key(option))
    return keys


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_offered_options_equal_the_rule_book_moves(players):
    checked = 0
    for seed in range(60):
        state = GAME.setup(players, 500 + seed, {})
        rng = Random(seed)
        while state.to_act():
            seat = state.to_act()[0]
            enrich(state, seat, rng)
            options = state.decision(seat).options
            expected = _expected(state, seat)
            if expected is not None:
                offered = _offered(state, seat)
                assert len(offered) == len(options), "duplicate options"
                assert offered == expected, (state.step, offered ^ expected)
                checked += 1
            state.apply(seat, eager_choice(state, seat, rng, 0.85))
    assert checked > 1000

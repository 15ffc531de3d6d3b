"""A player's turn, rule by rule, with the rule book's worked examples."""

from __future__ import annotations

import pytest

from engine.zapotec import rules
from engine.zapotec.data import PROP, RESOURCES
from tests.engine.zapotec.util import DATA, begin_turn, card, choose, find, new, options, set_res, space


def btile(kind: str, basic: str) -> int:
    return next(t.index for t in DATA.building_tiles if t.type == PROP[kind] and RESOURCES[t.basic] == basic)


def at_capital(players: int = 2, number: int | None = None, seed: int = 0, **res):
    """Seat 0 at the Capital-action step of round 1 with exactly ``res``."""
    state = new(players, seed)
    begin_turn(state, number or card("wood", "mitla"))
    choose(state, action="income", line="row")
    set_res(state, 0, **res)
    return state


def test_income_example_wood_card_middle_row():
    # Rule book: a Wood card, middle row: 1 Wood; Stone + Gold (Village); Brick + Priest (Temple).
    state = new(2)
    state.grid[0][4] = btile("village", "stone")
    state.grid[0][5] = btile("temple", "brick")
    begin_turn(state, card("wood", "plains"))
    set_res(state, 0)
    labels = [o["label"] for o in options(state)]
    assert len(labels) == 2 and "row" in labels[0] and "column" in labels[1]
    choose(state, action="income", line="row")
    assert state.res[0] == [1, 1, 1, 0, 1, 1]
    assert state.step == "capital"


def test_income_column_pays_the_header_and_tiles_in_it():
    state = new(2)
    state.grid[0][1] = btile("cornfield", "brick")  # brick row, wood column
    begin_turn(state, card("wood", "plains"))
    set_res(state, 0)
    choose(state, action="income", line="column")
    assert state.res[0] == [1, 1, 0, 1, 0, 0]


def test_construction_example_temple_and_village_in_mitla_cover_gold():
    # Rule book: a Mitla card, 2 Brick + 1 Wood + 1 Stone: a Temple and a Village in Mitla,
    # both tiles on the Wood row; covering the Gold space gains 1 Gold.
    state = at_capital(number=card("wood", "mitla"), brick=2, wood=1, stone=1)
    choose(state, action="done")
    spaces = [o["space"] for o in options(state) if o["action"] == "build"]
    assert spaces and all("mitla" in s for s in spaces)
    choose(state, action="build", space="mitla-plains-temple")
    choose(state, action="house")  # the Palace would be affordable too
    choose(state, action="grid", cell=3)
    choose(state, action="build", space="mitla-hills-village")
    choose(state, action="grid", cell=5)
    assert state.res[0] == [0, 0, 0, 0, 1, 0]
    assert state.space_owner[space("mitla-plains-temple")] == 0
    assert state.grid[0][3] >= 0 and state.grid[0][5] >= 0
    assert state.houses_left[0] == 7
    # Nothing left to pay with: only "done" remains.
    assert [o["action"] for o in options(state)] == ["done"]


def test_palace_example_cornfield_card():
    # Rule book: 1 Brick, 1 Stone, 1 Wood build the Palace on a Cornfield space; its tile lies
    # face down on the Palace slot, not on the grid.
    state = at_capital(number=card("wood", "cornfield"), wood=1, brick=1, stone=1)
    choose(state, action="done")
    choose(state, action="build", space="etla-plains-cornfield")
    assert [o["action"] for o in options(state)] == ["house", "palace"]
    choose(state, action="palace")
    assert state.palace[0] == space("etla-plains-cornfield")
    assert state.palace_tile[0] >= 0 and state.grid[0] == [-1] * 9
    assert state.res[0] == [0] * 6 and state.houses_left[0] == 8
    assert state.step == "build"
    set_res(state, 0, wood=1, brick=1, stone=1)
    # Once per game: no palace offered any more.
    assert find(state, action="build", space="etla-hills-cornfield") is not None
    choose(state, action="build", space="etla-hills-cornfield")
    assert state.step == "grid"


def test_build_needs_matching_space_and_resources():
    state = at_capital(number=card("wood", "temple"), brick=1, wood=1)
    choose(state, action="done")
    assert [o["action"] for o in options(state)] == ["done"]  # temple needs brick + stone
    set_res(state, 0, brick=1, stone=1)
    spaces = [o["space"] for o in options(state) if o["action"] == "build"]
    assert len(spaces) == 9 and all(s.endswith("temple") for s in spaces)


def test_turn_scoring_counts_palace_double_and_all_houses():
    state = at_capital(number=card("wood", "mitla"))
    bonus = state.bonus[-1]
    prop = DATA.action_cards[bonus].prop
    matching = [s.index for s in DATA.spaces if rules.matches(s.props, prop) and state.in_play[s.index]]
    for i in matching[:2]:
        state.space_tile[i] = -1
        state.space_owner[i] = 0
        state.houses[0].append(i)
    state.palace[0] = matching[1]
    choose(state, action="done")
    choose(state, action="done")
    assert state.score[0] == 2 + 4
    assert state.step == "draw"


def test_draw_step_then_next_player_and_cleanup():
    state = at_capital(number=1)
    choose(state, action="done")
    choose(state, action="done")
    offer = list(state.offer)
    taken = options(state)[0]["card"]
    choose(state, action="draw")
    assert taken in state.hands[0] and taken not in state.offer
    assert state.current == 1 and state.step == "income"
    choose(state, action="income", line="row")
    choose(state, action="done")
    choose(state, action="done")
    choose(state, action="draw")
    # Clean-up: the leftover Offer card is the new bonus card; played cards + 1 deck card form the Offer.
    left = [c for c in offer if c not in state.hands[0] and c not in state.hands[1]]
    assert state.bonus[-1] == left[0]
    assert len(state.offer) == 3 and len(state.deck) == 3 and 1 in state.offer
    assert state.round == 2 and state.step == "pick"


# ---------------------------------------------------------------- trade
def test_trade_prices_discounts_and_one_tile_per_level():
    state = at_capital(gold=10)
    assert {o["level"] for o in options(state) if o["action"] == "buy"} == {1, 2, 3}
    assert rules.trade_price(state, 0, 2) == 2 and rules.trade_price(state, 0, 3) == 3
    state.sac[0] = 3
    assert rules.trade_price(state, 0, 2) == 1 and rules.trade_price(state, 0, 3) == 3
    state.sac[0] = 6
    assert [rules.trade_price(state, 0, lv) for lv in (1, 2, 3)] == [1, 1, 1]  # never below 1
    state.sac[0] = 0
    choose(state, action="buy", level=2)
    assert state.res[0][4] == 8
    assert find(state, action="buy", level=2) is None
    assert find(state, action="buy", level=1) is not None
    # The display is refilled at the end of the buyer's turn.
    assert -1 in state.display[1]
    choose(state, action="done")
    choose(state, action="done")
    choose(state, action="draw")
    assert -1 not in state.display[1] and len(state.stacks[1]) == 8


def test_cannot_buy_without_gold():
    state = at_capital(gold=1)
    assert {o["level"] for o in options(state) if o["action"] == "buy"} == {1}


def _give_tile(state, tile_id: str, level_slot: bool = True) -> int:
    """Put ``tile_id`` face up in the display slot 0 of its level; returns its index."""
    tile = DATA.trade_by_id[tile_id]
    state.display[tile.level - 1][0] = tile.index
    return tile.index


LEVEL1 = [t for t in DATA.trade_tiles if t.kind == "gain"]
CONVERT = [t for t in DATA.trade_tiles if t.kind == "convert"]
BUILDERS = [t for t in DATA.trade_tiles if t.kind == "build_ignoring_card"]
OVERRIDES = [t for t in DATA.trade_tiles if t.kind == "building_cost_override"]


@pytest.mark.parametrize("tile", LEVEL1, ids=lambda t: t.id)
def test_level1_tile_gives_its_resources_at_once_and_flips(tile):
    state = at_capital(gold=1)
    _give_tile(state, tile.id)
    choose(state, action="buy", tile=tile.id)
    expected = [0] * 6
    for i, n in enumerate(tile.gain):
        expected[i] += n
    assert state.res[0] == expected
    assert tile.index in state.tiles_down[0]
    assert find(state, action="use", tile=tile.id) is None


@pytest.mark.parametrize("tile", CONVERT, ids=lambda t: t.id)
def test_level2_conversion_once_per_round_and_flips_back(tile):
    state = at_capital(gold=2, wood=2, brick=2, stone=2)
    _give_tile(state, tile.id)
    choose(state, action="buy", tile=tile.id)
    before = list(state.res[0])
    choose(state, action="use", tile=tile.id)  # usable at once
    after = [before[i] - tile.pay[i] + tile.gain[i] for i in range(6)]
    assert state.res[0] == after
    assert find(state, action="use", tile=tile.id) is None  # once per round
    choose(state, action="done")
    choose(state, action="done")
    choose(state, action="draw")
    assert tile.index not in state.tiles_down[0]  # face up again after the turn


def test_conversion_usable_during_construction():
    state = at_capital(gold=2, brick=1)
    _give_tile(state, "Z13")
    choose(state, action="buy", tile="Z13")
    choose(state, action="done")
    choose(state, action="use", tile="Z13")
    assert state.res[0][2] == 2


@pytest.mark.parametrize("tile", BUILDERS, ids=lambda t: t.id)
def test_level3_build_tile_ignores_card_and_costs_only_its_resource(tile):
    # The played card is a building type that the tile's spaces need not match.
    state = at_capital(number=card("wood", "cornfield"), gold=3, wood=1, brick=1, stone=1)
    _give_tile(state, tile.id)
    choose(state, action="buy", tile=tile.id)
    choose(state, action="done")
    choose(state, action="use", tile=tile.id)
    spaces = [o["space"] for o in options(state)]
    assert spaces and all(rules.matches(DATA.spaces[space(s)].props, tile.prop) for s in spaces)
    prompt = state.decision(0).prompt  # says where and what it costs
    assert f"a {DATA_PROPS[tile.prop]} space" in prompt
    assert f"pays 1 {RESOURCES[tile.pay.index(1)]}" in prompt
    target = next(s for s in spaces if not s.split("-")[2] == "cornfield")
    choose(state, action="tile-build", space=target)
    choose(state, action="grid", cell=0)
    expected = [1, 1, 1, 0, 0, 0]
    for i, n in enumerate(tile.pay):
        expected[i] -= n
    assert state.res[0] == expected
    assert state.space_owner[space(target)] == 0
    assert find(state, action="use", tile=tile.id) is None  # once per round


@pytest.mark.parametrize("tile", OVERRIDES, ids=lambda t: t.id)
def test_level3_cost_override_is_permanent(tile):
    kind = DATA.spaces[0].type
    state = at_capital(number=card("wood", ("cornfield", "temple", "village")[tile.prop]), gold=3)
    _give_tile(state, tile.id)
    choose(state, action="buy", tile=tile.id)
    assert rules.building_cost(state, 0, tile.prop) == tile.cost
    assert rules.building_cost(state, 0, (tile.prop + 1) % 3) == DATA.building_cost[(tile.prop + 1) % 3]
    set_res(state, 0, **{RESOURCES[i]: n for i, n in enumerate(tile.cost) if n})
    choose(state, action="done")
    assert find(state, action="build") is not None
    assert kind >= 0


def test_z34_sacrifices_four_steps_for_two_corn_without_priest_at_purchase():
    # "performed immediately" (rule book, level-3 Trade tiles): the advance comes with the purchase.
    state = at_capital(gold=3, corn=2)
    _give_tile(state, "Z34")
    choose(state, action="buy", tile="Z34")
    assert state.sac[0] == 4 and state.res[0] == [0] * 6
    assert state.pending == ["resource"]  # step 2 (assumed) gives a basic resource
    choose(state, action="take", resource="stone")
    assert state.score[0] == DATA.sacrifice_vp[1] + DATA.sacrifice_vp[4]
    assert DATA.trade_by_id["Z34"].index in state.tiles_down[0]
    assert find(state, action="use", tile="Z34") is None  # flipped for good


def test_z35_scores_with_a_hand_card_and_discards_it():
    state = at_capital(gold=3)
    _give_tile(state, "Z35")
    choose(state, action="buy", tile="Z35")
    hand_card = state.hands[0][0]
    prop = DATA.action_cards[hand_card].prop
    target = next(s.index for s in DATA.spaces if rules.matches(s.props, prop) and state.in_play[s.index])
    state.space_tile[target] = -1
    state.space_owner[target] = 0
    state.houses[0].append(target)
    choose(state, action="done")
    choose(state, action="done")
    assert len(options(state)) == 1 + len(state.hands[0])
    before = state.score[0]
    choose(state, action="score", card=hand_card, from_hand=True)
    assert state.score[0] == before + 2
    assert hand_card not in state.hands[0] and hand_card in state.discard


def test_z36_free_ritual_at_purchase_ignores_all_requirements():
    state = at_capital(gold=3)
    _give_tile(state, "Z36")
    state.ritual_discs[0] = [1]
    assert state.built_pieces[0] == 0
    choose(state, action="buy", tile="Z36")
    assert options(state)[0]["action"] == "free-ritual"  # placed now, not on a later turn
    choose(state, action="free-ritual", slot=0)
    assert 0 in state.ritual_discs[0] and state.res[0] == [0] * 6
    assert state.rituals_counted[0] == 1  # toward the limit from now on
    assert find(state, action="use", tile="Z36") is None


def test_z34_is_bought_even_when_its_effect_cannot_happen():
    """The Trade action has no condition on the tile's effect; Z34 is bought for its VP
    on a "VP per Trade tile" Ritual or to deny it, and its advance happens only if it can."""
    for corn, step in ((1, 0), (2, DATA.sacrifice_top)):  # too little Corn; already at the top
        state = at_capital(gold=3, corn=corn)
        state.sac[0] = step
        _give_tile(state, "Z34")
        price = rules.trade_price(state, 0, 3)  # 1 gold from step 6 on
        choose(state, action="buy", tile="Z34")  # was not offered
        assert state.res[0] == [0, 0, 0, corn, 3 - price, 0] and state.sac[0] == step  # no Corn paid
        assert DATA.trade_by_id["Z34"].index in state.tiles_owned[0]
        assert DATA.trade_by_id["Z34"].index in state.tiles_down[0] and state.step == "capital"


def test_z36_is_bought_even_when_every_ritual_card_holds_your_disc():
    """Z36 is offered whenever it can be paid; with no card left for it the disc is lost."""
    state = at_capital(gold=3)
    _give_tile(state, "Z36")
    state.ritual_discs = [[0], [0], [0]]
    choose(state, action="buy", tile="Z36")  # was not offered
    assert DATA.trade_by_id["Z36"].index in state.tiles_owned[0]
    assert not state.pending and state.step == "capital" and state.rituals_counted[0] == 0


def test_a_z36_disc_counts_toward_the_ritual_limit():
    """Only the step-11 disc is "completely independent from Pyramid levels"; a Z36 disc
    ignores the requirements when placed but counts afterwards: with it and 1 piece built, no
    normal Ritual is offered."""
    state = at_capital(gold=3, priest=1)
    _give_tile(state, "Z36")
    choose(state, action="buy", tile="Z36")
    choose(state, action="free-ritual", slot=0)
    state.built_pieces[0] = 1
    state._cache = None
    assert find(state, action="ritual") is None  # was offered: slots 1 and 2
    state.built_pieces[0] = 2
    state._cache = None
    assert {o["slot"] for o in options(state) if o["action"] == "ritual"} == {1, 2}


# ---------------------------------------------------------------- pyramids
def test_pyramid_new_uses_largest_piece_and_takes_a_scoring_tile():
    state = at_capital(priest=2, wood=2, brick=2, stone=2)
    prop = state.scoring_avail[0]
    choose(state, action="pyramid", new=DATA_PROPS[prop])
    assert state.pyr_tile == [prop] and prop not in state.scoring_avail
    assert state.pyr_pieces[0] == [0 * 3 + 0] and state.pieces[0] == [0, 2, 3]
    assert state.res[0] == [1, 1, 1, 0, 0, 1]
    # One level per Pyramid per round; starting another is still allowed.
    assert find(state, action="pyramid", pyramid=0) is None
    assert find(state, action="pyramid", new=DATA_PROPS[state.scoring_avail[0]]) is not None


DATA_PROPS = ("cornfield", "temple", "village", "etla", "ocotlan", "mitla", "plains", "hills", "forest")


def test_pyramid_pieces_must_be_one_size_smaller_and_complete_on_small():
    state = at_capital(priest=5, wood=5, brick=5, stone=5)
    prop = state.scoring_avail[0]
    rules.start_pyramid(state, 1, prop)  # opponent's large piece
    choose(state, action="pyramid", pyramid=0)  # seat 0 adds a medium
    assert state.pyr_pieces[0] == [3, 1]
    state.pyr_this_round[0] = []
    state.pieces[0] = [1, 2, 0]  # no small piece left: cannot add
    assert find(state, action="pyramid", pyramid=0) is None
    state.pieces[0] = [1, 1, 3]
    choose(state, action="pyramid", pyramid=0)
    assert rules.pyramid_complete(state, 0)
    state.pyr_this_round[0] = []
    assert find(state, action="pyramid", pyramid=0) is None


def test_small_pyramid_only_when_large_and_medium_are_used():
    state = at_capital(priest=1, wood=1, brick=1, stone=1)
    state.pieces[0] = [0, 1, 3]
    label = options(state)[find(state, action="pyramid", new=DATA_PROPS[state.scoring_avail[0]])]["label"]
    assert "medium" in label
    state.pieces[0] = [0, 0, 3]
    state._cache = None
    choose(state, action="pyramid", new=DATA_PROPS[state.scoring_avail[0]])
    assert rules.pyramid_complete(state, 0)  # a small Pyramid is complete at once


def test_pyramid_needs_the_full_cost():
    state = at_capital(priest=1, wood=1, brick=1)
    assert find(state, action="pyramid") is None


# ---------------------------------------------------------------- rituals
def test_ritual_needs_a_pyramid_piece_priest_and_gold_per_opponent_disc():
    state = at_capital(priest=2, gold=1)
    assert find(state, action="ritual") is None
    state.built_pieces[0] = 1
    state.ritual_discs[1] = [1]
    state._cache = None
    slots = {o["slot"] for o in options(state) if o["action"] == "ritual"}
    assert slots == {0, 1, 2}
    choose(state, action="ritual", slot=1)
    assert state.res[0] == [0, 0, 0, 0, 0, 1]
    assert find(state, action="ritual") is None  # limit: 1 piece built -> 1 Ritual


def test_ritual_limit_is_pieces_built_at_most_three():
    state = at_capital(priest=9)
    state.built_pieces[0] = 5
    for slot in range(3):
        choose(state, action="ritual", slot=slot)
    assert state.rituals_counted[0] == 3 and find(state, action="ritual") is None


def test_step_nine_removes_only_the_priest():
    state = at_capital(gold=1)
    state.sac[0] = 9
    state.built_pieces[0] = 2
    state.ritual_discs[2] = [1]
    choose(state, action="ritual", slot=0)
    assert state.res[0][4] == 1  # no priest, no gold for an empty card
    choose(state, action="ritual", slot=2)
    assert state.res[0][4] == 0  # 1 gold for the opponent disc


# ---------------------------------------------------------------- sacrifice
def test_sacrifice_costs_priest_and_corn_and_collects_every_step():
    state = at_capital(priest=1, corn=5)
    amounts = [o["corn"] for o in options(state) if o["action"] == "sacrifice"]
    assert amounts == [1, 2, 3, 4, 5]
    choose(state, action="sacrifice", corn=5)
    assert state.sac[0] == 5 and state.res[0] == [0] * 6
    assert state.score[0] == DATA.sacrifice_vp[1] + DATA.sacrifice_vp[4]
    assert state.pending == ["resource", "resource"]
    assert options(state)[0]["action"] == "take"
    choose(state, action="take", resource="wood")
    choose(state, action="take", resource="brick")
    assert state.res[0][:3] == [1, 1, 0] and state.step == "capital"


@pytest.mark.parametrize("step", range(1, 13))
def test_each_sacrifice_step_bonus(step):
    state = at_capital(priest=1, corn=1)
    state.sac[0] = step - 1
    choose(state, action="sacrifice", corn=1)
    assert state.sac[0] == step
    assert state.score[0] == DATA.sacrifice_vp[step]
    expected = ["resource"] * DATA.sacrifice_resource[step]
    if step == DATA.free_ritual_step:
        expected.append("free-ritual")
    assert state.pending == expected
    if step >= 3:
        assert rules.trade_price(state, 0, 2) == 1
    if step >= 6:
        assert rules.trade_price(state, 0, 3) == 1


def test_step_eleven_gives_a_free_ritual_without_pyramid():
    state = at_capital(priest=1, corn=1)
    state.sac[0] = 10
    choose(state, action="sacrifice", corn=1)
    choose(state, action="free-ritual", slot=2)
    assert state.ritual_discs[2] == [0] and state.rituals_counted[0] == 0  # outside the limit


def test_sacrifice_stops_at_the_top_and_stacks_on_arrival():
    state = at_capital(priest=1, corn=5)
    state.sac[0] = DATA.sacrifice_top - 2
    assert [o["corn"] for o in options(state) if o["action"] == "sacrifice"] == [1, 2]
    state.sac[0] = 0
    state.sac[1] = 2
    state.sac_clock = state.sac_order[1] = 1
    choose(state, action="sacrifice", corn=2)
    assert state.sac_order[0] > state.sac_order[1]  # on top of the stack


def test_sacrifice_needs_a_priest():
    state = at_capital(corn=3)
    assert find(state, action="sacrifice") is None


def test_once_per_round_limits_reset_next_round_but_one_off_tiles_stay_used():
    # Round 1: seat 0 buys a level-2 tile and uses it, adds to a Pyramid, uses Z34 (one-off).
    state = at_capital(gold=9, corn=2, wood=3, brick=3, stone=3, priest=2)
    z13 = _give_tile(state, "Z13")
    z34 = _give_tile(state, "Z34")
    choose(state, action="buy", tile="Z13")
    choose(state, action="buy", tile="Z34")  # performed at purchase
    while state.pending:
        choose(state, action="take", resource="wood")
    choose(state, action="use", tile="Z13")
    prop = DATA_PROPS[state.scoring_avail[0]]
    choose(state, action="pyramid", new=prop)
    assert find(state, action="buy", level=2) is None and find(state, action="pyramid", pyramid=0) is None
    while state.round == 1:
        seat = state.to_act()[0]
        if find(state, seat, action="done") is not None:
            choose(state, seat, action="done")
        else:
            state.apply(seat, 0)
    # Round 2: the per-round limits are lifted; the one-off tile stays face down for good.
    begin_turn(state, state.hands[0][0])
    choose(state, action="income", line="row")
    set_res(state, 0, gold=9, wood=3, brick=3, stone=3, priest=2, corn=2)
    state.pieces[0] = [0, 2, 3]
    assert find(state, action="buy", level=2) is not None
    assert find(state, action="buy", level=3) is not None
    assert find(state, action="use", tile="Z13") is not None and z13 not in state.tiles_down[0]
    assert find(state, action="pyramid", pyramid=0) is not None
    assert find(state, action="use", tile="Z34") is None and z34 in state.tiles_down[0]

"""One scenario per Technology, Royal tile, discovery tile kind and Temple Bonus tile."""

from __future__ import annotations

import pytest

from engine.teotihuacan.core import KIND_IDS
from engine.teotihuacan.data import DATA, MIXES
from engine.teotihuacan.rules.calendar import bonus_score
from engine.teotihuacan.rules.effects import mask_score
from tests.engine.teotihuacan.util import (
    acts,
    arrive,
    blank,
    choose,
    give,
    kind,
    own_tile,
    put,
    refresh,
    set_tech,
    start_turn,
)

PALACE, FOREST, STONE, GOLD, ALCHEMY, NOBLES, DECOR, BUILD = 1, 2, 3, 4, 5, 6, 7, 8


def _finish(st, seat=0):
    """Take the first option of every decision of ``seat`` until its turn is over."""
    while st.to_act() == (seat,) and kind(st) != "turn":
        st.apply(seat, 0)


# ---- Technologies ------------------------------------------------------------------------------------
@pytest.mark.parametrize("owned", [False, True])
def test_tech_01_cocoa_when_passing_the_palace(owned):
    st = blank(2)
    if owned:
        set_tech(st, 0, 1)
    put(st, 0, GOLD)  # place 8
    put(st, 4, FOREST)
    start_turn(st, 0)
    choose(st, "move", 0, 2)  # past the Palace to the Stone Quarry
    assert st.cocoa[0] == (1 if owned else 0)


def test_tech_03_three_vp_after_nobles():
    st = blank(2)
    set_tech(st, 0, 3)
    give(st, 0, wood=2)
    arrive(st, 0, 0, NOBLES)
    choose(st, "main", 0, 0)
    assert st.vp[0] == 3 + 3


@pytest.mark.parametrize("number,wood,cocoa,vp", [(5, 2, 0, 0), (7, 1, 1, 1)])
def test_tech_05_and_07_after_forest(number, wood, cocoa, vp):
    st = blank(2)
    set_tech(st, 0, number)
    arrive(st, 0, 0, FOREST, power=2)
    choose(st, "main", 0, 0)
    assert (st.res[0], st.cocoa[0], st.vp[0]) == (wood, cocoa, vp)


@pytest.mark.parametrize("board", [STONE, GOLD])
@pytest.mark.parametrize("number", [5, 7])
def test_tech_05_and_07_after_stone_quarry_and_gold_deposits(board, number):
    st = blank(2)
    plain = blank(2)
    for state in (st, plain):
        arrive(state, 0, 0, board, power=2)  # 1 worker, power 2: 1 stone / 1 gold
    set_tech(st, 0, number)
    refresh(st)
    for state in (st, plain):
        choose(state, "main", 0, 0)
    extra = [a - b for a, b in zip(st.res[0:3], plain.res[0:3], strict=True)]
    if number == 5:
        assert extra == [0, 1, 0] if board == STONE else extra == [0, 0, 1]
        assert (st.cocoa[0], st.vp[0]) == (plain.cocoa[0], plain.vp[0])
    else:
        assert extra == [0, 0, 0] and (st.cocoa[0], st.vp[0]) == (plain.cocoa[0] + 1, plain.vp[0] + 1)


def test_tech_03_three_vp_after_alchemy_not_after_forest():
    st = blank(2)
    set_tech(st, 0, 3)
    give(st, 0, gold=1)
    arrive(st, 0, 0, ALCHEMY)
    choose(st, "main", 0, 0)
    choose(st, 0, 0)  # Technology 01, top left, 1 gold
    assert st.vp[0] == 3
    other = blank(2)
    set_tech(other, 0, 3)
    arrive(other, 0, 0, FOREST, power=2)
    choose(other, "main", 0, 0)
    assert other.vp[0] == 0


def test_tech_01_landing_on_the_palace_and_double_move():
    st = blank(2)
    set_tech(st, 0, 1)
    own_tile(st, 0, "double_move")
    put(st, 0, GOLD)  # place 8, next to the Palace
    put(st, 1, GOLD, power=2)
    put(st, 4, FOREST)
    start_turn(st, 0)
    choose(st, "move", 0, 1)  # onto the Palace: +1
    choose(st, "w", 1)  # the second worker comes along: +1 more
    assert st.cocoa[0] == 2 and st.wb[1] == PALACE


def test_tech_09_four_vp_after_decorations():
    st = blank(2)
    set_tech(st, 0, 9)
    st.deco_offer = [6, 1, 2, 3]  # tile 6: B . over printed r g: no match
    give(st, 0, gold=3)
    arrive(st, 0, 0, DECOR)
    choose(st, "main", 0, 0)
    choose(st, 0, 0)
    assert st.vp[0] == 3 + 4


def _build_two(st):
    put(st, 1, BUILD, power=2)
    give(st, 0, cocoa=1, stone=4, wood=0)
    arrive(st, 0, 0, BUILD)
    choose(st, "main", 0, 0)
    for _ in range(2):
        tiles = [a for a in acts(st) if a[0] == "tile"]
        choose(st, *tiles[0])
        level_one = [a for a in acts(st) if DATA.positions[a[0]].level == 1]
        choose(st, *level_one[0])
        if kind(st) == "build-rot":
            st.apply(0, 0)
        while kind(st) in ("any-res", "any-temple", "major"):
            st.apply(0, 0)


def test_tech_11_three_vp_once_per_construction():
    st = blank(2)
    plain = blank(2)
    set_tech(st, 0, 11)
    _build_two(st)
    _build_two(plain)
    assert st.vp[0] - plain.vp[0] == 3


def test_tech_17_one_temple_step_per_construction():
    st = blank(2)
    plain = blank(2)
    set_tech(st, 0, 17)
    _build_two(st)
    _build_two(plain)
    assert sum(st.temple[0:3]) == sum(plain.temple[0:3]) + 1


def test_tech_13_paid_extra_power_up():
    st = blank(2)
    set_tech(st, 0, 13)
    give(st, 0, cocoa=1)
    arrive(st, 0, 0, FOREST, power=2)
    choose(st, "main", 0, 0)
    assert kind(st) == "tech13"
    choose(st, "pay")
    assert st.cocoa[0] == 0 and st.wp[0] == 4


def test_tech_15_virtual_worker_and_discount():
    st = blank(2)
    set_tech(st, 0, 15)
    give(st, 0, stone=3)
    arrive(st, 0, 0, BUILD)
    choose(st, "main", 0, 0)
    assert st.stack[-1][2] == 2  # one worker + the technology's worker: 2 tiles
    tiles = [a for a in acts(st) if a[0] == "tile"]
    choose(st, *tiles[0])
    # the discount may go on this tile (stone off) or be kept for the second one (full price)
    assert {a[1] for a in acts(st)} == {0, 1, -1}  # 1: wood off a level-2 tile, free of wood
    level_one = [a for a in acts(st) if DATA.positions[a[0]].level == 1 and a[1] == 0]
    choose(st, *level_one[0])
    if kind(st) == "build-rot":
        st.apply(0, 0)
    while kind(st) in ("any-res", "any-temple", "major"):
        st.apply(0, 0)
    assert st.res[1] == 2  # paid 1 stone: 2 - 1 discount


def test_tech_15_discount_goes_on_the_tile_of_the_players_choice():
    """The rule "resolve it as if you had an additional worker that also granted a discount of 1
    resource": the discount belongs to the action. With 4 stone and no wood, a full-price level-1
    tile (2 stone) and then the level-2 tile it completes (2 stone, the wood discounted)."""
    st = blank(2)
    set_tech(st, 0, 15)
    give(st, 0, stone=4)
    placed = st.pyr_pos
    top, last = next(
        (p, missing[0])
        for p, pos in enumerate(DATA.positions)
        if pos.level == 2
        and len(missing := [s for s in pos.supports if placed[s] < 0]) == 1
        and not DATA.positions[missing[0]].supports
    )
    arrive(st, 0, 0, BUILD)
    choose(st, "main", 0, 0)
    choose(st, "tile", 0)
    assert [last, -1] in acts(st)  # before the fix only the discounted prices were offered
    choose(st, last, -1)
    _settle(st)
    assert st.res[1] == 2 and st.stack[-1][4] == 1  # full price paid, the discount kept
    choose(st, "tile", 1)  # slot 0 is refilled only when the action ends
    assert [top, 1] in acts(st)  # 2 stone, no wood: only with the wood discounted
    assert all(a[1] >= 0 for a in acts(st))  # the last tile: no reason to keep the discount
    choose(st, top, 1)
    _settle(st)
    assert st.pyr_pos[last] >= 0 and st.pyr_pos[top] >= 0 and st.res[0:2] == [0, 0]


def _settle(st):
    """Turn the tile (first rotation) and take the first option of what its icons bring."""
    if kind(st) == "build-rot":
        st.apply(0, 0)
    while kind(st) in ("any-res", "any-temple", "major", "use-tiles"):
        st.apply(0, 0)


# ---- Royal tiles --------------------------------------------------------------------------------------
def _royal(number, power, seat=0, **have):
    st = blank(2)
    st.royal[0] = number
    st.d_offer[0] = 0  # no tile beside the Palace: the ability alone
    put(st, 4, FOREST)
    give(st, seat, **have)
    arrive(st, seat, 0, PALACE, power=power)
    choose(st, "worship", 0)
    return st


def test_royal_01_cocoa_power_plus_one():
    st = _royal(1, 3)
    assert st.cocoa[0] == 4


def test_royal_02_cocoa_for_wood_and_stone():
    st = _royal(2, 2, cocoa=5)
    assert acts(st) == [[2], [1], [0]]
    choose(st, 2)
    assert st.cocoa[0] == 3 and st.res[0:2] == [2, 2]


def test_royal_03_resources_for_two_cocoa_each():
    st = _royal(3, 2, wood=1, stone=1)
    choose(st, 2)
    assert st.cocoa[0] == 4 and st.res[0:3] == [0, 0, 0]


def test_royal_04_two_vp_per_technology_up_to_power():
    st = blank(2)
    st.tech_marks[0] = st.tech_marks[1] = 1
    st.royal[0] = 4
    st.d_offer[0] = 0
    put(st, 4, FOREST)
    arrive(st, 0, 0, PALACE, power=3)
    choose(st, "worship", 0)
    assert st.vp[0] == 4


def test_royal_05_two_vp_per_pyramid_step_up_to_power():
    st = blank(2)
    st.ptrack[0] = 4
    st.royal[0] = 5
    st.d_offer[0] = 0
    put(st, 4, FOREST)
    arrive(st, 0, 0, PALACE, power=2)
    choose(st, "worship", 0)
    assert st.vp[0] == 4


def test_royal_06_cocoa_for_gold_and_stone():
    st = _royal(6, 1, cocoa=1)
    choose(st, 1)
    assert st.cocoa[0] == 0 and st.res[1:3] == [1, 1]


def test_royal_07_one_cocoa_and_resource_for_power_resources():
    st = _royal(7, 3, cocoa=1, wood=1)
    choose(st, "pay", 0)
    choose(st, 0, 0, 3)
    assert st.cocoa[0] == 0 and st.res[0:3] == [0, 0, 3]


def test_royal_08_cocoa_for_temple_steps_up_to_power_minus_one():
    st = _royal(8, 3, cocoa=5)
    assert acts(st) == [[2], [1], [0]]
    choose(st, 2)
    choose(st, 1)
    choose(st, 1)
    assert st.cocoa[0] == 3 and st.temple[1] == 2


def test_royal_09_avenue_vp_up_to_power_plus_one():
    st = blank(2)
    st.avenue[0] = 5
    st.royal[0] = 9
    st.d_offer[0] = 0
    put(st, 4, FOREST)
    arrive(st, 0, 0, PALACE, power=2)
    choose(st, "worship", 0)
    assert st.vp[0] == 3


# ---- discovery tiles -----------------------------------------------------------------------------------
INSTANT = [
    ("vp_4", (4, 0, 0, 0, 0)),
    ("cocoa_4", (0, 4, 0, 0, 0)),
    ("avenue_step", (0, 0, 1, 0, 0)),
    ("blue_temple_step", (0, 0, 0, 1, 0)),
    ("red_temple_step", (1, 0, 0, 0, 1)),
    ("green_temple_step", (0, 1, 0, 0, 0)),
]


@pytest.mark.parametrize("tile_kind,expected", INSTANT)
def test_instant_discovery_tiles(tile_kind, expected):
    st = blank(2)
    put(st, 0, FOREST)
    put(st, 4, FOREST)
    tid = own_tile(st, 0, tile_kind)
    start_turn(st, 0)
    choose(st, "use", tid)
    while kind(st) == "any-res":
        choose(st, 1, 0, 0)
    assert st.d_used[tid] == 1 and kind(st) == "turn"
    assert (st.vp[0], st.cocoa[0], st.avenue[0], st.res[0], st.temple[1]) == expected


@pytest.mark.parametrize("tile_kind,count", [("resources_3", 3), ("resources_2", 2)])
def test_any_resource_tiles(tile_kind, count):
    st = blank(2)
    put(st, 0, FOREST)
    tid = own_tile(st, 0, tile_kind)
    start_turn(st, 0)
    choose(st, "use", tid)
    assert len(acts(st)) == len(MIXES[count])
    choose(st, 0, 0, count)
    assert st.res[2] == count


def test_any_temple_tile_and_power_up_two():
    st = blank(2)
    put(st, 0, FOREST, power=2)
    put(st, 1, STONE, power=3)
    t1 = own_tile(st, 0, "any_temple_step")
    t2 = own_tile(st, 0, "power_up_2")
    start_turn(st, 0)
    choose(st, "use", t1)
    choose(st, 2)
    assert st.temple[2] == 1 and st.cocoa[0] == 1
    choose(st, "use", t2)
    choose(st, "w", 0)
    choose(st, "w", 0)
    assert st.wp[0] == 4 and st.wp[1] == 3


def test_masks_score_sets_of_different_masks():
    st = blank(2)
    for k in ("mask_1", "mask_2", "mask_4"):
        own_tile(st, 0, k)
    own_tile(st, 0, "mask_4", 1)
    assert mask_score(st, 0) == 6 + 1  # {1, 2, 4} and {4}


def test_double_move_tile_moves_a_second_worker_along():
    st = blank(2)
    put(st, 0, FOREST)
    put(st, 1, FOREST, power=2)
    put(st, 4, FOREST)
    tid = own_tile(st, 0, "double_move")
    start_turn(st, 0)
    choose(st, "move", 0, 1)
    choose(st, "w", 1)
    assert st.wb[1] == st.wb[0] == BUILD and st.d_used[tid]


def test_move_anywhere_tile():
    st = blank(2)
    put(st, 0, FOREST)
    put(st, 4, FOREST)
    tid = own_tile(st, 0, "move_anywhere")
    start_turn(st, 0)
    choose(st, "anywhere", tid)
    assert kind(st) == "anywhere-d"  # the only worker was picked for the player
    choose(st, 6)  # place 4 + 6 -> place 2: Stone Quarry
    assert st.wb[0] == STONE and st.d_used[tid]


def test_free_payment_tile_for_a_main_action():
    st = blank(2)
    put(st, 4, FOREST)
    put(st, 1, FOREST)
    tid = own_tile(st, 0, "free_payment")
    arrive(st, 0, 0, FOREST, power=2)
    assert ["main", 0, 1] in acts(st) and ["main", 0, 0] not in acts(st)  # no cocoa for the 2
    choose(st, "main", 0, 1)
    assert st.d_used[tid] and st.cocoa[0] == 0


def test_free_payment_tile_for_worship_unlock_and_both():
    st = blank(2)
    put(st, 4, FOREST, space=3)
    tid = own_tile(st, 0, "free_payment")
    arrive(st, 0, 0, FOREST)
    choose(st, "worship", 3)
    assert ["both", 1] in acts(st)
    choose(st, "both", 1)
    assert st.d_used[tid] and st.ws[4] == -1 and st.temple[1] == 1


def test_additional_worker_tile_opens_alchemy_bottom_row():
    st = blank(2)
    put(st, 4, FOREST)
    tid = own_tile(st, 0, "additional_worker")
    give(st, 0, gold=2)
    arrive(st, 0, 0, ALCHEMY)
    choose(st, "main", 1, 0)
    assert st.d_used[tid]
    assert [3, 0] in acts(st)  # second row, power-up kept


def test_claiming_needs_the_cost():
    st = blank(2)
    tile = KIND_IDS["mask_1"][0]  # 2 cocoa + 1 gold
    st.d_offer[1] = tile
    put(st, 4, FOREST)
    give(st, 0, cocoa=2)
    arrive(st, 0, 0, FOREST)
    choose(st, "worship", 3)
    assert ["discovery", 0] not in acts(st)


# ---- Temple Bonus tiles ----------------------------------------------------------------------------------
def _bonus(number, temples=(10, 0, 0)):
    st = blank(2)
    st.bonus = [number, 3, 3]
    st.temple[0:3] = list(temples)
    return st


def test_bonus_1_best_mask_set_again():
    st = _bonus(1)
    own_tile(st, 0, "mask_1")
    own_tile(st, 0, "mask_2")
    assert bonus_score(st, 0) == 3


def test_bonus_2_five_per_technology():
    st = _bonus(2)
    st.tech_marks[0] = st.tech_marks[4] = 1
    assert bonus_score(st, 0) == 10


def test_bonus_3_fifteen():
    assert bonus_score(_bonus(3, (11, 0, 0)), 0) == 15
    assert bonus_score(_bonus(3, (9, 0, 0)), 0) == 0


def test_bonus_4_three_per_avenue_step():
    st = _bonus(4)
    st.avenue[0] = 4
    assert bonus_score(st, 0) == 12


def test_bonus_5_nine_per_bonus_tile_reached():
    st = _bonus(5, (10, 10, 0))
    assert bonus_score(st, 0) == 18 + 15


def test_bonus_6_two_per_non_mask_discovery():
    st = _bonus(6)
    own_tile(st, 0, "vp_4")
    t = own_tile(st, 0, "cocoa_4")
    st.d_used[t] = 1
    own_tile(st, 0, "mask_4")
    assert bonus_score(st, 0) == 4


def test_bonus_7_workers_by_power():
    st = _bonus(7)
    put(st, 0, FOREST, power=3)
    put(st, 1, FOREST, power=4)
    put(st, 2, FOREST, power=5)
    assert bonus_score(st, 0) == 4 + 9 + 9


def test_bonus_needs_step_ten():
    st = _bonus(3, (0, 0, 0))
    st.bonus = [3, 3, 3]
    st.temple[0:3] = [9, 9, 9]
    assert bonus_score(st, 0) == 0


# ---- a tile claimed during the turn may be flipped at once ("even immediately after claiming it") -------
def _offer(st, slot: int, tid: int) -> None:
    if tid in st.d_deck:
        st.d_deck.remove(tid)
    st.d_offer[slot] = tid


def test_worship_both_in_either_order_claimed_tile_used_before_the_ability():
    st = blank(2)
    st.royal[0] = 7  # pay 1 cocoa + 1 resource: gain power resources
    tile = KIND_IDS["resources_2"][0]
    _offer(st, 0, tile)
    give(st, 0, cocoa=2)  # no resource at all: only the claimed tile can feed Royal tile 07
    put(st, 4, FOREST)
    arrive(st, 0, 0, PALACE, power=3)
    choose(st, "worship", 0)
    choose(st, "claim-first", 0)  # claim the tile first (1 cocoa for both), then the ability
    assert st.d_owner[tile] == 0 and st.cocoa[0] == 1
    choose(st, "use", tile)
    choose(st, 2, 0, 0)  # the tile's 2 resources: 2 wood (no tile left: "go on" is forced)
    choose(st, "pay", 0)  # Royal 07: 1 cocoa + 1 wood
    choose(st, 0, 0, 3)  # 3 gold for the power-3 worker
    assert st.cocoa[0] == 0 and st.res[0:3] == [1, 0, 3]


def test_claim_first_is_offered_only_for_a_tile_usable_at_once():
    st = blank(2)
    st.royal[0] = 1
    _offer(st, 0, KIND_IDS["mask_4"][0])
    give(st, 0, cocoa=3, wood=1)
    put(st, 4, FOREST)
    arrive(st, 0, 0, PALACE)
    choose(st, "worship", 0)
    assert sorted(a[0] for a in acts(st)) == ["ability", "both"]  # the order cannot matter for a mask


def test_tile_flipped_between_two_pyramid_tiles_pays_for_the_second():
    st = blank(2)
    put(st, 1, BUILD, power=2)
    tile = own_tile(st, 0, "resources_2")
    give(st, 0, cocoa=1, stone=2)
    arrive(st, 0, 0, BUILD)
    choose(st, "main", 0, 0)
    choose(st, "tile", 0)
    level_one = [a for a in acts(st) if DATA.positions[a[0]].level == 1]
    choose(st, *level_one[0])
    while kind(st) == "build-rot":
        st.apply(0, 0)
    assert kind(st) == "use-tiles" and st.res[1] == 0
    choose(st, "use", tile)
    choose(st, 0, 2, 0)  # 2 stone (no tile left: "go on" is forced)
    choose(st, "tile", 1)
    level_one = [a for a in acts(st) if DATA.positions[a[0]].level == 1]
    choose(st, *level_one[0])
    while kind(st) == "build-rot":
        st.apply(0, 0)
    assert st.ptrack[0] == 2 and st.res[1] == 0


def test_worship_both_a_tile_won_by_the_ability_may_pay_for_the_worship_tile():
    from engine.teotihuacan.rules.effects import major_index

    st = blank(2)
    st.temple[1] = 4  # red step 5 (major) is next: the Forest sidebar's step reaches it
    cocoa_tile, offer_tile = KIND_IDS["cocoa_4"][0], KIND_IDS["resources_3"][0]  # costs 1 gold / 1 cocoa
    st.d_temple[major_index(1, 5)] = [cocoa_tile]
    _offer(st, 1, offer_tile)
    give(st, 0, cocoa=1, gold=1)
    put(st, 4, STONE)
    arrive(st, 0, 0, FOREST)
    choose(st, "worship", 3)
    choose(st, "both", 0)  # 1 cocoa for both: none left
    choose(st, "tile", cocoa_tile)  # red step 5: the cocoa tile, paying 1 gold
    choose(st, "use", cocoa_tile)  # flipped at once: 4 cocoa
    choose(st, "claim")  # now the Forest tile's 1 cocoa can be paid
    assert st.d_owner[offer_tile] == 0 and st.cocoa[0] == 3

"""Every EXAMPLE box of the rulebook (teotihuacan-base-with-examples.txt) as a scenario.

Colours: Black = seat 0, Red = seat 1, Yellow = seat 2, Blue = seat 3 (4 players).
Worship spaces: 0-2 Palace Royal tiles, 3 Forest, 4 Stone Quarry, 5 Gold Deposits, 6 Decorations.
"""

from __future__ import annotations

from engine.teotihuacan.core import KIND_IDS
from engine.teotihuacan.data import DATA
from tests.engine.teotihuacan.util import acts, arrive, blank, choose, give, kind, put, refresh

BLACK, RED, YELLOW, BLUE = 0, 1, 2, 3
STONE, FOREST, ALCHEMY, NOBLES, DECOR, BUILD = 3, 2, 5, 6, 7, 8


def _quarry_with_others():
    st = blank(4)
    put(st, RED * 4, STONE)
    put(st, YELLOW * 4, STONE)
    put(st, BLUE * 4, STONE, space=4)  # locked in the Stone Quarry Worship space
    return st


def test_collect_cocoa_counts_unlocked_colours_already_there():
    st = _quarry_with_others()
    give(st, BLACK, cocoa=1)
    arrive(st, BLACK, 0, STONE)
    choose(st, "cocoa")
    assert st.cocoa[BLACK] == 1 + 3  # Red + Yellow + 1; the locked Blue and Black's own mover do not count


def test_worship_unlocking_blue_and_taking_both():
    st = blank(4)
    put(st, BLUE * 4, STONE, space=4)
    tile = KIND_IDS["resources_3"][0]  # costs 1 cocoa
    st.d_offer[2] = tile
    give(st, RED, cocoa=3)
    arrive(st, RED, RED * 4, STONE)
    choose(st, "worship", 4)
    choose(st, "both", 0)
    choose(st, "claim")
    assert st.ws[BLUE * 4] == -1 and st.space_occ[4] == RED * 4  # Blue unlocked, Red locked there
    assert st.temple[RED * 3 + 2] == 1  # Stone Quarry worships the green temple
    assert st.d_owner[tile] == RED and st.d_offer[2] not in (0, tile)  # claimed, then replaced
    assert st.cocoa[RED] == 3 - 1 - 1 - 1 + 1  # unlock, both, tile cost; green step 1 gives 1 cocoa


def test_main_action_cost_counts_own_earlier_worker_but_not_locked_blue():
    st = _quarry_with_others()
    put(st, 1, STONE)  # Black's earlier worker
    give(st, BLACK, cocoa=3)
    arrive(st, BLACK, 0, STONE)
    assert ["main", 0, 0] in acts(st)
    give(st, BLACK, cocoa=2)
    refresh(st)
    assert not any(a[0] == "main" for a in acts(st))  # 2 cocoa is not enough: the cost is 3


def test_forest_two_workers_lowest_power_two_gives_two_wood_and_one_power_up():
    st = blank(4)
    put(st, BLUE * 4 + 1, FOREST, power=5)
    give(st, BLUE, cocoa=1)
    arrive(st, BLUE, BLUE * 4, FOREST, power=2)
    choose(st, "main", 0, 0)
    assert st.res[BLUE * 3] == 2
    assert kind(st) == "power-up"
    assert sorted(a[0] for a in acts(st)) == ["w", "w"]  # one mandatory power-up, no second one
    choose(st, "w", BLUE * 4)
    assert st.wp[BLUE * 4] == 3


def test_alchemy_single_power_four_worker_top_row_with_power_up_or_bottom_without():
    st = blank(4)
    give(st, BLUE, gold=5)
    arrive(st, BLUE, BLUE * 4, ALCHEMY, power=4)
    choose(st, "main", 0, 0)
    assert acts(st) == [[0, 0], [1, 0], [2, 0], [3, 1], [4, 1], [5, 1]]
    top = st.clone()
    choose(top, 0, 0)
    choose(top, 1, 0, 0)  # the blue step's "any resource"
    assert top.wp[BLUE * 4] == 5
    choose(st, 3, 1)
    choose(st, 1, 0, 0)
    assert st.wp[BLUE * 4] == 4 and st.tech_marks[3] == 1 << BLUE


def test_nobles_two_workers_centre_row_four_vp_and_avenue_step():
    st = blank(4)
    st.nob_taken[1] = 0b1  # the EXAMPLE's picture already shows a building in the centre row
    st.buildings_taken = 1
    put(st, RED * 4 + 1, NOBLES)
    give(st, RED, cocoa=1, wood=2)
    arrive(st, RED, RED * 4, NOBLES)
    choose(st, "main", 0, 0)
    assert st.vp[RED] == 4 and st.avenue[RED] == 1 and st.res[RED * 3] == 0
    assert st.nob_taken[1] == 0b11 and st.buildings_taken == 2


def _pyramid_under_top_side(st):
    idx = DATA.position_index
    for key in ((1, 0, 1), (1, 0, 2), (2, 0, 1)):
        st.pyr_pos[idx[key]] = 0
    st.deco_space[0] = 5  # a decoration on the top side's level 1
    st.grid[3], st.grid[4] = "b", "g"  # squares under the top side's level 2 space


def test_decoration_level_two_one_match_scores_four_and_blue_step():
    st = blank(4)
    _pyramid_under_top_side(st)
    st.deco_offer = [1, 2, 3, 4]  # tile 1 shows blue then red
    give(st, BLACK, gold=3)
    arrive(st, BLACK, 0, DECOR)
    choose(st, "main", 0, 0)
    assert [0, 2] not in acts(st)  # level 3 needs a decoration on level 2 first
    choose(st, 0, 1)
    assert st.vp[BLACK] == 4 and st.temple[BLACK * 3] == 1 and st.ptrack[BLACK] == 1
    assert st.res[BLACK * 3 + 2] == 0


def test_construction_level_two_costs_two_stone_one_wood_scores_six_and_blue_step():
    st = blank(4)
    idx = DATA.position_index
    pos = idx[(2, 0, 0)]
    for key in ((1, 0, 0), (1, 0, 1), (1, 1, 0), (1, 1, 1)):
        st.pyr_pos[idx[key]] = 0
    st.pyr_pos[pos] = -1
    for q, icon in zip(DATA.positions[pos].squares, "rbrg", strict=True):
        st.grid[q] = icon
    st.pyr_offer = [29, 30, 31]  # tile 29: r B r b
    give(st, BLUE, stone=2, wood=1)
    arrive(st, BLUE, BLUE * 4, BUILD)
    choose(st, "main", 0, 0)
    choose(st, "tile", 0)
    choose(st, pos, -1)
    choose(st, 0)
    assert st.vp[BLUE] == 6 and st.temple[BLUE * 3] == 1 and st.ptrack[BLUE] == 1
    assert st.res[BLUE * 3 : BLUE * 3 + 2] == [0, 0]


def test_eclipse_after_rest_of_round_and_one_more_full_round():
    st = blank(4)
    for seat in (BLACK, YELLOW, BLUE):
        for k in range(3):
            put(st, seat * 4 + k, 1)  # everyone else waits at the Palace
    put(st, RED * 4, FOREST, power=5)
    put(st, RED * 4 + 1, FOREST, power=5)
    st.light = st.dark - 1
    give(st, RED, cocoa=1)
    arrive(st, RED, RED * 4 + 2, FOREST)  # the second player's turn
    choose(st, "main", 0, 0)
    choose(st, "w", RED * 4)  # power 5 -> 6: Ascension, the light disc reaches the dark disc
    choose(st, "vp")
    assert st.light == st.dark and st.vp[RED] == 5 and st.avenue[RED] == 1
    choose(st, "skip")
    turns = []
    while st.eclipses == 0:
        seat = st.to_act()[0]
        if kind(st) == "turn":
            turns.append(seat)
        st.apply(seat, 0)
    assert turns == [YELLOW, BLUE, BLACK, RED, YELLOW, BLUE]

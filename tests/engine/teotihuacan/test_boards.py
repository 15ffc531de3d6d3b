"""One scenario (or more) per action board, plus turns, power-ups, Ascension, temples, Avenue."""

from __future__ import annotations

import pytest

from engine.teotihuacan.data import DATA
from engine.teotihuacan.flow import push, run
from tests.engine.teotihuacan.util import acts, arrive, blank, choose, give, kind, put, refresh, start_turn

PALACE, FOREST, STONE, GOLD, ALCHEMY, NOBLES, DECOR, BUILD = 1, 2, 3, 4, 5, 6, 7, 8


# ---- turn structure ----------------------------------------------------------------------------
def test_moves_are_one_to_three_boards_clockwise_with_wrap():
    st = blank(2)
    put(st, 0, DECOR)  # place 6: Decorations -> Nobles, Gold Deposits, Palace
    start_turn(st, 0)
    labels = [o["label"] for o in st.decision(0).options]
    assert [a for a in acts(st) if a[0] == "move"] == [["move", 0, 1], ["move", 0, 2], ["move", 0, 3]]
    assert "Nobles" in labels[0] and "Gold Deposits" in labels[1] and "Palace" in labels[2]


def test_locked_workers_free_unlock_or_pay_three():
    st = blank(2)
    put(st, 0, FOREST, space=3)
    put(st, 1, STONE, space=4)
    put(st, 2, GOLD, space=5)
    put(st, 4, FOREST)
    start_turn(st, 0)
    # with no cocoa the only option (free unlock) was taken for the player, ending the turn
    assert st.ws[0:3] == [-1, -1, -1] and st.space_occ[3:6] == [-1, -1, -1]
    assert st.to_act() == (1,)
    put(st, 0, FOREST, space=3)
    give(st, 0, cocoa=3)
    start_turn(st, 0)
    choose(st, "unlock-pay")
    assert st.cocoa[0] == 0 and st.ws[0] == -1 and kind(st) == "turn"  # the turn goes on


def test_worship_never_unlocks_your_own_worker():
    st = blank(2)
    put(st, 1, FOREST, space=3)
    give(st, 0, cocoa=5)
    arrive(st, 0, 0, FOREST)
    assert not any(a[0] == "worship" for a in acts(st))


def test_worker_count_capped_at_three_and_neutral_counts_as_a_colour():
    st = blank(2)
    for k in range(1, 4):
        put(st, k, FOREST, power=5)
    st.wp[3] = 5
    put(st, 8, FOREST)  # a neutral worker
    give(st, 0, cocoa=2)
    arrive(st, 0, 0, FOREST, power=5)  # moving worker 0 makes 4 own workers there
    assert ["main", 0, 0] in acts(st)  # cost 2: own colour + neutral colour
    choose(st, "main", 0, 0)
    assert st.cocoa[0] == 0 + 5  # row 3, power 4-5: 4 wood and 5 cocoa
    assert st.res[0] == 4


# ---- Palace (1) ----------------------------------------------------------------------------------------
def test_palace_has_no_main_action_and_no_discovery_only_worship():
    st = blank(2)
    give(st, 0, cocoa=2)
    arrive(st, 0, 0, PALACE)
    assert acts(st) == [["cocoa"], ["worship", 0], ["worship", 1], ["worship", 2]]
    choose(st, "worship", 2)  # first game: Royal tile 04 on the right
    assert sorted(a[0] for a in acts(st)) == ["ability", "both"]


# ---- Forest (2), Stone Quarry (3), Gold Deposits (4) ---------------------------------------------------
@pytest.mark.parametrize("board", [FOREST, STONE, GOLD])
@pytest.mark.parametrize("workers,power", [(1, 1), (1, 3), (2, 2), (2, 5), (3, 1), (3, 4)])
def test_resource_grids_give_the_printed_cell(board, workers, power):
    st = blank(2)
    for k in range(1, workers):
        put(st, k, board, power=5)
    give(st, 0, cocoa=1 if workers > 1 else 0)  # own colour already there: 1 cocoa
    arrive(st, 0, 0, board, power=power)
    choose(st, "main", 0, 0)
    while kind(st) == "any-temple":
        choose(st, 1)  # red: 1 VP on steps 1 and 2
    cell = DATA.grids[board][workers - 1][power - 1]
    assert st.res[0:3] == [cell.get("wood", 0), cell.get("stone", 0), cell.get("gold", 0)]
    assert st.vp[0] == cell.get("vp", 0) + cell.get("any_temple", 0)
    assert st.cocoa[0] == cell.get("cocoa", 0)
    assert sum(st.temple[0:3]) == cell.get("any_temple", 0)


def test_three_workers_may_power_up_twice():
    st = blank(2)
    put(st, 1, FOREST, power=2)
    put(st, 2, FOREST, power=3)
    give(st, 0, cocoa=1)
    arrive(st, 0, 0, FOREST)
    choose(st, "main", 0, 0)
    choose(st, "w", 1)
    assert ["skip"] in acts(st)  # the second power-up is optional
    choose(st, "w", 1)
    assert st.wp[1] == 4


# ---- Alchemy (5) -------------------------------------------------------------------------------------------
def test_alchemy_rows_cost_and_three_vp_to_earlier_owners():
    st = blank(2)
    give(st, 0, gold=1)
    arrive(st, 0, 0, ALCHEMY, power=1)
    choose(st, "main", 0, 0)
    assert all(a[0] < 3 for a in acts(st))  # one worker of power 1: first row only
    st2 = blank(2)
    st2.tech_marks[4] = 0b10  # player 2 already owns Technology 15 (centre column, bottom row)
    put(st2, 1, ALCHEMY)
    give(st2, 0, cocoa=1, gold=2)
    arrive(st2, 0, 0, ALCHEMY)
    choose(st2, "main", 0, 0)
    choose(st2, 4, 0)
    assert st2.vp[1] == 3 and st2.res[2] == 0 and st2.tech_marks[4] == 0b11
    assert st2.temple[1] == 1  # centre column: red temple


def test_alchemy_never_twice_the_same_technology():
    st = blank(2)
    st.tech_marks = [1, 1, 1, 0, 0, 0]
    give(st, 0, gold=5)
    arrive(st, 0, 0, ALCHEMY)
    assert st.cocoa[0] == 1  # Collect Cocoa was the only action left, so it was taken


# ---- Nobles (6) --------------------------------------------------------------------------------------------
def test_nobles_one_worker_top_row_full_means_no_action():
    st = blank(2)
    st.nob_taken[0] = 0b11111
    give(st, 0, wood=2)
    arrive(st, 0, 0, NOBLES)
    assert st.cocoa[0] == 1 and st.res[0] == 2  # only Collect Cocoa was possible


def test_nobles_three_workers_bottom_full_choose_a_row_above():
    st = blank(2)
    st.nob_taken = [0, 0, 0b111]
    put(st, 1, NOBLES)
    put(st, 2, NOBLES, power=2)
    give(st, 0, cocoa=1, wood=2)
    arrive(st, 0, 0, NOBLES)
    choose(st, "main", 0, 0)
    assert acts(st) == [[1], [0]]
    choose(st, 0)
    assert st.vp[0] == 3 and st.avenue[0] == 1 and st.buildings_taken == 1


# ---- Decorations (7) ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("workers,cost", [(1, 3), (2, 2), (3, 1)])
def test_decoration_cost_falls_with_more_workers(workers, cost):
    st = blank(2)
    st.deco_offer = [9, 1, 2, 3]
    for k in range(1, workers):
        put(st, k, DECOR, power=k)
    give(st, 0, cocoa=1, gold=cost - 1)
    arrive(st, 0, 0, DECOR)
    assert not any(a[0] == "main" for a in acts(st))  # one gold short
    give(st, 0, cocoa=1, gold=cost)
    refresh(st)
    choose(st, "main", 0, 0)
    choose(st, 0, 0)
    assert st.res[2] == 0 and st.deco_space[0] == 9


def test_decoration_level_one_scores_printed_icons_and_track():
    st = blank(2)
    st.deco_offer = [9, 1, 2, 3]  # tile 9: R G; top side level 1 prints r g
    give(st, 0, gold=3)
    arrive(st, 0, 0, DECOR)
    choose(st, "main", 0, 0)
    choose(st, 0, 0)
    while kind(st) == "any-res":
        choose(st, 1, 0, 0)
    assert st.vp[0] == 2 + 3 + 1 and st.temple[1] == 1 and st.temple[2] == 1 and st.ptrack[0] == 1
    assert st.deco_space[0] == 9 and st.deco_offer[0] not in (0, 9)


# ---- Construction (8) --------------------------------------------------------------------------------------
def test_construction_one_tile_per_worker_and_level_one_cost():
    st = blank(2)
    put(st, 1, BUILD, power=2)
    give(st, 0, cocoa=1, stone=6)
    arrive(st, 0, 0, BUILD)
    choose(st, "main", 0, 0)
    placed = 0
    while kind(st) in ("build", "build-pos", "build-rot"):
        if kind(st) == "build":
            tiles = [a for a in acts(st) if a[0] == "tile"]
            choose(st, *tiles[0])
        elif kind(st) == "build-pos":
            level_one = [a for a in acts(st) if DATA.positions[a[0]].level == 1]
            choose(st, *level_one[0])
            placed += 1
        else:
            st.apply(0, 0)
    assert placed == 2 and st.res[1] == 2 and st.ptrack[0] == 2
    assert kind(st) == "power-up"  # no third tile with 2 workers


def test_top_tile_finishes_the_pyramid_and_triggers_the_final_eclipse():
    st = blank(2)
    for i, pos in enumerate(DATA.positions):
        st.pyr_pos[i] = -1 if pos.level == 4 else 0
    give(st, 0, stone=2, wood=3)
    put(st, 4, FOREST)
    arrive(st, 0, 0, BUILD)
    choose(st, "main", 0, 0)
    while kind(st) != "turn" and st.to_act() == (0,):
        st.apply(0, 0)
    assert st.pyramid_done and st.light == st.dark and st.vp[0] >= 7
    while not st.terminal():
        seat = st.to_act()[0]
        st.apply(seat, 0)
    assert st.eclipses == 1  # the first Eclipse was the final one


# ---- power-ups and Ascension --------------------------------------------------------------------------------
@pytest.mark.parametrize("reward", ["vp", "cocoa", "temple", "temples", "worker"])
def test_ascension_rewards(reward):
    st = blank(2)
    put(st, 1, PALACE)
    put(st, 2, PALACE)
    give(st, 0, cocoa=4)
    st.stack = [("end-turn", 0), ("power-up", 0, 0, 0)]
    put(st, 0, FOREST, power=5)
    st.wp[1] = st.wp[2] = 2
    run(st)
    choose(st, "w", 0)
    assert st.wb[0] == PALACE and st.wp[0] == 1 and st.avenue[0] == 1 and st.light == 1
    choose(st, reward)
    while kind(st) == "any-temple":
        choose(st, 1)
    while kind(st) == "any-res":
        choose(st, 1, 0, 0)
    expected = {
        "vp": (5, 4, 0, 3),
        "cocoa": (0, 9, 0, 3),
        "temple": (1, 4, 1, 3),
        "temples": (2, 1, 2, 3),
        "worker": (0, 6, 0, 4),
    }[reward]
    workers = sum(1 for w in range(4) if st.wb[w])
    assert (st.vp[0], st.cocoa[0], st.temple[1], workers) == expected
    if reward == "worker":
        assert st.wp[3] == 3 and st.wb[3] == PALACE


def test_fourth_worker_reward_only_with_three_workers_in_play():
    st = blank(2)
    for k in range(4):
        put(st, k, PALACE)
    st.stack = [("end-turn", 0), ("asc-reward", 0)]
    run(st)
    assert ["worker"] not in acts(st)


# ---- temples and the Avenue -----------------------------------------------------------------------------------
def test_top_step_is_exclusive_and_the_advance_is_lost():
    st = blank(2)
    st.temple[1 * 3 + 1] = 11
    st.temple[0 * 3 + 1] = 10
    st.stack = [("end-turn", 0), ("adv", 0, 1)]
    run(st)
    assert st.temple[1] == 10 and st.vp[0] == 0


def test_major_step_discovery_or_printed_reward():
    st = blank(2)
    st.temple[0] = 3
    st.stack = [("end-turn", 0), ("adv", 0, 0)]  # blue step 4 is major
    run(st)
    assert kind(st) == "major"
    assert ["reward"] in acts(st)
    choose(st, "reward")
    choose(st, 0, 0, 1)  # any resource: gold
    assert st.res[2] == 1 and st.temple[0] == 4


def test_avenue_spot_offers_a_discovery_tile():
    st = blank(2)
    st.avenue[0] = 2
    give(st, 0, cocoa=3, wood=3, gold=3)
    st.stack = [("end-turn", 0), ("avenue", 0)]
    run(st)
    assert kind(st) == "avenue-claim"
    tid = acts(st)[0][1]
    choose(st, "tile", tid)
    assert st.d_owner[tid] == 0 and tid not in st.d_avenue[0] and st.avenue[0] == 3


def test_avenue_never_beyond_nine():
    st = blank(2)
    st.avenue[0] = 9
    push(st, ("avenue", 0))
    run(st)
    assert st.avenue[0] == 9


def test_decoration_icons_pair_clockwise_on_each_side():
    st = blank(2)
    st.deco_offer = [15, 10, 1, 2]  # 15: . G ; 10: G .  -- the right side's level 1 prints . g
    give(st, 0, gold=3)
    st2 = st.clone()
    arrive(st, 0, 0, DECOR)
    choose(st, "main", 0, 0)
    choose(st, 0, 4)
    assert st.vp[0] == 2 + 3 and st.temple[2] == 1  # blank on blank and G on g
    arrive(st2, 0, 0, DECOR)
    choose(st2, "main", 0, 0)
    choose(st2, 1, 4)
    assert st2.vp[0] == 3 and st2.temple[2] == 0  # turned the other way nothing matches


def test_pay_three_cocoa_to_unlock_after_the_action():
    st = blank(2)
    put(st, 4, FOREST)
    give(st, 0, cocoa=4)
    st.d_offer[1] = 0
    arrive(st, 0, 0, FOREST)
    choose(st, "worship", 3)
    assert st.ws[0] == 3 and kind(st) == "end-options"
    choose(st, "unlock-pay")
    assert st.ws[0] == -1 and st.space_occ[3] == -1 and st.cocoa[0] == 1


def test_royal_tile_with_both_options_claims_the_palace_tile():
    st = blank(2)
    st.royal[0] = 1
    tile = st.d_offer[0]
    from engine.teotihuacan.data import DATA as D

    cost = D.discoveries[tile].cost
    give(st, 0, cocoa=1 + cost[0], wood=cost[1], stone=cost[2], gold=cost[3])
    put(st, 4, FOREST)
    arrive(st, 0, 0, PALACE, power=2)
    choose(st, "worship", 0)
    choose(st, "both", 0)
    choose(st, "claim")
    assert st.d_owner[tile] == 0 and st.cocoa[0] == 3  # paid 1 + tile cocoa, then gained power + 1


def test_rotations_that_look_the_same_are_offered_once():
    st = blank(2)
    st.pyr_offer = [31, 1, 2]  # tile 31 has no icon at all
    give(st, 0, stone=2)
    put(st, 4, FOREST)
    arrive(st, 0, 0, BUILD)
    choose(st, "main", 0, 0)
    choose(st, "tile", 0)
    pos = acts(st)[0]
    choose(st, *pos)
    assert kind(st) != "build-rot"  # a single distinct rotation: taken without asking
    assert st.pyr_pos[pos[0]] == 31 * 4


def test_after_an_ascension_the_second_power_up_goes_to_a_worker_still_there():
    st = blank(2)
    put(st, 1, FOREST, power=5)
    put(st, 2, FOREST, power=5)
    st.wp[2] = 4
    give(st, 0, cocoa=1)
    arrive(st, 0, 0, FOREST)
    choose(st, "main", 0, 0)
    choose(st, "w", 1)  # 5 -> 6: Ascends to the Palace
    choose(st, "vp")
    assert st.wb[1] == PALACE
    assert sorted(a[1] for a in acts(st) if a[0] == "w") == [0, 2]


def test_forced_steps_are_logged():
    st = blank(2)
    put(st, 4, FOREST)
    arrive(st, 0, 0, ALCHEMY)  # no gold and no Worship at Alchemy: Collect Cocoa is the only action
    texts = [e["text"] for e in st.log()]
    assert "Collect Cocoa (+1 cocoa) (only option)" in texts
    assert st.cocoa[0] == 1 and st.to_act() == (1,)

"""M3 Seasons of Progress: one scenario (or more) per Season tile, the change after each
Eclipse, and Teotibot's treatment of each tile."""

from __future__ import annotations

from random import Random

import pytest

from engine.teotihuacan import GAME, modules
from engine.teotihuacan.data import DATA
from engine.teotihuacan.expansion_data import EXP
from engine.teotihuacan.flow import push, run
from engine.teotihuacan.rules.calendar import salary_due
from engine.teotihuacan.svg import svg
from tests.engine.teotihuacan.teotibot_util import BOT, solo
from tests.engine.teotihuacan.util import acts, arrive, blank, choose, give, kind, put, start_turn

PALACE, FOREST, STONE, GOLD, ALCHEMY, NOBLES, DECOR, BUILD = 1, 2, 3, 4, 5, 6, 7, 8
BLUE, RED, GREEN = 0, 1, 2


def table(tile: int, players: int = 2, **options):
    """A bare first-game table with Season tile ``tile`` active."""
    st = blank(players, modules="seasons", **options)
    st.season = tile
    modules.refresh(st)  # the tile's hooks
    return st


def bot_table(tile: int):
    st = solo(modules="seasons")
    st.season = tile
    modules.refresh(st)
    return st


def test_setup_deals_one_season_and_keeps_the_rest_face_down():
    st = GAME.setup(2, 4, {"modules": "seasons"})
    assert st.season in EXP.seasons and sorted([st.season, *st.season_deck]) == list(range(1, 9))
    assert st.season_used == [] and "Season tile #" in st.render() and "Season tile #" in svg(st)
    assert any("the first Season" in e["text"] for e in st.log())


def test_the_tile_changes_after_each_eclipse_but_not_after_the_last():
    st = GAME.setup(2, 4, {"modules": "seasons"})
    first, upcoming = st.season, st.season_deck[-1]
    st.stack = [("eclipse", 0)]
    run(st)
    while st.to_act() and kind(st) == "salary":
        st.apply(st.to_act()[0], 0)
    assert st.season_used == [first] and st.season == upcoming and len(st.season_deck) == 6
    st.eclipses = 2
    st.stack = [("eclipse", 0)]
    run(st)
    while st.to_act() and kind(st) == "salary":
        st.apply(st.to_act()[0], 0)
    assert st.over and st.season == upcoming and st.season_used == [first]


# ---- #1 cheap salary ---------------------------------------------------------------------------------
def test_1_salary_is_one_per_worker_plus_one_per_power_5_worker():
    st = table(1)
    for w, power in ((0, 1), (1, 4), (2, 5)):
        put(st, w, FOREST, power)
    assert salary_due(st, 0) == 3 + 1
    st.season = 8
    modules.refresh(st)
    assert salary_due(st, 0) == 1 + 2 + 2


# ---- #2 Avenue steps score 2 VP -------------------------------------------------------------------------
@pytest.mark.parametrize("tile,vp", [(2, 2), (8, 0)])
def test_2_each_avenue_step_scores_2_vp(tile, vp):
    st = table(tile)
    push(st, ("avenue", 0), ("avenue", 0))
    run(st)
    assert st.avenue[0] == 2 and st.vp[0] == 2 * vp


def test_2_applies_to_teotibot():
    st = bot_table(2)
    st.stack = [("avenue", BOT)]
    run(st)
    assert st.avenue[BOT] == 1 and st.vp[BOT] == 2


# ---- #3 the Ascended worker goes to a board of your choice ------------------------------------------------
def test_3_ascended_worker_may_go_to_any_board():
    st = table(3)
    put(st, 0, FOREST, power=5)
    st.stack = [("power-up", 0, FOREST, 0)]
    run(st)
    choose(st, "vp")
    assert kind(st) == "season-place" and len(acts(st)) == 8
    labels = [o["label"] for o in st.decision(0).options]
    assert labels[0] == "leave it at the Palace" and "Gold Deposits" in labels[7]
    choose(st, 8)  # place 8 of the first-game layout: Gold Deposits
    assert st.wb[0] == GOLD and st.wp[0] == 1


def test_3_does_not_apply_to_teotibot():
    st = bot_table(3)
    put(st, 4, FOREST, power=5)
    st.stack = [("ascend", BOT, 4)]
    run(st)
    assert st.wb[4] == PALACE and not any(e[1] == "season-place" for e in st.events)


# ---- #4 own colour not counted --------------------------------------------------------------------------
@pytest.mark.parametrize("tile,cost,cocoa", [(4, 1, 2), (8, 2, 3)])
def test_4_own_colour_not_counted_for_cost_or_cocoa(tile, cost, cocoa):
    st = table(tile)
    put(st, 1, FOREST)
    put(st, 4, FOREST)  # the other player's colour
    give(st, 0, cocoa=5)
    arrive(st, 0, 0, FOREST)
    labels = [o["label"] for o in st.decision(0).options]
    assert f"paying {cost} cocoa" in labels[-1] and f"Collect Cocoa (+{cocoa} cocoa)" == labels[0]
    choose(st, "cocoa")
    assert st.cocoa[0] == 5 + cocoa


# ---- #5 pay 2 cocoa for a second, different temple ------------------------------------------------------
def test_5_pay_two_cocoa_to_advance_on_a_different_temple_once():
    st = table(5)
    give(st, 0, cocoa=4)
    st.stack = [("adv", 0, BLUE)]
    run(st)
    while kind(st) == "any-res":  # blue step 1's resource
        choose(st, 1, 0, 0)
    assert kind(st) == "season5" and acts(st) == [["no"], ["pay", RED], ["pay", GREEN]]
    choose(st, "pay", RED)
    assert st.cocoa[0] == 2 and st.temple[0:3] == [1, 1, 0]
    assert kind(st) != "season5"  # the paid step does not offer #5 again


def test_5_can_be_paid_with_the_cocoa_of_the_step_itself():
    st = table(5)
    give(st, 0, cocoa=1)
    st.temple[GREEN] = 3  # green step 4 pays cocoa
    st.stack = [("adv", 0, GREEN)]
    run(st)
    assert st.cocoa[0] == 1 + DATA.temple_steps[GREEN][4][1]["cocoa"] and kind(st) == "season5"
    obs = st.observation(0)  # the pending choice survives the round trips
    rebuilt = GAME.from_observation(obs, Random(1))
    assert rebuilt.observation(0) == obs and rebuilt.decision(0) == st.decision(0)
    assert st.determinize(0, Random(2)).decision(0) == st.decision(0)


def test_5_needs_two_cocoa():
    st = table(5)
    give(st, 0, cocoa=1)
    st.stack = [("adv", 0, RED)]
    run(st)
    assert st.temple[0:3] == [0, 1, 0] and not st.stack


def test_5_teotibot_always_pays_on_the_temple_it_is_highest_on():
    st = bot_table(5)
    give(st, BOT, cocoa=3)
    st.temple[BOT * st.nt : BOT * st.nt + 3] = [2, 1, 4]
    st.stack = [("adv", BOT, BLUE)]
    run(st)
    green_step_5 = DATA.temple_steps[GREEN][5][1]["cocoa"]
    assert st.temple[BOT * st.nt : BOT * st.nt + 3] == [3, 1, 5] and st.cocoa[BOT] == 3 - 2 + green_step_5
    assert any(e[1] == "season5" and "automaton" in e[2] for e in st.events)


# ---- #6 Pyramid track 5/4/3 -------------------------------------------------------------------------------
@pytest.mark.parametrize("eclipses,vp", [(0, 5), (1, 4), (2, 3)])
def test_6_pyramid_steps_score_5_4_3(eclipses, vp):
    st = table(6)
    st.eclipses = eclipses
    assert modules.adjust(st, "pyramid_step_vp", 0, 99) == vp
    st.ptrack[0] = 2
    st.stack = [("eclipse", 0)]
    run(st)
    assert any(f"Pyramid steps {2 * vp}," in e[2] for e in st.events if e[1] == "event")


def test_6_applies_to_teotibot():
    st = bot_table(6)
    assert modules.adjust(st, "pyramid_step_vp", BOT, 4) == 5


# ---- #7 moves of 2-4, #8 nothing --------------------------------------------------------------------------
@pytest.mark.parametrize("tile,moves", [(7, [2, 3, 4]), (8, [1, 2, 3])])
def test_7_normal_moves_are_two_to_four(tile, moves):
    st = table(tile)
    put(st, 0, DECOR)
    start_turn(st, 0)
    assert [a[2] for a in acts(st) if a[0] == "move"] == moves


def test_teotibot_ignores_tiles_1_3_4_7_8():
    st = bot_table(1)
    for tile in (1, 3, 4, 7, 8):
        st.season = tile
        assert not any(seasons_affect(st, BOT, tid) for tid in EXP.season_by_id)
        assert any(seasons_affect(st, 0, tid) for tid in EXP.season_by_id)


def seasons_affect(st, seat, tile_id):
    from engine.teotihuacan.preclassic.seasons import affects

    return affects(st, seat, tile_id)


def test_observation_hides_the_season_stack_order():
    st = GAME.setup(3, 2, {"modules": "seasons"})
    obs = st.observation(1)
    assert "season_deck" not in obs["public"] and obs["hidden_counts"]["season_stack"] == 7
    assert obs["public"]["season"] == st.season
    orders = {tuple(st.determinize(1, Random(k)).season_deck) for k in range(10)}
    assert len(orders) > 1 and all(sorted(o) == sorted(st.season_deck) for o in orders)
    assert GAME.from_observation(obs, Random(3)).observation(1) == obs

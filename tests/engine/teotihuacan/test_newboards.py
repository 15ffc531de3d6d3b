"""M4 Architecture (7) and M5 Development (8): the cells of each kind, virtual workers, the
offer refilled after the action, the free unlock, and Teotibot's unchanged actions."""

from __future__ import annotations

import pytest

from engine.teotihuacan.expansion_data import EXP
from engine.teotihuacan.rules.actions import main_possible
from tests.engine.teotihuacan.teotibot_util import BOT, CONSTRUCTION, DECORATIONS, bot_action, solo
from tests.engine.teotihuacan.util import acts, arrive, blank, choose, give, kind, put, refresh, set_tech

FOREST, BUILD_PLACE = 2, 5
DECOR, BUILD = 7, 8


def table(**options):
    return blank(2, modules="architecture,development", **options)


def finish_turn(st) -> None:
    """Answer the rest of seat 0's turn with the first option until it ends."""
    while st.to_act() == (0,):
        st.apply(0, 0)


def test_boards_go_by_their_new_names():
    st = table()
    put(st, 0, DECOR)
    st.stack = []
    assert "Architecture" in st.render() and "Development" in st.render()
    assert "Decorations" not in st.render().split("Pyramid")[0]


# ---- Architecture (7) ---------------------------------------------------------------------------------------
def test_architecture_power_1_alone_unlocks_a_locked_worker_and_powers_up():
    st = table()
    assert EXP.architecture[0][0] == {"unlock": 1}
    put(st, 1, FOREST, space=3)  # locked on the Forest Worship space
    arrive(st, 0, 0, DECOR)
    labels = [o["label"] for o in st.decision(0).options]
    assert "Main action of Architecture, paying 0 cocoa" in labels
    choose(st, "main", 0, 0)
    assert st.ws[1] == -1 and st.space_occ[3] == -1  # the only locked worker, unlocked for free
    assert st.wp[0] == 2 and st.deco_space == [0] * 16


def test_architecture_cell_gold_comes_first_and_pays_the_decoration():
    st = table()
    assert EXP.architecture[1][1] == {"decorations": 1, "gold": 1}
    st.deco_offer = [9, 1, 2, 3]
    put(st, 1, DECOR, power=2)
    give(st, 0, cocoa=1, gold=0)
    arrive(st, 0, 0, DECOR, power=2)
    assert not any(a[0] == "main" for a in acts(st))  # 0 + 1 gold < 2 gold: no tile can be added
    give(st, 0, cocoa=1, gold=1)
    refresh(st)
    choose(st, "main", 0, 0)
    assert kind(st) == "arch-deco" and "pay 2 gold per Decoration" in st.decision(0).prompt
    choose(st, 0, 0)  # tile 9 on the top side, level 1
    finish_turn(st)
    assert st.res[2] == 0 and st.deco_space[0] == 9 and st.ptrack[0] == 1
    assert 0 not in st.deco_offer  # refilled after the action


def test_architecture_two_decorations_refill_only_after_the_action():
    st = table()
    cell = EXP.architecture[2][3]
    assert cell == {"decorations": 2, "gold": 2, "unlock": 1}
    set_tech(st, 0, 9)
    st.deco_offer = [9, 1, 2, 3]
    top = st.deco_deck[-1]
    put(st, 1, DECOR, power=4)
    put(st, 2, DECOR, power=5)
    give(st, 0, cocoa=1, gold=0)
    arrive(st, 0, 0, DECOR, power=4)
    choose(st, "main", 0, 0)
    choose(st, 0, 0)
    assert kind(st) == "arch-deco" and st.deco_offer[0] == 0  # not refilled between two tiles
    assert ["done"] in acts(st) and all(a[0] != 0 for a in acts(st) if a[0] != "done")
    choose(st, 1, 4)  # tile 1 on the right side, level 1
    vp_before_end = st.vp[0]
    finish_turn(st)
    assert st.deco_space[0] == 9 and st.deco_space[4] == 1 and st.res[2] == 0  # 2 + 2 gold - 2 x 1
    assert st.deco_offer[0] == top and st.ptrack[0] == 2
    assert st.vp[0] >= vp_before_end + 4  # Technology 09 once for the action


def test_architecture_virtual_worker_has_the_lowest_power():
    from engine.teotihuacan import modules
    from engine.teotihuacan.hooks import adjuster
    from engine.teotihuacan.preclassic.newboards import board_count
    from engine.teotihuacan.rulebook import Rulebook, module_parts

    st = table()
    put(st, 0, DECOR, power=4)
    assert board_count(st, 0, DECOR, 1) == (2, 4)
    extra = adjuster("virtual_workers", lambda st, s, v, b: v + 1)  # a fake module's extra worker
    st.rules = Rulebook([*module_parts(st.mods), extra], st.mods)
    modules.refresh(st)
    assert board_count(st, 0, DECOR, 0) == (2, 4)
    put(st, 1, DECOR, power=2)
    assert board_count(st, 0, DECOR, 0) == (3, 2)


# ---- Development (8) ----------------------------------------------------------------------------------------
def test_development_power_1_alone_unlocks_only():
    st = table()
    assert EXP.development[0][0] == {"unlock": 1}
    give(st, 0, stone=0)
    arrive(st, 0, 0, BUILD)
    assert ["main", 0, 0] in acts(st)  # no tile to add: always possible
    choose(st, "main", 0, 0)
    placed = list(st.pyr_pos)
    assert st.wp[0] == 2 and st.pyr_pos == placed and st.ptrack[0] == 0


def test_development_two_workers_build_up_to_two_tiles():
    st = table()
    assert EXP.development[1][1] == {"pyramid_tiles": 2}
    put(st, 1, BUILD, power=2)
    put(st, 0, BUILD, power=2)
    give(st, 0, cocoa=1, stone=1)
    assert not main_possible(st, 0, BUILD, 0)  # not one tile affordable
    give(st, 0, cocoa=1, stone=4)
    assert main_possible(st, 0, BUILD, 0)
    arrive(st, 0, 0, BUILD, power=2)
    choose(st, "main", 0, 0)
    assert (
        kind(st) == "build" and "Development: choose a pyramid tile (2 more allowed)" == st.decision(0).prompt
    )
    before = sum(1 for p in st.pyr_pos if p >= 0)
    finish_turn(st)
    assert sum(1 for p in st.pyr_pos if p >= 0) == before + 2 and st.res[1] == 0
    assert st.ptrack[0] == 2 and st.wp[0] + st.wp[1] == 5  # one power-up for 2 workers


def test_development_technology_15_is_a_virtual_worker():
    st = table()
    set_tech(st, 0, 15)
    give(st, 0, stone=6)
    arrive(st, 0, 0, BUILD, power=2)
    choose(st, "main", 0, 0)
    assert st.stack[-1][2] == EXP.development[1][1]["pyramid_tiles"]  # row 2 with one worker


def test_development_power_4_gives_its_unlock_too():
    st = table()
    assert EXP.development[1][3] == {"pyramid_tiles": 2, "unlock": 1}
    put(st, 1, BUILD, power=4)
    put(st, 2, FOREST, space=3)
    give(st, 0, cocoa=1, stone=2)
    arrive(st, 0, 0, BUILD, power=4)
    choose(st, "main", 0, 0)
    assert st.ws[2] == -1


# ---- Teotibot -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("tile,board", [(DECORATIONS, DECOR), (CONSTRUCTION, BUILD)])
def test_teotibot_decorations_and_construction_are_unchanged(tile, board):
    outcomes = []
    for options in ({}, {"modules": "architecture,development"}):
        st = solo(**options)
        put(st, BOT * 4, board, power=2)
        give(st, BOT, stone=3, gold=3)
        bot_action(st, tile)
        outcomes.append((st.vp, st.res, st.deco_space, st.pyr_pos, st.wb, st.wp))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][0][BOT] > 0  # the action did happen


def test_mid_action_state_survives_observation_round_trips():
    from random import Random

    from engine.teotihuacan import GAME

    st = table()
    put(st, 1, DECOR, power=4)
    put(st, 2, DECOR, power=5)
    give(st, 0, cocoa=1, gold=0)
    arrive(st, 0, 0, DECOR, power=4)
    choose(st, "main", 0, 0)
    choose(st, 0, 0)
    assert kind(st) == "arch-deco" and st.deco_offer[0] == 0
    obs = st.observation(0)
    for k in range(3):
        for other in (st.determinize(0, Random(k)), GAME.from_observation(obs, Random(k))):
            assert other.observation(0) == obs and other.decision(0) == st.decision(0)
            assert other.deco_offer[0] == 0 and sorted(other.deco_deck) == sorted(st.deco_deck)

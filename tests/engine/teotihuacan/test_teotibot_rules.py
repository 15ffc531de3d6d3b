"""Teotibot: solo setup, options, the action pyramid and its turn, the general rule changes
(offers slide, unlocking the bot's worker) and the Eclipse changes."""

from __future__ import annotations

import pytest

from engine.api import BadOptions
from engine.teotihuacan import GAME
from engine.teotihuacan.data import DATA
from engine.teotihuacan.flow import run
from engine.teotihuacan.teotibot import BELOW, DICE_POSITION, TILE_NAMES, shift_pyramid
from tests.engine.teotihuacan.teotibot_util import (
    BOT,
    BUILD,
    DECOR,
    FOREST,
    GOLD,
    SPACE,
    STONE,
    bot_res,
    solo,
)
from tests.engine.teotihuacan.util import arrive, choose, give, kind, put

SOLO = {"automaton": "teotibot"}


# ---- setup and options -------------------------------------------------------------------------------
def test_solo_setup_gives_the_bot_its_printed_start():
    st = GAME.setup(1, 5, SOLO)
    assert st.n == 2 and st.bot == BOT and st.first == 0
    assert bot_res(st) == [2, 2, 2] and st.cocoa[BOT] == 0
    assert st.temple[3:6] == [1, 1, 1] and st.avenue[BOT] == 1 and st.ptrack[BOT] == 0 and st.vp[BOT] == 0
    assert [m >> BOT & 1 for m in st.tech_marks] == [0, 0, 1, 0, 0, 0]  # top right Technology
    workers = sorted((st.wb[w], st.wp[w], st.ws[w]) for w in range(4, 8))
    assert workers == [(4, 2, -1), (6, 2, -1), (7, 1, SPACE[DECOR]), (8, 2, -1)]
    assert st.space_occ[SPACE[DECOR]] in range(4, 8)
    assert sorted([*st.act_pyr, st.act_aside]) == list(range(1, 8)) and len(st.act_pyr) == 6
    assert all(d in (0, 1) for d in st.dirs) and len(st.dirs) == 2
    # the player starts (first-player cocoa), alone choosing Starting tiles; 2-player neutrals
    assert st.cocoa[0] == DATA.starting_cocoa[0] and st.to_act() == (0,)
    assert len(st.start_dealt[0]) == 4 and st.start_dealt[BOT] == []
    assert sum(1 for w in range(8, 16) if st.wb[w]) == 3 * DATA.neutral_colours[2]


def test_setup_draws_pyramids_and_direction_sides_from_the_seed():
    layouts = {(tuple(GAME.setup(1, s, SOLO).act_pyr), tuple(GAME.setup(1, s, SOLO).dirs)) for s in range(30)}
    assert len(layouts) > 20
    assert GAME.setup(1, 3, SOLO).act_pyr == GAME.setup(1, 3, SOLO).act_pyr


def test_solo_options_are_checked():
    with pytest.raises(BadOptions, match="solo automaton"):
        GAME.setup(1, 0, {})
    with pytest.raises(BadOptions, match="1 agent seat"):
        GAME.setup(2, 0, SOLO)
    with pytest.raises(BadOptions, match="one of"):
        GAME.setup(1, 0, {"automaton": "cocijobot"})
    with pytest.raises(BadOptions, match="needs"):
        GAME.setup(2, 0, {"teotibot_cash_in_vp": 1})
    for name, bad in (
        ("teotibot_power_nobles", 2),
        ("teotibot_resources", -2),
        ("teotibot_cash_in_vp", 3),
        ("teotibot_worship_steps", 2),
        ("teotibot_bonus_tile_vp", 3),
        ("teotibot_bonus_tile_vp", 15),
        ("teotibot_technology_vp", -3),
    ):
        with pytest.raises(BadOptions, match=name):
            GAME.setup(1, 0, {**SOLO, name: bad})
    assert GAME.min_players == 1 and GAME.automata == ("teotibot",)
    schema = GAME.option_schema()
    assert schema["teotibot_bonus_tile_vp"]["choices"] == [-10, -5, 0, 5, 10]


def test_difficulty_adjusts_the_start():
    st = GAME.setup(
        1,
        2,
        {**SOLO, "teotibot_resources": -1, "teotibot_power_gold_deposits": 1, "teotibot_power_nobles": -1},
    )
    assert bot_res(st) == [1, 1, 1]
    powers = {st.wb[w]: st.wp[w] for w in range(4, 8)}
    assert powers == {GOLD: 3, 6: 1, BUILD: 2, DECOR: 1}  # the locked worker is never adjusted


# ---- the action pyramid --------------------------------------------------------------------------------------
def test_dice_sums_follow_the_printed_figure():
    rows = {pos: sorted(k for k, p in DICE_POSITION.items() if p == pos) for pos in range(6)}
    assert rows == {0: [6, 7, 8], 1: [4, 5], 2: [9, 10], 3: [2, 3], 4: [], 5: [11, 12]}
    assert BELOW[0] == (1, 2) and BELOW[1] == (3, 4) and BELOW[2] == (4, 5)


def fresh(dirs):
    st = solo()
    st.act_pyr, st.act_aside, st.dirs = [1, 2, 3, 4, 5, 6], 7, list(dirs)
    return st


def test_top_tile_removed_shifts_a_column_chosen_by_both_direction_tiles():
    st = fresh([0, 1])  # top tile: left, then right
    shift_pyramid(st, 0)
    # middle left (2) moves up; below it, the right tile (bottom centre, 5) moves up; set-aside fills
    assert st.act_pyr == [2, 5, 3, 4, 7, 6] and st.act_aside == 1
    assert st.dirs == [1, 1]  # the top tile flipped (left -> right) and went below the other
    st = fresh([1, 1])
    shift_pyramid(st, 0)
    assert st.act_pyr == [3, 2, 6, 4, 5, 7] and st.act_aside == 1 and st.dirs == [1, 0]


def test_middle_tile_removed_uses_the_top_direction_tile_only():
    st = fresh([1, 0])
    shift_pyramid(st, 2)
    assert st.act_pyr == [1, 2, 6, 4, 5, 7] and st.act_aside == 3 and st.dirs == [0, 0]
    st = fresh([0, 1])
    shift_pyramid(st, 1)
    assert st.act_pyr == [1, 4, 3, 7, 5, 6] and st.act_aside == 2 and st.dirs == [1, 1]


def test_bottom_tile_removed_is_replaced_by_the_set_aside_tile():
    st = fresh([0, 0])
    shift_pyramid(st, 5)
    assert st.act_pyr == [1, 2, 3, 4, 5, 7] and st.act_aside == 6 and st.dirs == [0, 1]


def test_a_bot_turn_performs_the_tile_the_dice_pick_then_shifts_and_advances_the_calendar():
    for seed in range(12):
        st = GAME.setup(1, seed, {**SOLO, "first_game": True})
        before, dirs, light = list(st.act_pyr), list(st.dirs), st.light
        st.stack = [("bot-turn", BOT)]
        st.events = []
        run(st)
        roll = st.roll
        pos = DICE_POSITION[roll]
        assert f"= {roll}: {TILE_NAMES[before[pos]]}" in st.events[0][2]
        expected = fresh(dirs)
        expected.act_pyr = before
        expected.act_aside = [t for t in range(1, 8) if t not in before][0]
        shift_pyramid(expected, pos)
        assert (st.act_pyr, st.act_aside, st.dirs) == (expected.act_pyr, expected.act_aside, expected.dirs)
        assert st.light == light + 1 + sum(1 for e in st.events if "Ascends" in e[2])
        assert st.to_act() == (0,) and kind(st) == "turn"


def test_ten_cocoa_are_cashed_in_for_vp_at_the_end_of_its_turn():
    st = solo()
    give(st, BOT, cocoa=13)
    st.stack = [("bot-done", BOT, 3)]
    run(st)
    assert st.cocoa[BOT] == 3 and st.vp[BOT] == 3
    st = solo(teotibot_cash_in_vp=-2)
    give(st, BOT, cocoa=10)
    st.stack = [("bot-done", BOT, 3)]
    run(st)
    assert st.cocoa[BOT] == 0 and st.vp[BOT] == 1


def test_worship_steps_difficulty():
    from tests.engine.teotihuacan.teotibot_util import WORSHIP, bot_action

    st = solo(teotibot_worship_steps=1)
    put(st, 7, FOREST, space=SPACE[FOREST])  # next: Decorations, any temple
    bot_action(st, WORSHIP)
    assert sum(st.temple[3:6]) == 4


# ---- general rule changes --------------------------------------------------------------------------------
def test_player_pyramid_and_decoration_offers_slide_and_refill_at_the_end():
    st = solo()
    give(st, 0, cocoa=5, stone=5, wood=5, gold=5)
    offer, top = list(st.pyr_offer), st.pyr_deck[-1]
    arrive(st, 0, 0, BUILD)
    choose(st, "main", 0, 0)
    choose(st, "tile", 0)
    while kind(st) in ("build-pos", "build-rot"):
        choose(st, *st.decision(0).options[0]["act"])
    # (the bot, with no worker on the table, cannot touch the offers in its turn)
    assert st.pyr_offer == [offer[1], offer[2], top]
    st = solo()
    give(st, 0, cocoa=5, gold=5)
    deco, top = list(st.deco_offer), st.deco_deck[-1]
    arrive(st, 0, 0, DECOR)
    choose(st, "main", 0, 0)
    choose(st, *[o["act"] for o in st.decision(0).options if o["act"][0] == 1][0])
    assert st.deco_offer == [deco[0], deco[2], deco[3], top]


def unlock_bot_at(st, board: int) -> None:
    give(st, 0, cocoa=1)
    arrive(st, 0, 0, board, power=2)
    choose(st, "worship", SPACE[board])
    if kind(st) == "worship-mode":
        choose(st, "ability", 0)


def test_unlocking_the_bot_moves_its_worker_to_the_next_empty_temple_space():
    st = solo()
    put(st, 7, DECOR, space=SPACE[DECOR])
    put(st, 1, GOLD, space=SPACE[GOLD])  # the next one clockwise is taken
    unlock_bot_at(st, DECOR)
    assert st.ws[0] == SPACE[DECOR] and st.space_occ[SPACE[DECOR]] == 0
    assert st.wb[7] == STONE and st.ws[7] == SPACE[STONE] and st.space_occ[SPACE[STONE]] == 7
    assert st.ws[1] == SPACE[GOLD] and st.temple[3:6] == [0, 0, 0]  # no effect for the bot


def test_unlocking_the_bot_with_no_empty_space_unlocks_the_players_next_worker():
    st = solo()
    put(st, 7, DECOR, space=SPACE[DECOR])
    put(st, 1, GOLD, space=SPACE[GOLD])
    put(st, 2, STONE, space=SPACE[STONE])
    put(st, 3, FOREST, space=SPACE[FOREST])
    unlock_bot_at(st, DECOR)
    assert st.wb[7] == GOLD and st.ws[7] == SPACE[GOLD] and st.space_occ[SPACE[GOLD]] == 7
    assert st.ws[1] == -1 and st.wb[1] == GOLD
    assert st.ws[2] == SPACE[STONE] and st.ws[3] == SPACE[FOREST]


# ---- Eclipses --------------------------------------------------------------------------------------------------
def eclipse(st, final: bool) -> None:
    if final:
        st.eclipses = 2
    st.stack = [("eclipse", 0)]
    run(st)
    while st.to_act():  # the player's salary
        st.apply(0, 0)


def test_the_bot_pays_no_salary_and_scores_masks_pyramid_and_avenue():
    st = solo()
    for w in range(4, 8):
        put(st, w, FOREST, power=5)
    st.vp[BOT] = 30
    st.avenue[BOT] = 2
    st.ptrack[BOT] = 3
    st.d_owner[1] = st.d_owner[2] = BOT
    eclipse(st, final=False)
    cats = st._details(BOT)["categories"]
    assert cats["salary"] == 0 and cats["masks"] == 3 and cats["avenue"] == 2 * DATA.building_numbers[0]
    assert cats["pyramid"] == DATA.pyramid_leader_vp + 3 * DATA.pyramid_step_vp[0]
    assert st.eclipses == 1 and not st.over


def test_final_eclipse_scores_leftovers_technologies_and_flat_bonus_tiles():
    st = solo()
    give(st, BOT, cocoa=3, wood=1, stone=2, gold=1)
    st.tech_marks[0] = st.tech_marks[4] = 1 << BOT
    st.temple[3:6] = [10, 11, 4]  # two Bonus tiles reached
    eclipse(st, final=True)
    assert st.over and st._details(BOT)["categories"]["bonus"] == 7 + 2 * 2 + 2 * 15
    st = solo(teotibot_bonus_tile_vp=-10, teotibot_technology_vp=2)
    give(st, BOT, cocoa=1)
    st.tech_marks[0] = 1 << BOT
    st.temple[3:6] = [10, 0, 0]
    eclipse(st, final=True)
    assert st._details(BOT)["categories"]["bonus"] == 1 + 4 + 5


def test_a_tie_is_a_loss_for_the_player():
    st = solo()
    eclipse(st, final=True)
    st.vp = [40, 40]
    st.cocoa = [9, 0]
    assert st.result().ranks == (2, 1)
    st.vp = [41, 40]
    assert st.result().ranks == (1, 2)

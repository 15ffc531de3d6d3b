"""M2 Height of Development: the orange temple and its steps, the new Nobles (6) Worship space,
each Special Ability at its level, Teotibot's orange-temple rules."""

from __future__ import annotations

import pytest

from engine.teotihuacan import GAME, modules
from engine.teotihuacan.data import DATA
from engine.teotihuacan.expansion_data import EXP, NOBLES_SLOT, NOBLES_SPACE, ORANGE
from engine.teotihuacan.flow import push, run
from engine.teotihuacan.preclassic.height import ability_options, set_vp
from engine.teotihuacan.rules.calendar import bonus_tiles_reached, salary_due
from engine.teotihuacan.rules.effects import can_advance
from tests.engine.teotihuacan.teotibot_util import BOT, WORSHIP, bot_action, solo
from tests.engine.teotihuacan.util import acts, arrive, blank, choose, give, kind, put, start_turn

PALACE, FOREST, STONE, GOLD, ALCHEMY, NOBLES, DECOR, BUILD = 1, 2, 3, 4, 5, 6, 7, 8
BLUE, RED, GREEN = 0, 1, 2
IDX = EXP.ability_index
LEVEL_STEP = {level: pos for pos, level in EXP.orange_levels.items()}


def table(players: int = 2, modules: str = "height"):
    """A bare first-game table with the orange temple in play (every marker at 0)."""
    st = blank(players, modules=modules)
    st.temple = [0] * (st.n * st.nt)
    st.space_occ = [-1] * (NOBLES_SPACE + 1)  # blank() clears the Nobles Worship space too
    st.ability = [0] * st.n
    st.stack = []
    return st


def bot_table():
    st = solo(modules="height")
    st.temple = [0] * (st.n * st.nt)
    st.space_occ = [-1] * (NOBLES_SPACE + 1)
    st.temple[BOT * st.nt + ORANGE] = EXP.orange_bonus
    st.ability = [0, 0]
    st.stack = []
    return st


def grant(st, seat: int, aid: str) -> None:
    st.ability[seat] |= 1 << IDX[aid]
    modules.refresh(st)  # the ability's hooks


def orange(st, seat: int = 0) -> int:
    return st.temple[seat * st.nt + ORANGE]


def step_to(st, seat: int, position: int) -> None:
    """Put ``seat`` just below orange ``position`` and advance onto it."""
    st.temple[seat * st.nt + ORANGE] = position - 1
    push(st, ("adv", seat, ORANGE))
    run(st)


# ---- set-up -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4])
def test_setup_adds_the_orange_temple_its_tiles_and_the_nobles_worship_space(players):
    st = GAME.setup(players, 7, {"modules": "height"})
    assert st.nt == 4 and all(orange(st, s) == 0 for s in range(players))  # worshippers on the bottom step
    assert len(st.bonus) == 4 and len(set(st.bonus)) == 4
    assert len(st.d_temple[-1]) == EXP.orange_discovery[players]
    assert len(st.space_occ) == NOBLES_SPACE + 1 and st.d_offer[NOBLES_SLOT]
    assert "Orange temple (steps: 0 start; 1 ability I; 2 1-2" in st.render()
    base = GAME.setup(players, 7, {})
    assert base.nt == 3 and len(base.space_occ) == NOBLES_SPACE and len(base.d_offer) == NOBLES_SLOT


def test_teotibot_starts_on_the_orange_bonus_tile_and_scores_it_flat():
    st = GAME.setup(1, 2, {"modules": "height", "automaton": "teotibot"})
    assert orange(st, BOT) == EXP.orange_bonus and orange(st, 0) == 0
    assert st.bonus[ORANGE] in bonus_tiles_reached(st, BOT)


# ---- how to reach it: the Nobles (6) Worship space, any-temple steps --------------------------------------------
def test_nobles_worship_space_advances_on_the_orange_temple():
    st = table()
    give(st, 0, cocoa=3)
    arrive(st, 0, 0, NOBLES)
    assert ["worship", NOBLES_SPACE] in acts(st)
    assert any("Nobles temple sidebar (orange temple step)" in o["label"] for o in st.decision(0).options)
    choose(st, "worship", NOBLES_SPACE)
    choose(st, "ability", 0)
    assert orange(st) == 1 and st.ws[0] == NOBLES_SPACE and kind(st) == "ability"


def test_any_temple_steps_include_orange_for_players_only():
    st = table()
    push(st, ("any-temple", 0))
    run(st)
    assert [ORANGE] in acts(st) and "orange temple (step 0 -> 1)" in st.decision(0).options[ORANGE]["label"]
    bot = bot_table()
    assert bot.rules.choice["any-temple"].options(bot, ("any-temple", BOT)) == [(0,), (1,), (2,)]


# ---- its steps -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("level", [1, 2, 3])
def test_each_ability_step_offers_exactly_its_level(level):
    st = table()
    step_to(st, 0, LEVEL_STEP[level])
    assert kind(st) == "ability"
    offered = [a[0] for a in acts(st)]
    assert offered == [i for i, a in enumerate(EXP.abilities) if a.level == level]
    assert all(f"[{'I' * level}]" in o["label"] for o in st.decision(0).options)
    choose(st, offered[-1])
    assert st.ability[0] == 1 << offered[-1]


def test_never_the_same_ability_twice_but_shared_between_players():
    st = table()
    grant(st, 0, "avenue_plus_2")
    grant(st, 1, "no_salary")
    offered = [i for (i,) in ability_options(st, 0, 3)]
    assert IDX["avenue_plus_2"] not in offered and IDX["no_salary"] in offered
    assert all(EXP.abilities[i].level == 3 for i in offered)  # never a lower level


def test_the_1_2_step_moves_an_unlocked_worker_backwards():
    st = table()
    put(st, 0, GOLD)  # place 8 of the first-game layout
    put(st, 1, FOREST, space=3)  # locked: cannot move
    step_to(st, 0, 2)
    assert kind(st) == "move-back" and acts(st) == [["no"], ["w", 0, 1], ["w", 0, 2]]
    assert "back to Nobles" in st.decision(0).options[1]["label"]
    choose(st, "w", 0, 2)
    assert st.wb[0] == DECOR and st.ws[1] == 3


def test_the_major_step_offers_its_discovery_tiles_or_two_resources():
    st = table()
    tid = st.d_temple[-1][0]
    give(st, 0, cocoa=9, wood=9, stone=9, gold=9)
    step_to(st, 0, EXP.orange_major)
    assert kind(st) == "major" and acts(st) == [["tile", tid], ["reward"]]
    choose(st, "reward")
    assert kind(st) == "any-res" and st.decision(0).prompt == "Choose 2 resource(s) of any kind"


def test_minor_bonus_and_single_top_steps():
    st = table()
    step_to(st, 0, 5)
    assert st.vp[0] == 3
    step_to(st, 0, EXP.orange_bonus)
    assert st.bonus[ORANGE] in bonus_tiles_reached(st, 0)
    step_to(st, 0, EXP.orange_top)
    assert st.vp[0] == 3 + 6 and not can_advance(st, 0, ORANGE)
    st.temple[1 * st.nt + ORANGE] = EXP.orange_top - 1
    assert not can_advance(st, 1, ORANGE)  # only one worshipper on the top step


# ---- the abilities ----------------------------------------------------------------------------------------------
def test_level_1_resource_boards_cost_one_cocoa_less():
    st = table()
    grant(st, 0, "resource_boards_cocoa_minus_1")
    put(st, 4, FOREST)
    give(st, 0, cocoa=1)
    arrive(st, 0, 0, FOREST)
    assert any("paying 0 cocoa" in o["label"] for o in st.decision(0).options)
    put(st, 1, NOBLES)
    put(st, 5, NOBLES)
    opts = st.rules.choice["action"].options(st, ("action", 0, 1, -1))
    assert ("main", 0, 0) not in opts  # Nobles still costs 1 and there is no wood


def test_level_1_worship_both_options_free_but_not_the_unlock():
    st = table()
    grant(st, 0, "worship_both_free")
    put(st, 5, FOREST, space=3)
    give(st, 0, cocoa=1)
    arrive(st, 0, 0, FOREST)
    choose(st, "worship", 3)
    labels = [o["label"] for o in st.decision(0).options]
    assert any("use the ability and claim" in label and "(pay 1 cocoa)" in label for label in labels)


def test_level_2_decorations_count_an_additional_worker():
    st = table()
    grant(st, 0, "decorations_extra_worker")
    give(st, 0, cocoa=3, gold=DATA.deco_cost[2])
    arrive(st, 0, 0, DECOR)
    choose(st, "main", 0, 0)
    assert st.decision(0).prompt.startswith(f"Decorations: pay {DATA.deco_cost[2]} gold")


def test_level_2_one_resource_with_each_discovery_tile():
    st = table()
    grant(st, 0, "discovery_plus_resource")
    tid = next(t for t, d in DATA.discoveries.items() if d.cost[1] == 1 and not d.cost[0])
    cost = DATA.discoveries[tid].cost
    st.d_avenue[0] = [tid]
    give(st, 0, wood=0, stone=cost[2], gold=cost[3])  # one wood short
    push(st, ("avenue-claim", 0, 0))
    run(st)
    choose(st, "tile", tid)
    assert st.d_owner[tid] == 0 and st.res[0:3] == [0, 0, 0]
    rich = table()
    grant(rich, 0, "discovery_plus_resource")
    rich.d_avenue[0] = [tid]
    give(rich, 0, wood=1, stone=cost[2], gold=cost[3])
    push(rich, ("avenue-claim", 0, 0))
    run(rich)
    choose(rich, "tile", tid)
    assert kind(rich) == "any-res"  # the resource of one's choice


def test_level_2_the_ascended_worker_starts_at_power_2():
    st = table()
    grant(st, 0, "new_worker_power_2")
    put(st, 0, FOREST, power=5)
    push(st, ("power-up", 0, FOREST, 0))
    run(st)
    assert st.wb[0] == PALACE and st.wp[0] == 2


def _eclipse(st) -> None:
    st.stack = [("eclipse", 1)]
    run(st)


def test_level_3_avenue_counts_two_higher():
    st = table()
    grant(st, 0, "avenue_plus_2")
    st.avenue = [3, 3]
    give(st, 0, cocoa=9)
    give(st, 1, cocoa=9)
    _eclipse(st)
    number = DATA.building_numbers[0]
    assert st.vp[0] == 5 * number and st.vp[1] == 3 * number


def test_level_3_no_salary():
    st = table(modules="height,priests")
    put(st, 0, FOREST, power=5)
    assert salary_due(st, 0) == 2
    grant(st, 0, "no_salary")
    st.priest[0] = EXP.priests.index("huitzilopochtli") + 1  # even a priest's higher salary
    modules.refresh(st)
    assert salary_due(st, 0) == 0


def test_level_3_the_best_mask_set_counts_one_more_mask():
    st = table()
    grant(st, 0, "mask_set_plus_1")
    masks = {}
    for t, d in DATA.discoveries.items():
        if d.mask and d.mask not in masks:
            masks[d.mask] = t
    for t in list(masks.values())[:3]:
        st.d_owner[t] = 0
    give(st, 0, cocoa=9)
    give(st, 1, cocoa=9)
    _eclipse(st)
    assert st.vp[0] == DATA.mask_set_vp[4] and set_vp(8) == 36 and set_vp(10) == 55
    empty = table()
    grant(empty, 0, "mask_set_plus_1")
    give(empty, 0, cocoa=9)
    give(empty, 1, cocoa=9)
    _eclipse(empty)
    assert empty.vp[0] == 0  # no set: nothing to add a mask to


# ---- Teotibot -------------------------------------------------------------------------------------------------
def test_teotibot_marks_one_ability_at_the_start_of_each_eclipse():
    st = bot_table()
    for eclipse in (1, 2, 3):
        st.eclipses = eclipse - 1
        st.over = False
        _eclipse(st)
        while st.to_act() and kind(st) == "salary":
            st.apply(0, 0)
        aid = EXP.teotibot_markers[eclipse]
        assert st.ability[BOT] >> IDX[aid] & 1
    assert bin(st.ability[BOT]).count("1") == 3


def test_teotibot_ascends_to_power_2_after_its_first_eclipse_marker():
    st = bot_table()
    grant(st, BOT, "new_worker_power_2")
    put(st, 4, FOREST, power=5)
    st.stack = [("ascend", BOT, 4)]
    run(st)
    assert st.wp[4] == 2


def test_teotibot_worship_on_nobles_takes_any_temple_steps_never_orange():
    st = bot_table()
    put(st, 4, FOREST, space=3)  # its locked worker; the next temple Worship space is Nobles'
    st.place_board[1:] = [1, 3, 5, 2, 8, 6, 7, 4]  # Palace, Stone, Alchemy, Forest, Construction, Nobles, ...
    st.board_place = [0] * 9
    for place, board in enumerate(st.place_board[1:], 1):
        st.board_place[board] = place
    bot_action(st, WORSHIP)
    assert st.wb[4] == NOBLES and st.ws[4] == NOBLES_SPACE
    assert orange(st, BOT) == EXP.orange_bonus and sum(st.temple[BOT * st.nt : BOT * st.nt + 3]) == 2


def test_player_turn_start_is_unchanged_by_the_module():
    st = table()
    put(st, 0, FOREST)
    start_turn(st, 0)
    assert [a[2] for a in acts(st) if a[0] == "move"] == [1, 2, 3]

"""M1 Priests and Priestesses: the hidden simultaneous choice, one scenario (or more) per player
tile and per Teotibot tile."""

from __future__ import annotations

from random import Random

import pytest

from engine.teotihuacan import GAME, modules
from engine.teotihuacan.data import DATA
from engine.teotihuacan.expansion_data import EXP
from engine.teotihuacan.flow import push, run
from engine.teotihuacan.preclassic.priests import TITLES, TONA
from engine.teotihuacan.rules.calendar import salary_due
from tests.engine.teotihuacan.teotibot_util import (
    ALCHEMY,
    BOT,
    CONSTRUCTION,
    DECORATIONS,
    MASKS,
    bot_action,
    solo,
)
from tests.engine.teotihuacan.util import acts, arrive, blank, choose, give, kind, put, start_turn

PALACE, FOREST, STONE, GOLD, ALCHEMY_B, NOBLES, DECOR, BUILD = 1, 2, 3, 4, 5, 6, 7, 8
BLUE, RED, GREEN = 0, 1, 2


def table(pid: str, players: int = 2, seat: int = 0):
    """A bare first-game table, the priests module in play, ``seat`` holding tile ``pid``."""
    st = blank(players, modules="priests")
    st.priest = [0] * st.n
    st.priest[seat] = EXP.priests.index(pid) + 1
    st.stack = []
    modules.refresh(st)  # the hooks of the tiles, Season and abilities set by hand
    return st


def bot_table(pid: str):
    st = solo(modules="priests")
    st.priest = [0, EXP.bot_priests.index(pid) + 1]
    st.stack = []
    modules.refresh(st)  # the hooks of the tiles, Season and abilities set by hand
    return st


def labels(st) -> list[str]:
    return [o["label"] for o in st.decision(st.to_act()[0]).options]


def action_offers(st, seat: int, board: int, w: int = 0) -> list[tuple]:
    """The action options worker ``w`` would have on ``board`` (even a single, forced one)."""
    put(st, w, board)
    return st.rules.choice["action"].options(st, ("action", seat, w, -1))


# ---- the deal and the hidden simultaneous choice ---------------------------------------------------------
def test_each_player_is_dealt_two_tiles_and_teotibot_one():
    st = GAME.setup(4, 5, {"modules": "priests"})
    dealt = [k for s in range(4) for k in st.priest_dealt[s]]
    assert all(len(st.priest_dealt[s]) == 2 for s in range(4)) and len(set(dealt)) == 8
    assert sorted(dealt + st.priest_deck) == list(range(1, 11)) and st.priest == [0, 0, 0, 0]
    bot = GAME.setup(1, 5, {"modules": "priests", "automaton": "teotibot"})
    assert 1 <= bot.priest[1] <= 6 and bot.priest_dealt[1] == [] and len(bot.priest_dealt[0]) == 2
    bot_tile = TITLES[EXP.bot_priests[bot.priest[1] - 1]]
    assert f"seat 1: {bot_tile}" in bot.render() and any(bot_tile in e["text"] for e in bot.log())


def _to_priest_pick(st):
    """Make every seat keep its first two Starting tiles; the priest choice follows."""
    while st.stack[-1][0] == "start-pick":
        st.apply(st.to_act()[0], 0)
    assert st.stack[-1][0] == "priest-pick"


def test_the_choice_is_simultaneous_and_hidden_until_both_are_made():
    st = GAME.setup(2, 3, {"modules": "priests"})
    _to_priest_pick(st)
    assert st.to_act() == (0, 1)
    assert st.decision(0).prompt.startswith("Keep one of your two Priest tiles")
    assert [o["act"] for o in st.decision(0).options] == [[k] for k in st.priest_dealt[0]]
    picks = []
    for choice in (0, 1):
        branch = st.clone()
        branch.apply(0, choice)
        assert branch.to_act() == (1,) and branch.priest == [0, 0]
        obs = branch.observation(1)
        assert obs["priest_pick"] == [True, 0] and obs["own_priests"] == st.priest_dealt[1]
        assert "priest_dealt" not in obs["public"] and "priest_pick" not in obs["public"]
        assert "Priest tiles: seat 0: chosen, hidden; seat 1: choosing" in branch.render()
        picks.append(obs)
    assert picks[0] == picks[1]  # seat 1 cannot tell which tile seat 0 kept
    # the observer's sample of seat 0's hand and pick never depends on the real one
    hands = {tuple(st.clone().determinize(1, Random(k)).priest_dealt[0]) for k in range(20)}
    assert len(hands) > 1 and all(st.priest_dealt[1][0] not in h for h in hands)
    rebuilt = GAME.from_observation(picks[0], Random(1))
    assert rebuilt.observation(1) == picks[0] and rebuilt.decision(1) == st.decision(1)
    st.apply(0, 1)
    st.apply(1, 0)
    assert st.priest == [st.priest_dealt[0][1], st.priest_dealt[1][0]]
    assert any(e[1] == "priest-pick" and "Seat 0 keeps" in e[2] for e in st.events)
    assert all(f[0] != "priest-pick" for f in st.stack) and st.stack[0] == ("turn", st.first)


def test_the_choice_follows_the_draft_and_the_first_game_setup_without_tonacacihuatl():
    for seed in range(15):
        for options in ({"starting_tile_draft": True}, {"first_game": True}):
            st = GAME.setup(3, seed, {"modules": "priests", **options})
            assert TONA not in [k for hand in st.priest_dealt for k in hand] + st.priest_deck
    st = GAME.setup(2, 0, {"modules": "priests", "starting_tile_draft": True})
    while st.stack[-1][0] == "draft":
        st.apply(st.to_act()[0], 0)
    assert st.stack[-1][0] == "priest-pick" and st.stack[-2][0] == "start-resolve"
    fg = GAME.setup(2, 0, {"modules": "priests", "first_game": True})
    assert fg.stack[-1][0] == "priest-pick" and fg.stack[-2][0] == "turn"


# ---- 01 Quetzalcohuātl -----------------------------------------------------------------------------------
def test_01_mask_brings_a_temple_step_and_a_resource_and_other_tiles_are_refused():
    st = table("quetzalcoatl")
    mask = next(t for t, d in DATA.discoveries.items() if d.mask)
    other = next(t for t, d in DATA.discoveries.items() if not d.mask)
    st.d_avenue[0] = [mask, other]
    give(st, 0, cocoa=10, wood=5, stone=5, gold=5)
    push(st, ("avenue-claim", 0, 0))
    run(st)
    assert acts(st) == [["tile", mask], ["decline"]]  # the non-mask tile is never offered
    choose(st, "tile", mask)
    held = sum(st.res[0:3])
    assert kind(st) == "any-temple"
    choose(st, RED)  # red step 1: 1 VP
    assert st.temple[RED] == 1 and kind(st) == "any-res"
    choose(st, 0, 0, 1)
    assert sum(st.res[0:3]) == held + 1 and not st.stack


# ---- 02 Tlāloc -----------------------------------------------------------------------------------------------
def test_02_another_players_worker_counts_as_ones_own_on_a_resource_board():
    st = table("tlaloc")
    put(st, 4, FOREST, power=3)  # player 2's worker
    put(st, 8, FOREST, power=1)  # a neutral worker: no player's
    give(st, 0, cocoa=5)
    arrive(st, 0, 0, FOREST, power=2)
    choose(st, "main", 0, 0)
    assert kind(st) == "tlaloc" and acts(st) == [["none"], ["w", 4]]
    choose(st, "w", 4)
    # two workers, lowest power 2: the row-2 cell of power 2
    assert st.res[0] == DATA.grids[FOREST][1][1]["wood"]
    assert st.wp[0] == 3 and st.wp[4] == 3  # the power-up went to one's own worker


def test_02_a_building_costs_one_more_resource_of_choice():
    st = table("tlaloc")
    give(st, 0, cocoa=5, wood=2)
    assert not any(a[0] == "main" for a in action_offers(st, 0, NOBLES))  # 2 wood is no longer enough
    give(st, 0, cocoa=5, wood=2, gold=1)
    arrive(st, 0, 0, NOBLES)
    choose(st, "main", 0, 0)
    assert st.res[0:3] == [0, 0, 0] and st.vp[0] == DATA.noble_rows[0][0]


def test_02_a_pyramid_tile_costs_one_more_resource_of_choice():
    st = table("tlaloc")
    give(st, 0, cocoa=5, stone=2)
    assert not any(a[0] == "main" for a in action_offers(st, 0, BUILD))
    give(st, 0, cocoa=5, stone=2, wood=1)
    arrive(st, 0, 0, BUILD)
    choose(st, "main", 0, 0)
    choose(st, "tile", 0)
    level1 = acts(st)[0]
    choose(st, *level1)
    choose(st, acts(st)[0][0])
    assert st.res[0:3] == [0, 0, 0]


# ---- 03 Chalchiuhtlicue ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("others,cost", [(0, 1), (2, 1)])
def test_03_main_action_costs_exactly_one_cocoa(others, cost):
    st = table("chalchiuhtlicue", players=3)
    for k in range(others):
        put(st, 4 + 4 * k, STONE)
    give(st, 0, cocoa=3)
    arrive(st, 0, 0, STONE)
    assert any(f"paying {cost} cocoa" in label for label in labels(st))
    choose(st, "main", 0, 0)
    assert st.cocoa[0] == 3 - cost


# ---- 04 Oxomoco -----------------------------------------------------------------------------------------------
def test_04_nobles_counts_an_additional_worker():
    st = table("oxomoco")
    give(st, 0, cocoa=5, wood=2)
    arrive(st, 0, 0, NOBLES)
    choose(st, "main", 0, 0)
    # one worker + the virtual one: the centre row
    assert st.vp[0] == DATA.noble_rows[1][0] and st.nob_taken[1] == 1


def test_04_decorations_cost_less_gold_with_the_additional_worker():
    st = table("oxomoco")
    give(st, 0, cocoa=5, gold=DATA.deco_cost[2])
    arrive(st, 0, 0, DECOR)
    choose(st, "main", 0, 0)
    assert st.decision(0).prompt.startswith(f"Decorations: pay {DATA.deco_cost[2]} gold")


# ---- 05 Xipe Totēc ---------------------------------------------------------------------------------------------
def test_05_worship_unlock_and_both_are_free():
    st = table("xipe_totec")
    put(st, 5, FOREST, space=3)  # player 2's worker locked on the Forest Worship space
    give(st, 0, cocoa=0)
    arrive(st, 0, 0, FOREST)
    choose(st, "worship", 3)
    assert ["both", 0] in acts(st)
    choose(st, "both", 0)
    assert st.cocoa[0] == 0 and st.ws[5] == -1


@pytest.mark.parametrize("locked,cost", [(1, 2), (2, 4), (3, 5)])
def test_05_own_unlock_costs_two_per_worker_at_most_five(locked, cost):
    st = table("xipe_totec")
    for k in range(locked):
        put(st, k, (FOREST, STONE, GOLD)[k], space=3 + k)
    put(st, 3, DECOR)
    give(st, 0, cocoa=cost)
    start_turn(st, 0)
    assert any(label.startswith(f"pay {cost} cocoa to unlock") for label in labels(st))
    choose(st, "unlock-pay")
    assert st.cocoa[0] == 0 and all(st.ws[w] == -1 for w in range(locked))


# ---- 06 Xolotl ----------------------------------------------------------------------------------------------------
def test_06_two_ascension_rewards():
    st = table("xolotl")
    put(st, 0, FOREST, power=5)
    push(st, ("power-up", 0, FOREST, 0))
    run(st)
    choose(st, "vp")
    assert kind(st) == "asc-reward"
    choose(st, "cocoa")
    assert st.vp[0] == 5 and st.cocoa[0] == 5


@pytest.mark.parametrize("pay,cocoa,vp", [("cocoa", 0, 5), ("vp", 1, 2), ("forfeit", 1, 5)])
def test_06_each_temple_step_costs_one_cocoa_or_three_vp(pay, cocoa, vp):
    st = table("xolotl")
    give(st, 0, cocoa=1)
    st.vp[0] = 5
    push(st, ("adv", 0, RED))
    run(st)
    assert kind(st) == "xolotl" and acts(st) == [["cocoa"], ["vp"], ["forfeit"]]
    choose(st, pay)
    red1 = DATA.temple_steps[RED][1][1]["vp"]
    advanced = pay != "forfeit"
    assert st.temple[RED] == int(advanced) and st.cocoa[0] == cocoa and st.vp[0] == vp + red1 * advanced


# ---- 07 Ehēcatl ----------------------------------------------------------------------------------------------------
def test_07_moves_one_to_four_or_anywhere_for_three_cocoa():
    st = table("ehecatl")
    put(st, 0, FOREST)
    give(st, 0, cocoa=3)
    start_turn(st, 0)
    assert [a[2] for a in acts(st) if a[0] == "move"] == [1, 2, 3, 4]
    choose(st, "mod", "ehecatl", 0)
    assert kind(st) == "ehecatl-to" and len(acts(st)) == 7
    target = next(d for d in range(1, 8) if f"to {DATA.board_names[GOLD]}" in labels(st)[d - 1])
    choose(st, target)
    assert st.wb[0] == GOLD and st.cocoa[0] == 0 and kind(st) == "action"


def test_07_with_season_7_moves_are_two_to_five():
    st = blank(2, modules="priests,seasons")
    st.priest = [EXP.priests.index("ehecatl") + 1, 0]
    st.season = 7
    modules.refresh(st)
    put(st, 0, FOREST)
    start_turn(st, 0)
    assert [a[2] for a in acts(st) if a[0] == "move"] == [2, 3, 4, 5]


def test_07_collects_one_cocoa_less_and_never_pays_to_unlock():
    st = table("ehecatl")
    put(st, 1, STONE, space=4)
    give(st, 0, cocoa=10)
    arrive(st, 0, 0, FOREST)
    assert labels(st)[0] == "Collect Cocoa (+0 cocoa)"
    start_turn(st, 0)
    assert "unlock-pay" not in [a[0] for a in acts(st)] and ["unlock-free"] in acts(st)


# ---- 08 Tōnacāihuātl ----------------------------------------------------------------------------------------------
def test_08_keeps_all_four_starting_tiles_two_now_one_per_eclipse():
    st = GAME.setup(2, 11, {"modules": "priests"})
    _to_priest_pick(st)
    for seat in (0, 1):
        options = [o["act"][0] for o in st.decision(seat).options]
        st.apply(seat, options.index(TONA) if TONA in options else 0)
    holder = next(s for s in (0, 1) if st.priest[s] == TONA)  # seed 11 deals it (test below)
    assert sorted(st.kept[holder]) == sorted(st.start_dealt[holder]) and len(st.kept[holder]) == 4
    boards = {b for t in st.kept[holder][:2] for b in DATA.starting_tiles[t][0]}
    trios = st.rules.choice["start-place"].options(st, ("start-place", holder))
    assert trios and all(set(trio) <= boards for trio in trios)  # workers from the two chosen tiles
    later = st.kept[holder][2:]
    st.stack = [("eclipse", 0)]
    run(st)
    while kind(st) == "salary":
        st.apply(st.to_act()[0], 0)
    assert kind(st) == "tona-tile" and acts(st) == [[t] for t in later]  # the player picks the third
    choose(st, later[1])
    assert st.kept[holder][2:] == [later[1], later[0]]
    assert any(e[1] == "tona-tile" and f"Starting tile {later[1]}" in e[2] for e in st.events)


def test_08_tonacacihuatl_is_dealt_with_seed_11():
    st = GAME.setup(2, 11, {"modules": "priests"})
    assert TONA in st.priest_dealt[0] + st.priest_dealt[1]


@pytest.mark.parametrize("board", [NOBLES, DECOR, BUILD])
def test_08_one_more_wood_for_boards_6_7_8(board):
    st = table("tonacacihuatl")
    give(st, 0, cocoa=5, wood=3, stone=5, gold=5)
    arrive(st, 0, 0, board)
    assert any("and 1 wood" in label for label in labels(st))
    choose(st, "main", 0, 0)
    assert st.res[0] == 3 - 1 - (DATA.noble_cost if board == NOBLES else 0)  # the extra wood was paid
    give(st, 0, cocoa=5, wood=0, stone=5, gold=5)
    assert not any(a[0] == "main" for a in action_offers(st, 0, board, w=1))


# ---- 09 Huītzilōpōchtli ---------------------------------------------------------------------------------------------
def test_09_one_more_vp_per_gain_and_a_higher_salary():
    st = table("huitzilopochtli")
    push(st, ("avenue", 0))
    put(st, 0, FOREST, power=5)
    push(st, ("power-up", 0, FOREST, 0))
    run(st)
    choose(st, "vp")
    assert st.vp[0] == 5 + 1
    put(st, 1, STONE)
    assert salary_due(st, 0) == (1 + 1) * 2
    st.vp_seen[0] = st.vp[0] = 0
    st.avenue[0] = 2
    give(st, 0, cocoa=9)  # the salary is a choice: the scoring is not yet reduced by it
    st.stack = [("eclipse", 0)]
    run(st)
    number = DATA.building_numbers[st.buildings_taken]
    assert st.vp[0] == 2 * number + 1  # Avenue scored (+1); nothing for the empty Pyramid and masks


# ---- 10 Xōchipilli ----------------------------------------------------------------------------------------------------
def test_10_cheaper_technology_any_row_with_one_worker():
    st = table("xochipilli")
    give(st, 0, cocoa=5, gold=DATA.tech_gold[st.tech[4]] - 1)
    arrive(st, 0, 0, ALCHEMY_B)
    choose(st, "main", 0, 0)
    assert [4, 0] in acts(st)  # the bottom row with one power-1 worker, 1 gold less
    choose(st, 4, 0)
    assert st.res[2] == 0 and st.tech_marks[4] == 1


def test_10_never_worships_and_takes_no_tile_on_a_major_step():
    st = table("xochipilli")
    give(st, 0, cocoa=5)
    arrive(st, 0, 0, FOREST)
    assert not any(a[0] == "worship" for a in acts(st))
    st.stack = []
    st.temple[BLUE] = 3  # the next blue step (4) is a major step with discovery tiles
    give(st, 0, cocoa=10, wood=9, stone=9, gold=9)
    push(st, ("adv", 0, BLUE))
    run(st)
    assert any(e[1] == "major" and "only option" in e[2] for e in st.events)
    assert 0 not in st.d_owner


# ---- Teotibot's tiles ------------------------------------------------------------------------------------------------
def test_s01_metzli_three_cocoa_when_joining_its_worker():
    st = bot_table("metzli")
    put(st, 4, FOREST)
    arrive(st, 0, 0, FOREST)
    assert st.cocoa[BOT] == 3
    st2 = bot_table("metzli")
    put(st2, 4, STONE)
    arrive(st2, 0, 0, FOREST)
    assert st2.cocoa[BOT] == 0


@pytest.mark.parametrize("cocoa,both", [(2, True), (1, False)])
def test_s02_both_bottom_corner_actions_for_two_cocoa(cocoa, both):
    st = bot_table("tlahuizcalpantecuh")
    st.act_pyr = [5, 6, 7, 1, 2, 3]  # bottom corners: Construction (2-3) and Alchemy (11-12)
    st.act_aside = 4
    give(st, BOT, cocoa=cocoa)
    st.roll = 2
    plan = modules.fire(st, "bot_roll", BOT, 3)
    assert bool(plan) == both
    if both:
        assert [f[0] for f in plan] == ["bot-perform", "bot-aside", "bot-perform", "bot-done"]
        assert plan[2][2] == 5 and st.cocoa[BOT] == 0
        dirs = list(st.dirs)
        st.stack = [plan[1]]
        run(st)
        assert st.act_pyr[3] == 4 and st.act_aside == 1 and st.dirs == dirs


def test_s03_itzpapalotl_ascension_advances_on_each_temple():
    st = bot_table("itzpapalotl")
    put(st, 4, FOREST, power=5)
    st.stack = [("ascend", BOT, 4)]
    run(st)
    assert st.temple[BOT * st.nt : BOT * st.nt + 3] == [1, 1, 1] and st.vp[BOT] < 5


def test_s04_tezcatlipoca_after_a_mask_builds_and_decorates_after_failing_gains_cocoa():
    st = bot_table("tezcatlipoca")
    give(st, BOT, cocoa=0, stone=1, gold=1)
    bot_action(st, MASKS)  # no affordable mask lies out: the fallback
    assert st.cocoa[BOT] == 5 + 2
    st = bot_table("tezcatlipoca")
    mask = next(t for t, d in DATA.discoveries.items() if d.mask)
    cost = DATA.discoveries[mask].cost
    st.d_offer[0] = mask
    give(st, BOT, cocoa=cost[0], wood=cost[1], stone=cost[2] + 1, gold=cost[3] + 1)
    placed = sum(1 for p in st.pyr_pos if p >= 0)
    bot_action(st, MASKS)
    assert st.d_owner[mask] == BOT and st.cocoa[BOT] == 0
    assert sum(1 for p in st.pyr_pos if p >= 0) == placed + 1 and any(st.deco_space)


def test_s05_chantico_decorations_then_a_pyramid_tile_construction_then_a_decoration():
    st = bot_table("chantico")
    put(st, 4, DECOR)
    give(st, BOT, stone=1, gold=2)
    placed = sum(1 for p in st.pyr_pos if p >= 0)
    bot_action(st, DECORATIONS)
    assert any(st.deco_space) and sum(1 for p in st.pyr_pos if p >= 0) == placed + 1
    st = bot_table("chantico")
    put(st, 4, BUILD)
    give(st, BOT, stone=2, gold=1)
    bot_action(st, CONSTRUCTION)
    assert any(st.deco_space)  # paid with its 1 gold (the temple steps bring resources back)


def test_s06_mictecacihuatl_no_vp_for_shared_technologies_twice_with_gold_and_cocoa_on_failure():
    st = bot_table("mictecacihuatl")
    put(st, 4, ALCHEMY_B)
    for pos in range(6):
        st.tech_marks[pos] = 1  # the player has every Technology
    give(st, BOT, gold=2)
    bot_action(st, ALCHEMY)
    assert st.vp[0] == 0 and st.tech_count(BOT) == 2
    st = bot_table("mictecacihuatl")
    put(st, 4, FOREST)
    bot_action(st, ALCHEMY)  # no worker on Alchemy: fails
    assert st.cocoa[BOT] == 5 and st.wp[4] == 3

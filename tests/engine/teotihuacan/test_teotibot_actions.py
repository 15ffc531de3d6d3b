"""Teotibot: each Action tile and each of its fallback steps, and the bot's general rules
(power-ups, advancing, tie-breaks, Ascension, temple rewards), as scenarios on a bare table."""

from __future__ import annotations

from engine.teotihuacan.data import DATA, WORSHIP_OFFER
from engine.teotihuacan.flow import push, run
from engine.teotihuacan.rules.actions import open_positions
from tests.engine.teotihuacan.teotibot_util import (
    ALCHEMY,
    ALCHEMY_B,
    BOT,
    BUILD,
    CONSTRUCTION,
    DECOR,
    DECORATIONS,
    FOREST,
    GOLD,
    MASKS,
    MASTERY,
    NOBLES,
    NOBLES_B,
    PALACE,
    SPACE,
    STONE,
    WORSHIP,
    bot_action,
    bot_res,
    solo,
)
from tests.engine.teotihuacan.util import arrive, choose, give, put

W0, W1, W2, W3 = 4, 5, 6, 7  # the bot's worker slots


def temples(st) -> list[int]:
    return st.temple[BOT * 3 : BOT * 3 + 3]


def set_temples(st, blue: int, red: int, green: int) -> None:
    st.temple[BOT * 3 : BOT * 3 + 3] = [blue, red, green]


# ---- Construction ------------------------------------------------------------------------------------
def test_construction_builds_leftmost_tile_lowest_top_left_and_slides_the_offer():
    st = solo()
    put(st, W0, BUILD, power=2)
    give(st, BOT, stone=3)
    set_temples(st, 2, 1, 1)  # any-temple step: blue (highest), step 3 gives a resource
    offer, top_of_stack = list(st.pyr_offer), st.pyr_deck[-1]
    pos = open_positions(st)[0]
    level = DATA.positions[pos].level
    bot_action(st, CONSTRUCTION)
    assert st.pyr_pos[pos] // 4 == offer[0]  # the leftmost tile, on the first open position
    assert st.pyr_offer == [offer[1], offer[2], top_of_stack]  # slid left, refilled on the right
    assert st.vp[BOT] == DATA.level_vp[level] + 2 and st.ptrack[BOT] == 1
    assert temples(st) == [3, 1, 1]
    assert bot_res(st) == [0, 1, 1]  # 2 stone spent; the blue reward is the gold it lacks most
    assert st.wp[W0] == 3 and st.wb[W0] == DECOR  # powered up, then one board clockwise


def test_construction_without_stone_takes_two_stone_at_the_quarry():
    st = solo()
    put(st, W0, BUILD, power=2)
    put(st, W1, STONE, power=2)
    give(st, BOT, stone=1)
    bot_action(st, CONSTRUCTION)
    assert bot_res(st) == [0, 3, 0] and st.vp[BOT] == 0
    assert st.wp[W1] == 3 and st.wb[W1] == ALCHEMY_B  # the quarry worker is powered up and advanced
    assert st.wp[W0] == 2 and st.wb[W0] == BUILD


def test_construction_fallback_gives_five_cocoa_and_moves_the_lowest_worker():
    st = solo()
    put(st, W0, FOREST, power=3)
    put(st, W1, GOLD, power=2)
    put(st, W2, NOBLES_B, power=2)
    bot_action(st, CONSTRUCTION)
    assert st.cocoa[BOT] == 5
    # power-2 tie: Nobles (place 7) is clockwise closer to the Palace than Gold Deposits (place 8)
    assert st.wp[W2] == 3 and st.wb[W2] == GOLD
    assert st.wp[W1] == 2 and st.wb[W1] == GOLD


def test_construction_fails_when_the_offer_is_empty():
    st = solo()
    put(st, W0, BUILD, power=1)
    give(st, BOT, stone=2)
    st.pyr_offer = [0, 0, 0]
    st.pyr_deck = []
    bot_action(st, CONSTRUCTION)
    assert bot_res(st) == [0, 2, 0] and st.cocoa[BOT] == 5


def test_pyramid_top_placed_by_the_bot_triggers_the_final_eclipse():
    st = solo()
    put(st, W0, BUILD, power=1)
    give(st, BOT, stone=2)
    for i, p in enumerate(DATA.positions):
        if p.level < 4:
            st.pyr_pos[i] = 4
    bot_action(st, CONSTRUCTION)
    assert st.pyramid_done and st.light == st.dark
    assert st.vp[BOT] == DATA.level_vp[4] + 2


# ---- Decorations -----------------------------------------------------------------------------------------
def test_decorations_places_topmost_tile_clockwise_from_the_top():
    st = solo()
    put(st, W0, DECOR, power=1)
    give(st, BOT, gold=2)
    set_temples(st, 0, 4, 1)
    offer, new = list(st.deco_offer), st.deco_deck[-1]
    st.deco_space[0] = 99  # top side, level 1 taken; level 2 of the top lacks a pyramid tile
    st.pyr_pos[DATA.deco_spaces[1][2][0]] = -1
    bot_action(st, DECORATIONS)
    assert st.deco_space[1] == 0 and st.deco_space[4] == offer[0]  # so: the right side, level 1
    assert st.deco_offer == [*offer[1:], new]
    assert st.ptrack[BOT] == 1 and temples(st) == [0, 5, 1]
    assert st.vp[BOT] == 5 + DATA.temple_steps[1][5][1]["vp"]  # 5 VP, then red step 5's printed VP
    assert st.res[BOT * 3 + 2] == 0 and st.wp[W0] == 2 and st.wb[W0] == NOBLES_B


def test_decorations_without_gold_takes_two_gold_at_gold_deposits():
    st = solo()
    put(st, W0, DECOR, power=1)
    put(st, W1, GOLD, power=3)
    give(st, BOT, gold=1)
    bot_action(st, DECORATIONS)
    assert bot_res(st) == [0, 0, 3]
    assert st.wp[W1] == 4 and st.wb[W1] == ALCHEMY_B  # power 4: skips Stone Quarry, and the Palace


def test_decorations_fallback():
    st = solo()
    put(st, W0, BUILD, power=4)
    give(st, BOT, gold=5)
    bot_action(st, DECORATIONS)
    assert st.cocoa[BOT] == 5 and st.wp[W0] == 5 and st.wb[W0] == NOBLES_B  # power 5: two boards


# ---- Alchemy -------------------------------------------------------------------------------------------------
def test_alchemy_takes_the_lowest_technology_without_markers():
    st = solo()
    put(st, W0, ALCHEMY_B, power=2)
    give(st, BOT, gold=3)
    st.tech_marks[0] = 1  # the player has 01
    bot_action(st, ALCHEMY)
    assert st.tech_marks[1] == 1 << BOT  # 03, centre column
    assert temples(st) == [0, 1, 0] and st.vp == [0, 1]  # red step 1: 1 VP; no VP for the player
    assert st.res[BOT * 3 + 2] == 2 and st.wp[W0] == 3 and st.wb[W0] == FOREST


def test_alchemy_when_all_it_lacks_are_the_players_the_player_scores_three():
    st = solo()
    put(st, W0, ALCHEMY_B, power=2)
    give(st, BOT, gold=1)
    st.tech_marks = [2, 2, 1, 1, 1, 1]  # bot has 01 and 03; the player has 05, 09, 15, 17
    bot_action(st, ALCHEMY)
    assert st.tech_marks[2] == 3 and st.vp[0] == DATA.tech_vp_earlier
    assert temples(st) == [0, 0, 1]


def test_alchemy_fallback_powers_the_lowest_worker_by_two_without_moving():
    st = solo()
    put(st, W0, ALCHEMY_B, power=3)
    put(st, W1, FOREST, power=1)
    put(st, W2, BUILD, power=2)
    bot_action(st, ALCHEMY)  # no gold
    assert st.wp[W1] == 3 and st.wb[W1] == FOREST and st.cocoa[BOT] == 0
    st.tech_marks = [2] * 6  # it has every Technology
    give(st, BOT, gold=4)
    bot_action(st, ALCHEMY)
    assert st.wp[W2] == 4 and st.wb[W2] == BUILD and bot_res(st) == [0, 0, 4]


# ---- Nobles --------------------------------------------------------------------------------------------------
def test_nobles_row_follows_the_eclipses():
    for eclipses, row in ((0, 0), (1, 1), (2, 2)):
        st = solo()
        st.eclipses = eclipses
        put(st, W0, NOBLES_B, power=1)
        give(st, BOT, wood=2)
        bot_action(st, NOBLES)
        assert st.nob_taken[row] == 0b1 and st.buildings_taken == 1
        assert st.vp[BOT] == DATA.noble_rows[row][0] and st.avenue[BOT] == 1
        assert st.wp[W0] == 2 and st.wb[W0] == GOLD


def test_nobles_full_row_uses_the_lowest_printed_value():
    st = solo()
    st.eclipses = 2
    st.nob_taken = [0b111, 0b111, 0b111]  # bottom row full; empty: top 1, 1 VP, centre 3 VP
    put(st, W0, NOBLES_B, power=1)
    give(st, BOT, wood=2)
    bot_action(st, NOBLES)
    assert st.nob_taken == [0b1111, 0b111, 0b111] and st.vp[BOT] == DATA.noble_rows[0][3]


def test_nobles_full_row_takes_the_lowest_space_of_all_three_rows_not_a_rows_next_space():
    """The rule "If a row is full, place it into a space with the lowest printed Victory Point
    value of all three rows" means any empty space, not only each row's leftmost one."""
    st = solo()
    st.nob_taken = [0b11111, 0, 0]  # era 0, top row full: centre 5 4 3 3, bottom 7 6 5 empty
    put(st, W0, NOBLES_B, power=1)
    give(st, BOT, wood=2)
    bot_action(st, NOBLES)
    assert st.vp[BOT] == 3  # was 5: the centre row's leftmost space
    assert st.nob_taken == [0b11111, 0b100, 0]  # the first 3 in reading order
    st = solo()
    st.eclipses = 2
    st.nob_taken = [0, 0, 0b111]  # bottom row full; the top row's 1s are the lowest
    put(st, W0, NOBLES_B, power=1)
    give(st, BOT, wood=2)
    bot_action(st, NOBLES)
    assert st.vp[BOT] == 1 and st.nob_taken == [0b1000, 0, 0b111]  # was 3: the top row's leftmost


def test_a_player_after_the_bot_takes_the_leftmost_empty_space():
    st = solo()
    st.nob_taken = [0b01011, 0b1111, 0b111]  # the bot left space 3 (2 VP) empty in the top row
    give(st, 0, cocoa=1, wood=2)
    arrive(st, 0, 0, NOBLES_B)  # one worker: the top row
    choose(st, "main", 0, 0)
    assert st.vp[0] == 2 and st.nob_taken[0] == 0b01111


def test_nobles_without_wood_takes_two_wood_in_the_forest_else_cocoa():
    st = solo()
    put(st, W0, NOBLES_B, power=1)
    put(st, W1, FOREST, power=1)
    bot_action(st, NOBLES)
    assert bot_res(st) == [2, 0, 0] and st.wp[W1] == 2 and st.wb[W1] == BUILD
    st2 = solo()
    put(st2, W0, NOBLES_B, power=1)
    give(st2, BOT, wood=2)
    st2.buildings_taken = DATA.buildings  # no Building left
    bot_action(st2, NOBLES)
    assert st2.cocoa[BOT] == 5 and bot_res(st2) == [2, 0, 0]


# ---- Mastery -------------------------------------------------------------------------------------------------
def test_mastery_uses_the_highest_worker_furthest_clockwise_on_ties():
    st = solo()
    put(st, W0, FOREST, power=3)  # place 4
    put(st, W1, ALCHEMY_B, power=3)  # place 3
    put(st, W2, BUILD, power=2)
    give(st, BOT, gold=1)
    bot_action(st, MASTERY)
    assert bot_res(st) == [2, 0, 1]  # Forest's step: 2 wood
    assert st.wp[W0] == 4 and st.wb[W0] == DECOR  # that worker: powered up, two boards on


def test_mastery_falls_through_to_the_next_worker():
    st = solo()
    put(st, W0, NOBLES_B, power=4)  # no wood: fails
    put(st, W1, ALCHEMY_B, power=3)
    put(st, W2, GOLD, power=1)
    give(st, BOT, gold=1)
    bot_action(st, MASTERY)
    assert st.tech_marks[0] == 1 << BOT and st.wp[W1] == 4 and st.wb[W1] == BUILD
    assert st.wp[W0] == 4 and st.wb[W0] == NOBLES_B


def test_mastery_all_fail_gives_the_fallback():
    st = solo()
    put(st, W0, NOBLES_B, power=4)
    put(st, W1, BUILD, power=3)
    put(st, W2, PALACE, power=1)
    bot_action(st, MASTERY)
    assert st.cocoa[BOT] == 5 and st.wp[W2] == 2 and st.wb[W2] == STONE  # Palace worker is lowest


# ---- Worship -------------------------------------------------------------------------------------------------
def test_worship_moves_on_unlocks_the_player_advances_twice_and_discards_the_tile():
    st = solo()
    put(st, W3, DECOR, power=1, space=SPACE[DECOR])  # place 6; next temple sidebar: Gold (place 8)
    put(st, 0, GOLD, power=2, space=SPACE[GOLD])
    set_temples(st, 2, 0, 0)
    slot = WORSHIP_OFFER[GOLD]
    old, new = st.d_offer[slot], st.d_deck[-1]
    bot_action(st, WORSHIP)
    assert st.wb[W3] == GOLD and st.ws[W3] == SPACE[GOLD] and st.space_occ[SPACE[GOLD]] == W3
    assert st.space_occ[SPACE[DECOR]] == -1
    assert st.ws[0] == -1 and st.wb[0] == GOLD  # the player's worker is unlocked
    assert temples(st) == [4, 0, 0]  # blue (Gold Deposits' sidebar) twice, printed rewards
    assert st.d_offer[slot] == new and st.d_owner[old] == -2


def test_worship_skips_the_palace_and_decorations_gives_three_any_temple_steps():
    st = solo()
    put(st, W3, GOLD, power=1, space=SPACE[GOLD])  # place 8 -> Palace skipped -> Stone Quarry
    bot_action(st, WORSHIP)
    assert st.wb[W3] == STONE and temples(st) == [0, 0, 2]  # green twice
    st = solo()
    put(st, W3, FOREST, power=1, space=SPACE[FOREST])  # place 4 -> Decorations (place 6)
    set_temples(st, 1, 3, 3)
    bot_action(st, WORSHIP)
    assert st.wb[W3] == DECOR and temples(st) == [1, 6, 3]  # red: highest, leftmost of the tie


# ---- Mask collection ---------------------------------------------------------------------------------------
def offer(st, slot: int, tid: int) -> None:
    """Lay discovery tile ``tid`` face up beside a Worship space."""
    for stack in (st.d_deck, *st.d_avenue, *st.d_temple):
        if tid in stack:
            stack.remove(tid)
    st.d_offer = [0 if t == tid else t for t in st.d_offer]
    st.d_offer[slot] = tid


def no_masks_offered(st) -> None:
    """Replace every mask beside the Worship spaces by an empty slot."""
    st.d_offer = [t if t and not DATA.discoveries[t].mask else 0 for t in st.d_offer]


def test_mask_collection_lowest_rarity_then_clockwise_from_the_palace():
    st = solo()
    no_masks_offered(st)
    put(st, W0, BUILD)
    offer(st, 0, 6)  # Palace: mask 4 (common, 1 wood)
    offer(st, WORSHIP_OFFER[GOLD], 2)  # mask 2 (uncommon, 1 cocoa + 1 wood)
    give(st, BOT, cocoa=1, wood=2)
    bot_action(st, MASKS)
    assert st.d_owner[2] == BOT and st.cocoa[BOT] == 0 and bot_res(st) == [1, 0, 0]
    assert st.d_offer[WORSHIP_OFFER[GOLD]] not in (0, 2)  # replaced at once
    assert st.wb[W0] == BUILD and st.wp[W0] == 1  # no worker moves
    st = solo()
    no_masks_offered(st)
    offer(st, WORSHIP_OFFER[FOREST], 9)  # mask 5 at place 4
    offer(st, WORSHIP_OFFER[STONE], 7)  # mask 4 at place 2: first clockwise
    give(st, BOT, wood=1)
    bot_action(st, MASKS)
    assert st.d_owner[7] == BOT and st.d_owner[9] == -1


def test_mask_collection_skips_masks_owned_or_unaffordable():
    st = solo()
    no_masks_offered(st)
    put(st, W0, BUILD, power=1)
    st.d_owner[6] = BOT  # already has mask 4
    offer(st, 0, 7)  # another mask 4
    offer(st, WORSHIP_OFFER[STONE], 1)  # mask 1: 2 cocoa + 1 gold, cannot pay
    give(st, BOT, cocoa=1, wood=3)
    bot_action(st, MASKS)
    assert st.d_owner[7] == -1 and st.d_owner[1] == -1
    assert st.cocoa[BOT] == 6 and st.wp[W0] == 2 and st.wb[W0] == DECOR


# ---- general rules -------------------------------------------------------------------------------------------
def test_ascension_gives_five_vp_and_the_reborn_worker_advances_from_the_palace():
    st = solo()
    put(st, W0, BUILD, power=5)
    give(st, BOT, stone=2)
    st.avenue[BOT] = 0
    light = st.light
    bot_action(st, CONSTRUCTION)
    assert st.wp[W0] == 1 and st.wb[W0] == STONE  # reborn at the Palace, then one board on
    assert st.avenue[BOT] == 1 and st.light == light + 1
    level = DATA.positions[open_positions(solo())[0]].level
    assert st.vp[BOT] == DATA.level_vp[level] + 2 + 5


def test_powers_up_the_highest_worker_on_the_board():
    st = solo()
    put(st, W0, FOREST, power=1)
    put(st, W1, FOREST, power=3)
    bot_action(st, NOBLES)  # no Nobles worker: Forest step
    assert st.wp[W1] == 4 and st.wb[W1] == DECOR and st.wp[W0] == 1


def test_blue_resources_go_to_what_it_has_least_of_gold_then_stone_then_wood():
    st = solo()
    give(st, BOT, wood=1)
    st.stack = []
    push(st, ("any-res", BOT, 2))
    run(st)
    assert bot_res(st) == [1, 1, 1]
    push(st, ("any-res", BOT, 3))
    run(st)
    assert bot_res(st) == [2, 2, 2]


def test_any_temple_ignores_full_temples():
    st = solo()
    set_temples(st, DATA.top_step, 2, 2)
    st.stack = []
    push(st, ("any-temple", BOT))
    run(st)
    assert temples(st) == [DATA.top_step, 3, 2]


def test_any_temple_step_on_its_highest_temple_is_lost_when_the_top_is_taken():
    """The rule "whichever temple it is currently the highest on (ignoring temples where it has
    already reached the topmost step)": a step that cannot happen there is lost, it does not
    go to another temple."""
    for green in (2, DATA.top_step):  # two temples to choose from, or only one below the top
        st = solo()
        set_temples(st, DATA.top_step - 1, 2, green)
        st.temple[0 * 3 + 0] = DATA.top_step  # the player holds the blue top step
        st.stack = []
        st.events = []
        push(st, ("any-temple", BOT))
        run(st)
        assert temples(st) == [DATA.top_step - 1, 2, green]  # was red 2 -> 3
        assert "the step is lost" in st.events[0][2]


def test_never_takes_discovery_tiles_from_temples_or_the_avenue():
    st = solo()
    set_temples(st, 0, 0, 2)
    give(st, BOT, cocoa=9, wood=9, stone=9, gold=9)
    st.avenue[BOT] = 2
    stacks = [list(s) for s in st.d_temple], [list(s) for s in st.d_avenue]
    st.stack = []
    push(st, ("adv", BOT, 2), ("avenue", BOT))
    run(st)
    assert st.cocoa[BOT] == 9 + 1  # green step 3: the printed reward
    assert st.avenue[BOT] == 3
    assert ([list(s) for s in st.d_temple], [list(s) for s in st.d_avenue]) == stacks


def test_worship_without_a_locked_worker_falls_back():
    st = solo()
    put(st, W0, BUILD, power=2)
    bot_action(st, WORSHIP)
    assert st.cocoa[BOT] == 5 and st.wp[W0] == 3 and st.wb[W0] == DECOR


def test_the_bots_choices_are_logged_as_its_own():
    st = solo()
    set_temples(st, 1, 1, 1)
    st.events = []
    st.stack = []
    push(st, ("any-temple", BOT))
    run(st)
    assert st.events == [
        (BOT, "any-temple", "blue temple (step 1 -> 2) (automaton's choice)"),
        (BOT, "any-res", "take 1 gold (automaton's choice)"),  # blue step 2's resource
    ]

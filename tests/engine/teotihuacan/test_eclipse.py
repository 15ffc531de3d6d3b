"""Calendar, the eight Eclipse steps, game end, winner and tie-breaks."""

from __future__ import annotations

import pytest

from engine.teotihuacan.flow import run
from tests.engine.teotihuacan.util import blank, choose, kind, own_tile, put, start_turn

FOREST = 2


def _eclipse(st, pay_all=True):
    """Score an Eclipse now (seat 0 to play next), paying salaries in full when asked."""
    st.stack = [("eclipse", 0)]
    run(st)
    while kind(st) == "salary":
        st.apply(st.to_act()[0], 0 if pay_all else len(st.opts) - 1)


def _workers(st, power=1):
    for seat in range(st.n):
        for k in range(3):
            put(st, seat * 4 + k, FOREST, power=power)


def test_step_1_avenue_times_lowest_visible_building_number():
    st = blank(2)
    _workers(st)
    st.cocoa = [9, 9]
    st.avenue = [3, 1]
    st.buildings_taken = 2  # numbers 5 5 4 ...: the third space shows 4
    _eclipse(st)
    assert st.vp == [12, 4]
    texts = [e["text"] for e in st.log()]
    assert "Seat 0 scores Avenue 12, Pyramid leader 0, Pyramid steps 0, masks 0" in texts  # readable log


@pytest.mark.parametrize("track,leader", [([2, 2], [4, 4]), ([3, 1], [4, 0]), ([0, 0], [0, 0])])
def test_step_2_pyramid_leaders_score_four(track, leader):
    st = blank(2)
    _workers(st)
    st.cocoa = [9, 9]
    st.ptrack = list(track)
    _eclipse(st)
    assert st.vp == [leader[s] + 4 * track[s] for s in range(2)]


@pytest.mark.parametrize("era,per_step", [(0, 4), (1, 3), (2, 2)])
def test_steps_3_and_4_pyramid_steps_by_era_then_reset(era, per_step):
    st = blank(2)
    _workers(st)
    st.cocoa = [9, 9]
    st.eclipses = era
    st.ptrack = [0, 2]
    _eclipse(st)
    assert st.vp[1] == 4 + 2 * per_step and st.ptrack == [0, 0]


def test_step_5_masks():
    st = blank(2)
    _workers(st)
    st.cocoa = [9, 9]
    for k in ("mask_1", "mask_2", "mask_3"):
        own_tile(st, 0, k)
    _eclipse(st)
    assert st.vp[0] == 6


def test_step_6_salary_partial_payment_and_floor_at_zero():
    st = blank(2)
    _workers(st, power=4)  # 3 workers of power 4: 6 cocoa due
    st.cocoa = [6, 1]
    st.vp = [0, 4]
    st.stack = [("eclipse", 0)]
    run(st)
    assert [a for a in st.decision(0).options][0]["act"] == ["pay", 6]
    choose(st, "pay", 4)  # seat 0 underpays by 2: would lose 6 VP, stays at 0
    choose(st, "pay", 1)  # seat 1 underpays by 5: loses 15 VP, floored at 0
    assert st.cocoa == [2, 0] and st.vp == [0, 0]


def test_step_6_free_payment_tile_covers_salary():
    st = blank(2)
    _workers(st)
    st.cocoa = [3, 9]
    tid = own_tile(st, 0, "free_payment")
    st.stack = [("eclipse", 0)]
    run(st)
    choose(st, "tile")
    assert st.cocoa[0] == 3 and st.d_used[tid]


@pytest.mark.parametrize("players,darks", [(2, (9, 8)), (3, (10, 9)), (4, (11, 10))])
def test_step_7_calendar_reset_and_dark_disc(players, darks):
    st = blank(players)
    _workers(st)
    st.cocoa = [20] * players
    for era in range(2):
        st.light = st.dark
        _eclipse(st)
        assert st.light == 0 and st.dark == darks[era] and not st.over


@pytest.mark.parametrize("players,neutral", [(2, 6), (3, 3), (4, 0)])
def test_step_7_neutral_workers_placed_again_on_three_boards(players, neutral):
    st = blank(players)
    _workers(st)
    st.cocoa = [20] * players
    _eclipse(st)
    slots = [w for w in range(players * 4, 16) if st.wb[w]]
    assert len(slots) == neutral
    for c in range(players, 4):
        boards = [st.wb[c * 4 + k] for k in range(3)]
        assert len(set(boards)) == 3 and all(st.wp[c * 4 + k] == 1 for k in range(3))


def test_step_8_third_eclipse_scores_bonus_tiles_and_ends_the_game():
    st = blank(2)
    _workers(st)
    st.cocoa = [20, 20]
    st.eclipses = 2
    st.bonus = [3, 4, 7]
    st.temple[0:3] = [10, 0, 0]
    _eclipse(st)
    assert st.over and st.terminal() and st.vp[0] == 15 and st.to_act() == ()
    assert st.result().details["per_seat"][0]["categories"]["bonus"] == 15


def test_last_player_moves_the_light_disc():
    st = blank(2)
    _workers(st)
    start_turn(st, 0)
    st.apply(0, 0)
    while st.to_act() == (0,):
        st.apply(0, 0)
    assert st.light == 0
    while st.to_act() == (1,):
        st.apply(1, 0)
    assert st.light == 1


def test_dark_eclipse_scores_right_after_the_triggering_turn():
    st = blank(2, dark_eclipse=True)
    _workers(st)
    st.cocoa = [9, 9]
    st.light = st.dark - 1
    start_turn(st, 1)
    while st.to_act() == (1,) and kind(st) != "salary":
        st.apply(1, 0)
    assert kind(st) == "salary" and st.eclipses == 0


def _ranked(vp, cocoa, dark=False):
    st = blank(3, dark_eclipse=dark)
    st.vp, st.cocoa, st.over = list(vp), list(cocoa), True
    return st.result().ranks


def test_winner_most_vp_then_cocoa_then_lower_order():
    assert _ranked([10, 12, 11], [0, 0, 0]) == (3, 1, 2)
    assert _ranked([10, 10, 9], [1, 2, 0]) == (2, 1, 3)
    assert _ranked([10, 10, 10], [2, 2, 2]) == (1, 2, 3)


def test_dark_eclipse_reverses_the_order_tie_break():
    assert _ranked([10, 10, 10], [2, 2, 2], dark=True) == (3, 2, 1)


def test_last_player_token_follows_a_random_first_player():
    st = blank(3)
    st.first = 2  # seat 2 starts; seat 1 sits before it and holds the Last Player token
    _workers(st)
    for seat in (2, 0):
        start_turn(st, seat)
        while st.to_act() == (seat,):
            st.apply(seat, 0)
        assert st.light == 0
    assert st.to_act() == (1,)
    while st.to_act() == (1,):
        st.apply(1, 0)
    assert st.light == 1 and st.to_act() == (2,)


def test_eclipse_round_counts_from_the_first_player():
    st = blank(3)
    st.first = 1  # order: seat 1, seat 2, seat 0 (Last Player)
    _workers(st)
    st.cocoa = [9, 9, 9]
    st.light = st.dark - 1
    st.turns = 0
    start_turn(st, 0)  # the Last Player's turn reaches the dark disc: one more full round
    turns = []
    while st.eclipses == 0:
        seat = st.to_act()[0]
        if kind(st) == "turn":
            turns.append(seat)
        st.apply(seat, 0)
    assert turns == [0, 1, 2, 0]


def test_order_tie_break_uses_player_order_tokens():
    st = blank(3)
    st.first = 1
    st.vp, st.cocoa, st.over = [10, 10, 10], [2, 2, 2], True
    assert st.result().ranks == (3, 1, 2)  # tokens: seat 1 -> 1, seat 2 -> 2, seat 0 -> 3
    st.dark_variant = True
    assert st.result().ranks == (1, 3, 2)


def test_free_unlock_is_a_whole_turn_and_the_last_player_still_moves_the_light_disc():
    st = blank(2)
    _workers(st)
    st.ws[4] = 3  # seat 1 (Last Player) has a worker locked on the Forest sidebar
    st.space_occ[3] = 4
    start_turn(st, 1)
    choose(st, "unlock-free")
    assert st.ws[4] == -1 and st.light == 1 and st.to_act() == (0,)


def test_salary_ignores_the_worker_still_on_the_ascension_wheel():
    st = blank(2)
    _workers(st, power=4)
    st.wp[3] = 3  # seat 0's fourth worker waits on the wheel (board 0): no salary for it
    st.cocoa = [9, 9]
    st.stack = [("eclipse", 0)]
    run(st)
    assert st.decision(0).prompt == "Eclipse salary: 6 cocoa due"

"""Two readings of the Late Preclassic rulebook where a module meets a base rule (docs/teotihuacan.md): a Technology's after-action VP is a gain of its own for Huītzilōpōchtli,
and the orange temple's "1-2" step is a move (Technology 01, Teotibot's Metzli)."""

from __future__ import annotations

import pytest

from engine.teotihuacan import modules
from engine.teotihuacan.expansion_data import EXP, NOBLES_SPACE, ORANGE
from engine.teotihuacan.flow import push, run
from tests.engine.teotihuacan.util import arrive, blank, choose, give, kind, put, set_tech

PALACE, FOREST, STONE, GOLD, ALCHEMY, NOBLES, DECOR, BUILD = 1, 2, 3, 4, 5, 6, 7, 8
BOT = 1


def huitzilopochtli(keeps: bool):
    """A bare first-game table with the priests module, seat 0 keeping Huītzilōpōchtli or not."""
    st = blank(2, modules="priests")
    st.priest = [EXP.priests.index("huitzilopochtli") + 1 if keeps else 0, 0]
    st.vp_seen = [0, 0]
    st.stack = []
    modules.refresh(st)
    return st


# "Any time you gain 1 or more Victory Points, gain 1 additional Victory Point." (09 Huītzilōpōchtli)
# Technologies 03, 07, 09: "After performing the Main action of ... gain N Victory Points" -- a gain
# after the action's, so a gain of its own with its own +1.
def nobles_with_03(keeps: bool) -> int:
    st = huitzilopochtli(keeps)
    set_tech(st, 0, 3)
    give(st, 0, wood=2)
    arrive(st, 0, 0, NOBLES)
    choose(st, "main", 0, 0)
    return st.vp[0]


def test_technology_03_after_nobles_earns_its_own_additional_vp():
    assert nobles_with_03(False) == 3 + 3  # the Building's 3 VP, then Technology 03's 3 VP
    assert nobles_with_03(True) == (3 + 1) + (3 + 1)  # +4 for the Technology (it was +3)


def test_technology_07_after_forest_earns_its_own_additional_vp_and_no_more():
    st = huitzilopochtli(True)
    set_tech(st, 0, 7)
    arrive(st, 0, 0, FOREST, power=2)  # the Forest's own gain: wood, no VP
    choose(st, "main", 0, 0)
    assert (st.cocoa[0], st.vp[0]) == (1, 1 + 1)  # +2 (it was +1): one gain, one additional VP


def test_technology_09_after_decorations_earns_its_own_additional_vp():
    st = huitzilopochtli(True)
    set_tech(st, 0, 9)
    st.deco_offer = [6, 1, 2, 3]  # tile 6 on the first space: 3 VP, no temple
    give(st, 0, gold=3)
    arrive(st, 0, 0, DECOR)
    choose(st, "main", 0, 0)
    choose(st, 0, 0)
    assert st.vp[0] == (3 + 1) + (4 + 1)  # +5 for the Technology (it was +4), as on Architecture


# "1-2: When advancing onto this step, you may choose one of your unlocked workers anywhere on the
# board, and move it 1 or 2 spaces backwards (counter-clockwise)." -- a move: onto or past the Palace
# it earns Technology 01's cocoa, and it is a move for Teotibot's Metzli.
def move_back(st, seat: int, w: int, distance: int) -> None:
    st.temple = [0] * (st.n * st.nt)
    st.space_occ = [-1] * (NOBLES_SPACE + 1)
    st.ability = [0] * st.n
    st.stack = []
    st.temple[seat * st.nt + ORANGE] = 1
    push(st, ("adv", seat, ORANGE))
    run(st)
    assert kind(st) == "move-back"
    choose(st, "w", w, distance)


@pytest.mark.parametrize(
    "start,distance,dest,cocoa",
    [
        (STONE, 1, PALACE, 1),  # place 2 -> 1: onto the Palace
        (STONE, 2, GOLD, 1),  # place 2 -> 8: past the Palace
        (ALCHEMY, 1, STONE, 0),  # place 3 -> 2: short of it
        (PALACE, 1, GOLD, 0),  # leaving the Palace is neither
    ],
)
def test_moving_back_onto_or_past_the_palace_earns_technology_01s_cocoa(start, distance, dest, cocoa):
    # Technology 01: "Whenever you move a worker onto or past the Palace (1), gain 1 cocoa."
    st = blank(2, modules="height")
    set_tech(st, 0, 1)
    put(st, 0, start)
    move_back(st, 0, 0, distance)
    assert st.wb[0] == dest and st.cocoa[0] == cocoa
    without = blank(2, modules="height")
    put(without, 0, start)
    move_back(without, 0, 0, distance)
    assert without.wb[0] == dest and without.cocoa[0] == 0


@pytest.mark.parametrize("locked,cocoa", [(False, 3), (True, 0)])
def test_metzli_gains_three_cocoa_when_a_worker_moves_back_onto_its_workers_board(locked, cocoa):
    # S01 Metzli: "Teotibot gains 3 cocoa each time you move one of your workers to the same Action
    # Board as one of Teotibot's unlocked workers."
    st = blank(1, automaton="teotibot", modules="priests,height")
    st.priest = [0, EXP.bot_priests.index("metzli") + 1]
    put(st, 4, STONE, space=0 if locked else -1)
    put(st, 0, ALCHEMY)
    modules.refresh(st)
    move_back(st, 0, 0, 1)
    assert st.wb[0] == STONE and st.cocoa[BOT] == cocoa

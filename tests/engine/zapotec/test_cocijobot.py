"""Cocijobot, branch by branch: turn order, Houses and Palace, extra flip, Sacrifice, Trade,
Pyramid, end scoring and the two difficulty adjustments."""

from __future__ import annotations

import pytest

from engine.zapotec import cocijobot, rules, scoring
from engine.zapotec.data import PROP
from tests.engine.zapotec.util import DATA, begin_turn, card, choose, new, space

CJ = 1


def cj_card(kind: str, terrain: str, region: str) -> int:
    return next(
        c.index
        for c in DATA.cocijobot_deck
        if (c.type, c.terrain, c.region) == (PROP[kind], PROP[terrain], PROP[region])
    )


def with_bonus(state, prop: str) -> None:
    state.bonus.append(card("wood", prop))


def occupy(state, seat, sid, palace=False):
    rules.place_house(state, seat, space(sid), palace)


def test_turn_order_equal_number_means_cocijobot_first():
    state = new(1, seed=2)
    c = DATA.cocijobot_deck[state.cj_deck[-1]]
    state.hands[0].append(c.number)
    begin_turn(state, c.number)
    assert state.order == [1, 0]
    # Cocijobot already played its turn; the human is at income.
    assert state.current == 0 and state.step == "income" and state.houses_left[CJ] < 9


def test_turn_order_lower_human_card_goes_first():
    state = new(1, seed=2)
    c = DATA.cocijobot_deck[state.cj_deck[-1]]
    begin_turn(state, c.number - 1 if c.number > 1 else 1)
    if c.number > 1:
        assert state.order == [0, 1] and state.houses_left[CJ] == 9


def test_house_example_three_houses():
    # Rule book: card Temple / Mitla / Forest, bonus Plains: temple-mitla-forest and
    # temple-mitla-plains; with its Pyramid on Etla also temple-etla-forest.
    state = new(1)
    with_bonus(state, "plains")
    c = DATA.cocijobot_deck[cj_card("temple", "forest", "mitla")]
    assert [DATA.spaces[s].id for s in cocijobot.house_targets(state, c)] == [
        "mitla-forest-temple",
        "mitla-plains-temple",
    ]
    state.pyr_tile = [PROP["etla"]]
    state.pyr_pieces = [[CJ * 3]]
    state.cj_pyramid = 0
    targets = [DATA.spaces[s].id for s in cocijobot.house_targets(state, c)]
    assert targets == ["mitla-forest-temple", "mitla-plains-temple", "etla-forest-temple"]
    assert cocijobot.build_houses(state, c) == 3
    assert state.cj_tiles == [PROP["temple"]] * 3


def test_skips_taken_spaces_and_repeated_icon():
    state = new(1)
    with_bonus(state, "temple")  # already on the card: the second House targets the same space
    c = DATA.cocijobot_deck[cj_card("temple", "forest", "mitla")]
    assert cocijobot.build_houses(state, c) == 1
    state2 = new(1)
    with_bonus(state2, "plains")
    occupy(state2, 0, "mitla-forest-temple")
    assert cocijobot.build_houses(state2, c) == 1
    assert state2.space_owner[space("mitla-plains-temple")] == CJ


def test_palace_where_pyramid_tile_and_bonus_both_match():
    state = new(1)
    with_bonus(state, "plains")
    state.pyr_tile, state.pyr_pieces, state.cj_pyramid = [PROP["temple"]], [[CJ * 3]], 0
    c = DATA.cocijobot_deck[cj_card("temple", "forest", "mitla")]
    cocijobot.build_houses(state, c)
    assert state.palace[CJ] == space("mitla-plains-temple")  # temple (pyramid) and plains (bonus)


def test_no_palace_before_the_last_round_without_a_double_match():
    state = new(1)
    with_bonus(state, "plains")
    c = DATA.cocijobot_deck[cj_card("temple", "forest", "mitla")]
    cocijobot.build_houses(state, c)
    assert state.palace[CJ] == -1


def test_palace_in_the_last_round_prefers_the_pyramid_then_the_bonus():
    state = new(1)
    state.round = 5
    with_bonus(state, "plains")
    state.pyr_tile, state.pyr_pieces, state.cj_pyramid = [PROP["etla"]], [[CJ * 3]], 0
    c = DATA.cocijobot_deck[cj_card("temple", "forest", "mitla")]
    cocijobot.build_houses(state, c)
    assert state.palace[CJ] == space("etla-forest-temple")
    state = new(1)
    state.round = 5
    with_bonus(state, "plains")
    cocijobot.build_houses(state, c)
    assert state.palace[CJ] == space("mitla-plains-temple")


def test_palace_when_its_last_houses_go_out():
    state = new(1)
    state.houses_left[CJ] = 2
    with_bonus(state, "plains")
    c = DATA.cocijobot_deck[cj_card("temple", "forest", "mitla")]
    cocijobot.build_houses(state, c)
    assert state.palace[CJ] == space("mitla-plains-temple") and state.houses_left[CJ] == 0


def test_no_houses_left_builds_nothing():
    state = new(1)
    state.houses_left[CJ] = 0
    c = DATA.cocijobot_deck[cj_card("temple", "forest", "mitla")]
    assert cocijobot.build_houses(state, c) == 0


def test_extra_flip_when_nothing_built_runs_both_actions():
    state = new(1)
    with_bonus(state, "temple")
    occupy(state, 0, "mitla-forest-temple")
    state.cj_card = cj_card("temple", "forest", "mitla")  # Pyramid action
    extra = cj_card("village", "plains", "etla")  # Trade action
    state.cj_deck.remove(extra)
    state.cj_deck.append(extra)
    cocijobot.play_turn(state)
    assert state.built_pieces[CJ] == 1  # Pyramid from the original card
    assert len(state.tiles_owned[CJ]) == 1  # Trade from the extra card
    assert state.cj_flipped[-1] == extra and state.cj_card != extra


def test_sacrifice_one_step_per_cornfield_with_bonuses():
    state = new(1)
    state.cj_tiles = [PROP["cornfield"]] * 3 + [PROP["temple"]]
    cocijobot.sacrifice(state)
    assert state.sac[CJ] == 3
    assert state.score[CJ] == DATA.sacrifice_vp[1]  # free resources do nothing for it
    assert len(state.tiles_owned[CJ]) == 1 and DATA.trade_tiles[state.tiles_owned[CJ][0]].level == 2
    cocijobot.sacrifice(state)  # steps 4-6: free level-3 tile
    assert DATA.trade_tiles[state.tiles_owned[CJ][-1]].level == 3
    cocijobot.sacrifice(state)  # steps 7-9: Pyramid level on 8, Ritual disc on 9
    assert state.built_pieces[CJ] == 1
    assert CJ in state.ritual_discs[0]
    cocijobot.sacrifice(state)  # 10-12: Ritual disc on 11
    assert CJ in state.ritual_discs[1] and state.sac[CJ] == DATA.sacrifice_top


def test_sacrifice_without_cornfields_does_not_move():
    state = new(1)
    cocijobot.sacrifice(state)
    assert state.sac[CJ] == 0


@pytest.mark.parametrize(
    "villages, step, row",
    [(0, 0, 1), (2, 2, 1), (3, 0, 2), (0, 3, 2), (4, 0, 3), (0, 6, 3), (3, 6, 3)],
)
def test_trade_row_choice(villages, step, row):
    state = new(1)
    state.cj_tiles = [PROP["village"]] * villages
    state.sac[CJ] = step
    assert cocijobot.trade_row(state) == row


def test_trade_takes_leftmost_and_falls_back_when_row_empty():
    state = new(1)
    state.display[0][0] = -1
    leftmost = state.display[0][1]
    cocijobot.trade(state)
    assert state.tiles_owned[CJ] == [leftmost]
    state.display[0] = [-1, -1, -1]
    second = state.display[1][0]
    cocijobot.trade(state)
    assert state.tiles_owned[CJ][-1] == second
    assert state.display == [[-1, -1, -1], [-1, state.display[1][1], state.display[1][2]], state.display[2]]


def test_pyramid_start_tile_choice_then_add_then_ritual():
    state = new(1)
    state.scoring_avail = [PROP["forest"], PROP["etla"]]
    occupy(state, CJ, "etla-plains-temple")
    cocijobot.pyramid_level(state)
    assert state.pyr_tile == [PROP["etla"]] and state.cj_pyramid == 0
    cocijobot.pyramid_level(state)
    cocijobot.pyramid_level(state)
    assert [p % 3 for p in state.pyr_pieces[0]] == [0, 1, 2] and rules.pyramid_complete(state, 0)
    cocijobot.pyramid_level(state)
    assert state.ritual_discs[0] == [CJ]


def test_pyramid_tile_ties_broken_by_fewest_human_houses_then_topmost():
    state = new(1)
    state.scoring_avail = [PROP["forest"], PROP["etla"]]
    occupy(state, 0, "mitla-forest-village")
    cocijobot.pyramid_level(state)
    assert state.pyr_tile == [PROP["etla"]]
    state = new(1)
    state.scoring_avail = [PROP["forest"], PROP["etla"]]
    cocijobot.pyramid_level(state)
    assert state.pyr_tile == [PROP["forest"]]


def test_pyramid_contributes_to_a_human_pyramid_when_no_tile_is_left():
    state = new(1)
    a, b = state.scoring_avail
    rules.start_pyramid(state, 0, a)
    rules.start_pyramid(state, 0, b)
    occupy(state, CJ, next(s.id for s in DATA.spaces if rules.matches(s.props, b) and s.min_players == 2))
    cocijobot.pyramid_level(state)
    # Your second Pyramid was started with a medium piece, so Cocijobot adds a small one.
    assert state.cj_pyramid == 1 and state.pyr_pieces[1][-1] == CJ * 3 + 2


def test_solo_end_scoring_for_cocijobot():
    state = new(1)
    state.tiles_owned[CJ] = [DATA.trade_by_id[t].index for t in ("Z01", "Z13", "Z31")]
    state.ritual_discs = [[CJ], [CJ, 0], []]
    state.pyr_tile = [PROP["etla"], PROP["forest"]]
    state.pyr_pieces = [[CJ * 3 + 0], [CJ * 3 + 1, CJ * 3 + 2]]  # incomplete, complete
    occupy(state, CJ, "etla-forest-temple")
    scoring.end_game(state)
    cj = state.final[CJ]
    assert cj["sacrifice_track"] == 3  # never moved
    assert cj["trade_tiles"] == 3 + 6 + 9
    assert cj["rituals"] == 10 + 6
    assert cj["pyramids"] == 5 + (1 + 5) * 2


def test_difficulty_adjustments():
    c = DATA.cocijobot_deck[cj_card("temple", "forest", "mitla")]
    for level, human, bot in (("easier", 2, 0), ("harder", 0, 2), ("normal", 0, 0)):
        # Blocked by your House on the first space; the second (plains) space is built.
        state = new(1, difficulty=level)
        with_bonus(state, "plains")
        occupy(state, 0, "mitla-forest-temple")
        assert cocijobot.build_houses(state, c) == 1
        assert (state.score[0], state.score[CJ]) == (human, bot), level
    for level, human, bot in (("easier", 0, 0), ("harder", 0, 2)):
        # The bonus icon is on the card: the second House fails on its own new House.
        state = new(1, difficulty=level)
        with_bonus(state, "temple")
        assert cocijobot.build_houses(state, c) == 1
        assert (state.score[0], state.score[CJ]) == (human, bot), level


def test_easier_pays_only_for_a_failure_because_of_your_house():
    """The rule "every time Cocijobot fails to build ... because your House is already there,
    you gain 2 VP": not when it has no House left, and a space tried twice pays once."""
    c = DATA.cocijobot_deck[cj_card("temple", "forest", "mitla")]
    state = new(1, difficulty="easier")
    with_bonus(state, "plains")
    occupy(state, 0, "mitla-forest-temple")
    state.houses_left[CJ] = 0  # it fails for want of a House, whoever holds the space
    assert cocijobot.build_houses(state, c) == 0
    assert state.score[0] == 0  # was 2
    state = new(1, difficulty="easier")
    with_bonus(state, "temple")  # on the card already: both attempts aim at the same space
    occupy(state, 0, "mitla-forest-temple")
    assert cocijobot.build_houses(state, c) == 0
    assert state.score[0] == 2  # was 4
    state = new(1, difficulty="harder")  # harder still counts every failed attempt
    with_bonus(state, "temple")
    occupy(state, 0, "mitla-forest-temple")
    assert cocijobot.build_houses(state, c) == 0
    assert state.score[CJ] == 4


def test_solo_draw_step_other_card_becomes_bonus():
    state = new(1)
    state.cj_deck.append(next(c.index for c in DATA.cocijobot_deck if c.number == 19))
    begin_turn(state, 1)
    choose(state, action="income", line="row")
    choose(state, action="done")
    choose(state, action="done")
    offer = list(state.offer)
    choose(state, action="draw", card=offer[0])
    assert state.bonus[-1] == offer[1]
    # Cocijobot then played; the round ended and the next Offer came from the deck.
    assert state.round == 2 and len(state.offer) == 2 and len(state.deck) == 4


def test_cocijobot_after_you_still_scores_this_rounds_bonus_card():
    state = new(1)
    state.cj_deck.append(next(c.index for c in DATA.cocijobot_deck if c.number == 19))
    bonus = state.bonus[-1]
    prop = DATA.action_cards[bonus].prop
    begin_turn(state, 1)
    choose(state, action="income", line="row")
    choose(state, action="done")
    choose(state, action="done")
    # Give Cocijobot a House matching this round's bonus card before it plays.
    target = next(
        s.index
        for s in DATA.spaces
        if rules.matches(s.props, prop) and state.space_tile[s.index] >= 0 and s.min_players == 2
    )
    rules.place_house(state, CJ, target, palace=False)
    before = state.score[CJ]
    choose(state, action="draw")
    scored = [e for e in state.log() if e.get("kind") == "turn-score" and e.get("seat") == CJ]
    assert scored[-1]["vp"] >= 2 and state.score[CJ] > before
    assert state.bonus[-2] == bonus


def test_sacrifice_free_tile_skipped_when_its_row_is_empty():
    state = new(1)
    state.display[1] = [-1, -1, -1]
    state.cj_tiles = [PROP["cornfield"]] * 3
    cocijobot.sacrifice(state)
    assert state.sac[CJ] == 3 and state.tiles_owned[CJ] == []


def test_pyramid_with_everything_complete_places_a_ritual_disc():
    state = new(1)
    a, b = state.scoring_avail
    for prop in (a, b):
        pyramid = rules.start_pyramid(state, 0, prop)
        state.pyr_pieces[pyramid].append(0 * 3 + 2)  # finish it
    cocijobot.pyramid_level(state)
    assert state.cj_pyramid == -1 and state.ritual_discs[0] == [CJ]

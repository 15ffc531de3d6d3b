"""End-of-game scoring: Sacrifice track, every Ritual card, Pyramids, winner and tie-breaks."""

from __future__ import annotations

import pytest

from engine.zapotec import scoring
from engine.zapotec.data import PROP
from tests.engine.zapotec.util import DATA, new, space


def put_houses(state, seat, ids, palace=None):
    for sid in ids:
        i = space(sid)
        state.space_tile[i] = -1
        state.space_owner[i] = seat
        state.houses[seat].append(i)
    if palace:
        state.palace[seat] = space(palace)


def test_pyramid_example():
    # Orange 0, Purple 1, Blue 2. Forest: one piece each (incomplete). Temple: Orange 2 + Blue 1
    # (complete). Etla: Purple 2 pieces (medium + small, complete).
    state = new(3)
    state.pyr_tile = [PROP["forest"], PROP["temple"], PROP["etla"]]
    state.pyr_pieces = [[0 * 3 + 0, 1 * 3 + 1], [0 * 3 + 0, 2 * 3 + 1, 0 * 3 + 2], [1 * 3 + 1, 1 * 3 + 2]]
    put_houses(state, 0, ["etla-forest-cornfield", "mitla-forest-village", "ocotlan-plains-temple"])
    put_houses(state, 1, ["etla-forest-village", "etla-plains-cornfield", "mitla-hills-temple"])
    put_houses(state, 2, ["mitla-plains-temple", "etla-hills-temple", "ocotlan-forest-cornfield"])
    scoring.end_game(state)
    pyramids = [seat["pyramids"] for seat in state.final]
    # Orange: 2 forest houses x1 + (1 temple x2 + 10) = 14.
    assert pyramids[0] == 2 + 2 + 10
    # Purple: 1 forest house x1 + (2 Etla houses x2 + 10) = 15.
    assert pyramids[1] == 1 + 4 + 10
    # Blue: 2 temples x1 + 5.
    assert pyramids[2] == 2 + 5


def test_pyramid_counts_palace_twice():
    state = new(2)
    state.pyr_tile = [PROP["mitla"]]
    state.pyr_pieces = [[0 * 3 + 2]]  # a complete small Pyramid
    put_houses(state, 0, ["mitla-forest-village", "mitla-hills-cornfield"], palace="mitla-hills-cornfield")
    scoring.end_game(state)
    assert state.final[0]["pyramids"] == 3 + 5


def test_sacrifice_track_nine_six_three_only_for_movers_and_stack_tiebreak():
    state = new(4)
    state.sac = [5, 5, 2, 0]
    state.sac_order = [7, 3, 9, 0]  # seat 1 arrived on step 5 first: lower in the stack
    assert scoring.sacrifice_awards(state) == [6, 9, 3, 0]
    state.sac = [0, 4, 0, 0]
    assert scoring.sacrifice_awards(state) == [0, 9, 0, 0]  # one mover takes the 9


def test_winner_tie_break_on_sacrifice_then_shared():
    state = new(3)
    state.score = [20, 20, 20]
    state.sac = [3, 3, 0]
    state.sac_order = [5, 2, 0]
    state.final = []
    state.step = "over"
    assert state.result().ranks == (2, 1, 3)
    state.sac = [0, 0, 0]
    state.sac_order = [0, 0, 0]
    assert state.result().ranks == (1, 1, 1)  # nobody moved: shared victory


def ritual(card_id):
    return next(r for r in DATA.rituals if r.id == card_id)


def test_ritual_palace_counts_as_two_houses_in_sets():
    # Rule book note: Palace on the Plains, two Houses in the Forest and two on the Hills give
    # two sets of three buildings on different terrain (here all in Etla: same region).
    state = new(2)
    put_houses(
        state,
        0,
        [
            "etla-plains-temple",
            "etla-forest-cornfield",
            "etla-forest-village",
            "etla-hills-temple",
            "etla-hills-village",
        ],
        palace="etla-plains-temple",
    )
    assert scoring.ritual_points(state, 0, ritual("R04")) == 12  # same region, different terrain


@pytest.mark.parametrize(
    "card_id, houses, expected",
    [
        ("R01", ["etla-plains-temple", "ocotlan-hills-temple", "mitla-forest-temple"], 6),  # type / region
        ("R01", ["etla-plains-temple", "etla-hills-temple", "mitla-forest-temple"], 0),
        (
            "R02",
            ["etla-plains-temple", "ocotlan-plains-village", "mitla-plains-cornfield"],
            6,
        ),  # terrain / region
        ("R03", ["etla-plains-village", "etla-hills-village", "etla-forest-village"], 6),  # type / terrain
        (
            "R04",
            ["mitla-plains-village", "mitla-hills-temple", "mitla-forest-village"],
            6,
        ),  # region / terrain
        (
            "R05",
            ["ocotlan-plains-village", "ocotlan-plains-temple", "ocotlan-forest-cornfield"],
            6,
        ),  # region / type
        ("R06", ["etla-hills-village", "mitla-hills-temple", "ocotlan-hills-cornfield"], 6),  # terrain / type
        ("R06", ["etla-hills-village", "mitla-hills-temple", "ocotlan-forest-cornfield"], 0),
    ],
)
def test_ritual_building_sets(card_id, houses, expected):
    state = new(2)
    put_houses(state, 0, houses)
    assert scoring.ritual_points(state, 0, ritual(card_id)) == expected


def test_ritual_building_sets_capped_at_18():
    state = new(4)
    ids = [s.id for s in DATA.spaces if s.type == PROP["temple"]]  # 5 per region: 5 sets
    put_houses(state, 0, ids)
    assert scoring.ritual_points(state, 0, ritual("R01")) == 18


def test_ritual_pyramid_levels_resources_steps_trade_tiles():
    state = new(2)
    state.built_pieces[0] = 3
    assert scoring.ritual_points(state, 0, ritual("R07")) == 9
    state.built_pieces[0] = 6
    assert scoring.ritual_points(state, 0, ritual("R07")) == 12
    state.res[0] = [1, 2, 0, 1, 0, 1]
    assert scoring.ritual_points(state, 0, ritual("R08")) == 3 + 4
    state.res[0] = [5, 5, 5, 5, 0, 0]
    assert scoring.ritual_points(state, 0, ritual("R08")) == 12
    state.sac[0] = 7
    assert scoring.ritual_points(state, 0, ritual("R09")) == 7
    state.tiles_owned[0] = [DATA.trade_by_id[t].index for t in ("Z01", "Z13", "Z31")]
    assert scoring.ritual_points(state, 0, ritual("R10")) == 6
    state.tiles_owned[0] = [DATA.trade_by_id[t].index for t in ("Z31", "Z32", "Z33", "Z34", "Z35")]
    assert scoring.ritual_points(state, 0, ritual("R10")) == 12


def test_end_game_adds_rituals_for_disc_holders_only():
    state = new(2)
    state.ritual_cards = [ritual("R09").index, ritual("R07").index, ritual("R08").index]
    state.ritual_discs = [[0, 1], [1], []]
    state.sac = [4, 2]
    state.sac_order = [1, 2]
    state.built_pieces = [0, 2]
    state.res = [[0] * 6, [0] * 6]
    scoring.end_game(state)
    assert state.final[0]["rituals"] == 4 and state.final[1]["rituals"] == 2 + 6
    assert state.final[0]["sacrifice_track"] == 9 and state.final[1]["sacrifice_track"] == 6
    assert state.score == [13, 14]

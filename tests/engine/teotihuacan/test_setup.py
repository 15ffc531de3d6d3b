"""Setup (normal, first game, draft), options, component data checks."""

from __future__ import annotations

from random import Random

import msgpack
import pytest

from engine.api import BadOptions
from engine.teotihuacan import GAME
from engine.teotihuacan.data import DATA, MIXES


# ---- component data ------------------------------------------------------------------------------------
def test_component_tables_are_complete():
    assert len(DATA.discoveries) == 54 and len(DATA.pyramid_tiles) == 32 and len(DATA.deco_tiles) == 15
    assert len(DATA.starting_tiles) == 18 and len(DATA.tech_gold) == 9 and len(DATA.bonus_tiles) == 7
    assert sorted(t for g in DATA.royal_groups for t in g) == list(range(1, 10))
    assert len(DATA.positions) == 30 and len(DATA.deco_spaces) == 16
    assert sum(1 for t in DATA.discoveries.values() if t.mask) == 17
    assert all(len(steps) == 12 for steps in DATA.temple_steps)
    assert [c[2] for c in DATA.temple_discovery] and sum(c[2][4] for c in DATA.temple_discovery) == 16
    for board, grid in DATA.grids.items():
        assert len(grid) == 3 and all(len(row) == 5 for row in grid), board
    assert sum(DATA.base_grid.count(c) for c in "brg") == 39
    assert DATA.raw["pyramid_track"]["max_step_assumed"] is True  # the assumed mark is kept


def test_pyramid_geometry_supports_and_squares():
    top = DATA.positions[DATA.position_index[(4, 0, 0)]]
    assert top.squares == (27, 28, 36, 35) and len(top.supports) == 4
    for pos in DATA.positions:
        assert all(0 <= q < 64 for q in pos.squares)


def test_resource_mixes_cover_every_split():
    assert len(MIXES[2]) == 6 and all(sum(m) == 3 for m in MIXES[3])


# ---- options ------------------------------------------------------------------------------------------
def test_options_are_validated():
    with pytest.raises(BadOptions, match="Teotibot"):
        GAME.setup(2, 0, {"automaton": "teotibot"})
    with pytest.raises(BadOptions, match="exclude"):
        GAME.setup(2, 0, {"first_game": True, "starting_tile_draft": True})
    with pytest.raises(BadOptions, match="2 to 4"):
        GAME.setup(5, 0, {})
    with pytest.raises(BadOptions, match="unknown option"):
        GAME.setup(2, 0, {"no_such_option": "x"})
    with pytest.raises(BadOptions, match="unknown module .x.; valid: priests, height, seasons"):
        GAME.setup(2, 0, {"modules": "x"})
    assert set(GAME.option_schema()) >= {"first_game", "starting_tile_draft", "dark_eclipse"}


# ---- normal setup ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4])
def test_normal_setup(players):
    st = GAME.setup(players, 7, {})
    assert (
        st.place_board[1] == 1 and st.place_board[5] == 8 and sorted(st.place_board[1:]) == list(range(1, 9))
    )
    assert all(st.royal[i] in DATA.royal_groups[i] for i in range(3))
    assert st.tech == sorted(st.tech) and len(set(st.tech)) == 6 and len(set(st.bonus)) == 3
    assert (st.light, st.dark) == (0, {2: 10, 3: 11, 4: 12}[players])
    assert len(st.deco_offer) == 4 and len(st.pyr_offer) == 3
    assert sum(1 for p in st.pyr_pos if p >= 0) == {2: 14, 3: 10, 4: 8}[players]
    assert [len(s) for s in st.d_avenue] == [3, 2, 1] and all(st.d_offer)
    assert sum(len(s) for s in st.d_temple) == {2: 8, 3: 12, 4: 16}[players]
    by_order = [st.cocoa[(st.first + k) % players] for k in range(players)]
    assert by_order == [1] + [2] * (players - 2) + [3]
    assert st.to_act() == tuple(range(players))  # the Starting tiles are picked simultaneously
    assert all(len(d) == 4 for d in st.start_dealt)
    assert sum(1 for w in range(players * 4, 16) if st.wb[w]) == 3 * (4 - players)  # neutral workers
    for s in range(players):
        assert st.wb[s * 4 + 3] == 0 and st.wp[s * 4 + 3] == 3  # the fourth worker on the wheel


def test_starting_tiles_kept_benefits_and_worker_placement():
    st = GAME.setup(2, 3, {})
    picks = {}
    for seat in (1, 0):  # any order: neither sees the other's pick
        picks[seat] = st.start_dealt[seat][:2]
        st.apply(seat, 0)
    rng = Random(1)
    while st.stack[-1][0] != "turn":
        seat = st.to_act()[0]
        st.apply(seat, rng.randrange(len(st.decision(seat).options)))
    for seat in (0, 1):
        assert st.kept[seat] == picks[seat]
        boards = {b for t in picks[seat] for b in DATA.starting_tiles[t][0]}
        placed = [st.wb[seat * 4 + k] for k in range(3)]
        assert len(set(placed)) == 3 and set(placed) <= boards


def test_draft_snake_order():
    st = GAME.setup(3, 5, {"starting_tile_draft": True})
    order = []
    while st.stack[-1][0] == "draft":
        seat = st.to_act()[0]
        order.append(seat)
        st.apply(seat, 0)
    f = st.first
    forward = [f, (f + 1) % 3, (f + 2) % 3]
    assert order == forward + forward[::-1]  # from the first player, and back
    assert all(len(k) == 2 for k in st.kept)


def _play_setup(st, rng):
    while st.stack and st.stack[-1][0] != "turn":
        seat = st.to_act()[0]
        st.apply(seat, rng.randrange(len(st.decision(seat).options)))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_first_player_is_random_from_the_seed(players):
    firsts = {GAME.setup(players, seed, {}).first for seed in range(30)}
    assert firsts == set(range(players))  # every seat can be the first player
    for seed in range(6):
        st = GAME.setup(players, seed, {"starting_tile_draft": seed % 2 == 1})
        assert GAME.setup(players, seed, {}).first == GAME.setup(players, seed, {}).first
        f = st.first
        assert st.last_seat() == (f - 1) % players and st.order(f) == 0
        assert st.cocoa[f] == 1 and st.cocoa[st.last_seat()] == 3
        assert all(st.cocoa[s] == 2 for s in range(players) if s not in (f, st.last_seat()))
        _play_setup(st, Random(seed))
        assert st.to_act() == (f,) and st.stack[-1] == ("turn", f)  # the first player starts


def test_first_game_resources_follow_the_player_order_tokens():
    st = next(s for s in (GAME.setup(3, seed, {"first_game": True}) for seed in range(20)) if s.first == 2)
    # seat 2 holds token 1 (7 cocoa: 1 + 5 + green step), seat 0 token 2, seat 1 is the Last Player
    assert st.cocoa == [2 + 5, 3 + 4, 1 + 5 + 1]
    assert (st.wb[8], st.wp[8]) == (6, 2) and st.avenue == [0, 1, 0]
    assert st.to_act() == (2,)


def test_first_game_setup_four_players():
    st = next(s for s in (GAME.setup(4, seed, {"first_game": True}) for seed in range(40)) if s.first == 0)
    assert st.place_board[1:] == [1, 3, 5, 2, 8, 7, 6, 4]
    assert st.royal == [1, 6, 4] and st.tech == [1, 3, 5, 9, 15, 17] and st.bonus == [3, 4, 7]
    assert st.cocoa == [7, 7, 6, 5]
    assert st.res == [1, 2, 4, 4, 2, 0, 3, 4, 1, 2, 0, 5]
    assert st.vp == [0, 1, 0, 0] and st.avenue == [0, 0, 1, 0]
    assert st.temple == [0, 0, 1, 1, 1, 0, 1, 0, 0, 0, 0, 2]
    assert st.tech_marks[2] == 1 << 3
    assert [(st.wb[k], st.wp[k]) for k in range(3)] == [(6, 2), (2, 1), (8, 1)]
    assert st.to_act() == (0,) and st.stack[-1][0] == "turn"


def test_observation_is_plain_msgpack_data():
    st = GAME.setup(3, 2, {})
    obs = st.observation(1)
    assert msgpack.unpackb(msgpack.packb(obs)) == obs
    assert obs["own_start_tiles"] == st.start_dealt[1]
    others = set(st.start_dealt[0]) | set(st.start_dealt[2])
    assert not others & set(obs["own_start_tiles"])
    assert "start_dealt" not in obs["public"] and "d_deck" not in obs["public"]


def test_starting_tile_discovery_claimed_or_shuffled_back():
    for seed in range(200):
        st = GAME.setup(2, seed, {})
        mine = [t for t in st.start_dealt[0] if t in (16, 17)]
        if mine:
            break
    tile = mine[0]
    disc = st.start_disc[tile]
    assert disc and disc not in st.d_deck
    others = {t: st.start_disc[t] for t in st.start_dealt[1] if st.start_disc[t]}
    pair = next(
        i
        for i, o in enumerate(st.decision(0).options)
        if o["act"][0] == st.start_dealt[0].index(tile) or o["act"][1] == st.start_dealt[0].index(tile)
    )
    st.apply(0, pair)
    st.apply(1, 5)  # player 2 keeps its last two tiles
    kept1 = st.kept[1]
    rng = Random(2)
    while st.stack[-1][0] != "turn":
        seat = st.to_act()[0]
        options = st.decision(seat).options
        claim = [i for i, o in enumerate(options) if o["act"] == ["claim"]]
        st.apply(seat, claim[0] if claim else rng.randrange(len(options)))
    assert st.d_owner[disc] == 0 or disc in st.d_deck
    for t, d in others.items():
        assert d in st.d_deck or (t in kept1 and st.d_owner[d] == 1)  # unclaimed: back into the stack


def test_registered_as_a_plugin_game():
    from arena.registry.plugins import discover
    from engine.api import Game

    registry = discover()
    game = registry.game("teotihuacan")
    assert game is GAME and isinstance(game, Game) and GAME.automata == ("teotibot",)


def test_illegal_choices_are_refused():
    from engine.api import IllegalAction

    st = GAME.setup(2, 0, {"first_game": True})
    f = st.first
    with pytest.raises(IllegalAction):
        st.apply(1 - f, 0)  # not the other player's turn
    with pytest.raises(IllegalAction):
        st.apply(f, len(st.decision(f).options))
    with pytest.raises(IllegalAction):
        st.apply(f, True)


def test_two_starting_tiles_on_the_same_temple_give_two_steps():
    st = GAME.setup(2, 3, {})
    st.start_dealt = [[3, 8, 1, 2], [9, 15, 5, 6]]  # 3 + 8: blue twice; 9 + 15: blue, red twice, green
    st.start_disc = [0] * 19
    st.apply(0, 0)  # keep the first two
    st.apply(1, 0)
    rng = Random(1)
    while st.stack[-1][0] != "turn":
        seat = st.to_act()[0]
        st.apply(seat, rng.randrange(len(st.decision(seat).options)))
    assert st.temple[0:3] == [2, 0, 0]
    assert st.temple[3:6] == [2, 2, 1]

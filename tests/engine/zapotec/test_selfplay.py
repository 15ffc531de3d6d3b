"""Seeded random self-play at 1-4 players: games end, invariants hold, replays are exact."""

from __future__ import annotations

from random import Random

import msgpack
import pytest

from engine.api import State
from engine.playout import play_random, random_choice
from engine.zapotec import GAME
from tests.engine.zapotec.util import DATA, eager_choice

# 1000 games in all, and the one later game that buys Z34 while its Sacrifice can be made (no
# other of the first 1000 a count does): every line and branch that 4000 reached (docs/testing.md)
GAMES_PER_COUNT = 250
RARE_SEEDS = {4: [914]}


def check_invariants(state) -> None:
    """No negative resources, <= 9 Houses and 6 Pyramid pieces a seat, no space built twice,
    every card and tile accounted for."""
    built = []
    for seat in range(state.seats):
        assert min(state.res[seat]) >= 0
        assert len(state.houses[seat]) + state.houses_left[seat] == 9
        assert state.built_pieces[seat] + sum(state.pieces[seat]) == 6 and min(state.pieces[seat]) >= 0
        built.extend(state.houses[seat])
        for index in state.houses[seat]:
            assert state.space_owner[index] == seat and state.space_tile[index] == -1
        assert len(state.tiles_owned[seat]) == len(set(state.tiles_owned[seat]))
        # normal Rituals stop at the limit; a Z36 disc may be placed beyond it, and counts
        z36 = DATA.trade_by_id["Z36"].index in state.tiles_owned[seat]
        assert state.rituals_counted[seat] <= min(state.built_pieces[seat], 3) + z36
        assert state.rituals_counted[seat] <= sum(seat in discs for discs in state.ritual_discs)
    assert len(built) == len(set(built))
    assert sum(1 for o in state.space_owner if o >= 0) == len(built)
    cards = state.bonus + state.offer + state.deck + state.removed + state.discard
    cards += [c for hand in state.hands for c in hand]
    cards += [state.picks[s] for s in range(state.players) if state.picks[s] >= 0]
    assert sorted(cards) == list(range(1, 28))
    tiles = [t for row in state.display for t in row if t >= 0]
    tiles += [t for stack in state.stacks for t in stack] + [t for box in state.box for t in box]
    tiles += [t for owned in state.tiles_owned for t in owned]
    assert sorted(tiles) == list(range(36))
    for pieces in state.pyr_pieces:
        sizes = [p % 3 for p in pieces]
        assert sizes == list(range(sizes[0], sizes[0] + len(sizes)))


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_random_games_end_and_keep_invariants(players):
    for seed in [*range(GAMES_PER_COUNT), *RARE_SEEDS.get(players, [])]:
        state = GAME.setup(players, seed, {})
        rng = Random(seed)
        steps = 0
        while state.to_act():
            seat = state.to_act()[0]
            assert seat < players  # Cocijobot never acts through to_act()
            state.apply(seat, random_choice(state, seat, rng))
            steps += 1
            if seed < 20:
                check_invariants(state)
        check_invariants(state)
        assert state.terminal() and state.round == 5 and steps < 2000
        result = state.result()
        assert len(result.scores) == len(result.ranks) == state.seats
        assert min(result.ranks) == 1


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_eager_games_reach_deep_states_and_keep_invariants(players):
    reached = {"sacrifice": 0, "rituals": 0, "pieces": 0, "palaces": 0, "tiles": 0}
    for seed in range(150):
        state = GAME.setup(
            players, seed, {"difficulty": ("normal", "easier", "harder")[seed % 3]} if players == 1 else {}
        )
        rng = Random(seed)
        while state.to_act():
            seat = state.to_act()[0]
            state.apply(seat, eager_choice(state, seat, rng))
            if seed < 30:
                check_invariants(state)
        check_invariants(state)
        assert state.terminal()
        reached["sacrifice"] += sum(state.sac)
        reached["rituals"] += sum(len(discs) for discs in state.ritual_discs)
        reached["pieces"] += sum(state.built_pieces)
        reached["palaces"] += sum(1 for p in state.palace if p >= 0)
        reached["tiles"] += sum(len(t) for t in state.tiles_owned)
    assert min(reached.values()) > 0, reached


@pytest.mark.parametrize("players", [1, 2, 4])
def test_replay_bit_for_bit(players):
    def run(seed):
        state = GAME.setup(players, seed, {"difficulty": "harder"} if players == 1 else {})
        play_random(state, Random(seed * 7))
        return state.log(), state.result(), state.render()

    for seed in range(10):
        assert run(seed) == run(seed)


def test_clone_is_independent():
    state = GAME.setup(3, 11, {})
    rng = Random(1)
    for _ in range(40):
        seat = state.to_act()[0]
        state.apply(seat, random_choice(state, seat, rng))
    copy = state.clone()
    before = state.observation(0)
    play_random(copy, Random(2))
    assert state.observation(0) == before
    assert isinstance(state, State)


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_observation_roundtrip_and_determinize_along_games(players):
    for seed in range(6):
        state = GAME.setup(players, seed, {})
        rng = Random(seed)
        step = 0
        while state.to_act():
            if step % 9 == 0:
                for viewer in range(players):
                    obs = state.observation(viewer)
                    assert msgpack.unpackb(msgpack.packb(obs)) == obs
                    rebuilt = GAME.from_observation(obs, Random(step))
                    assert rebuilt.observation(viewer) == obs
                    sampled = state.determinize(viewer, Random(step))
                    assert sampled.observation(viewer) == obs
                    if viewer in state.to_act():
                        assert rebuilt.decision(viewer) == state.decision(viewer)
                    if step % 27 == 0:
                        check_invariants(rebuilt)
                        play_random(rebuilt, Random(step))  # a sampled state plays on to the end
                        assert rebuilt.terminal()
            seat = state.to_act()[0]
            state.apply(seat, random_choice(state, seat, rng))
            step += 1


def test_observation_hides_hands_decks_and_stacks():
    state = GAME.setup(4, 5, {})
    obs = state.observation(1)
    text = repr(obs)
    assert obs["hand"] == state.hands[1]
    assert "removed" not in obs and obs["deck_count"] == 4
    assert obs["trade_stack_counts"] == [9, 9, 9]
    assert [s["hand_count"] for s in obs["seats"]] == [4, 4, 4, 4]
    for other in (0, 2, 3):
        assert f"'hand': {state.hands[other]}" not in text or state.hands[other] == state.hands[1]
    # Determinize changes what seat 1 cannot see, never what it can.
    sampled = state.determinize(1, Random(3))
    assert sampled.hands[1] == state.hands[1] and sampled.offer == state.offer
    others = [sampled.hands[s] for s in (0, 2, 3)] + [sampled.deck]
    assert others != [state.hands[s] for s in (0, 2, 3)] + [state.deck]
    unseen = sorted(c for h in others for c in h) + sorted(sampled.removed)
    assert sorted(unseen) == sorted(
        [c for s in (0, 2, 3) for c in state.hands[s]] + state.deck + state.removed
    )


def test_cocijobot_top_card_hint_is_seen_and_kept_by_determinize():
    state = GAME.setup(1, 4, {})
    obs = state.observation(0)
    top = state.data.cocijobot_deck[state.cj_deck[-1]]
    assert obs["cocijobot"]["top_hint"] == top.back_hint
    assert "number" not in repr(obs["cocijobot"])
    for seed in range(20):
        sampled = state.determinize(0, Random(seed))
        assert state.data.cocijobot_deck[sampled.cj_deck[-1]].back_hint == top.back_hint
        assert sorted(sampled.cj_deck) == sorted(state.cj_deck)


def test_cards_taken_from_the_offer_stay_known_in_that_hand():
    # A card taken from the face-up Offer is public: every view keeps it in the taker's hand
    # until it is played (revealed), also while that seat's pick is still face down.
    state = GAME.setup(2, 3, {})
    while state.round == 1:
        seat = state.to_act()[0]
        state.apply(seat, 0)
    taken = [e["card"] for e in state.log() if e.get("kind") == "draw" and e["seat"] == 1]
    obs = state.observation(0)
    assert obs["seats"][1]["known_hand"] == taken
    for seed in range(10):
        assert taken[0] in state.determinize(0, Random(seed)).hands[1]
        assert taken[0] in GAME.from_observation(obs, Random(seed)).hands[1]
    state.apply(1, next(i for i, o in enumerate(state.decision(1).options) if o["card"] == taken[0]))
    obs = state.observation(0)
    assert obs["seats"][1]["known_hand"] == taken  # the pick is face down: nothing revealed yet
    for seed in range(10):
        for sampled in (state.determinize(0, Random(seed)), GAME.from_observation(obs, Random(seed))):
            assert taken[0] in sampled.hands[1] + [sampled.picks[1]]
            assert sampled.observation(0) == obs
    state.apply(0, 0)  # both picked: the cards are revealed
    assert state.observation(0)["seats"][1]["known_hand"] == []

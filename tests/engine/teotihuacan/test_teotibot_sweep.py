"""Teotibot: hundreds of seeded solo games with the random agent always end, keep the base
engine's invariants, replay bit for bit, and keep observation / determinize working."""

from __future__ import annotations

from random import Random

import msgpack

from engine.playout import option_counter, play_random
from engine.teotihuacan import GAME
from engine.teotihuacan.teotibot import TILE_NAMES
from tests.engine.teotihuacan.test_sweep import check_invariants

COUNT = option_counter(GAME)  # the engine's own option count: the same games, faster

SOLO = {"automaton": "teotibot"}
VARIANTS = [
    {},
    {"first_game": True},
    {"starting_tile_draft": True},
    {"dark_eclipse": True},
    {"teotibot_resources": -1, "teotibot_cash_in_vp": -2, "teotibot_bonus_tile_vp": -10},
    {"teotibot_power_nobles": 1, "teotibot_worship_steps": 1, "teotibot_technology_vp": 2},
]


def check_bot(st) -> None:
    """The automaton's own invariants on top of the base engine's."""
    assert sorted([*st.act_pyr, st.act_aside]) == sorted(TILE_NAMES)
    assert all(d in (0, 1) for d in st.dirs) and len(st.dirs) == 2
    bot_workers = range(st.bot * 4, st.bot * 4 + 4)
    assert all(st.wb[w] for w in bot_workers)
    locked = [w for w in bot_workers if st.ws[w] >= 0]
    assert len(locked) == 1 and st.wb[locked[0]] != 1  # one locked worker, never at the Palace
    assert not any(st.d_owner[t] == st.bot and st.d_used[t] for t in range(1, 55))
    assert all(t not in st.d_deck for t in range(1, 55) if st.d_owner[t] == -2)


def test_hundreds_of_solo_games_end_and_keep_every_invariant():
    wins = 0
    games = 400  # reach every line and branch of the engine that 1,500 reached (docs/testing.md)
    for seed in range(games):
        st = GAME.setup(1, seed, {**SOLO, **VARIANTS[seed % len(VARIANTS)]})
        rng = Random(seed)
        steps = 0
        while st.to_act():
            assert st.to_act() == (0,)  # the automaton never decides
            st.apply(0, rng.randrange(len(st.decision(0).options)))
            steps += 1
            if steps % 25 == 0:
                check_invariants(st)
                check_bot(st)
        check_invariants(st)
        check_bot(st)
        assert st.terminal() and st.eclipses in (1, 2, 3)
        result = st.result()
        assert sorted(result.ranks) == [1, 2] and len(result.scores) == 2
        wins += result.ranks[0] == 1
    assert wins < games // 10  # the random agent rarely beats the bot


def _play(seed: int, options: dict):
    st = GAME.setup(1, seed, {**SOLO, **options})
    play_random(st, Random(seed + 7), count=COUNT)
    return st


def test_same_seed_and_choices_replay_bit_for_bit():
    for seed in range(8):
        options = VARIANTS[seed % len(VARIANTS)]
        a, b = _play(seed, options), _play(seed, options)
        assert a.events == b.events and a.observation(0) == b.observation(0)
        assert a.result() == b.result()
    assert _play(1, {}).events != _play(2, {}).events


def test_observation_is_public_about_the_bot_and_rebuilds_the_state():
    for seed in range(6):
        st = GAME.setup(1, seed, {**SOLO, **VARIANTS[seed % 3]})
        rng = Random(seed)
        step = 0
        while st.to_act():
            if step % 9 == 0:
                obs = st.observation(0)
                assert msgpack.unpackb(msgpack.packb(obs)) == obs
                public = obs["public"]
                assert public["act_pyr"] == st.act_pyr and public["act_aside"] == st.act_aside
                assert public["dirs"] == st.dirs and public["bot"] == 1
                assert "chance" not in public
                det = st.determinize(0, Random(step))
                assert det.observation(0) == obs
                rebuilt = GAME.from_observation(obs, Random(step + 1))
                assert rebuilt.observation(0) == obs
                if st.stack[-1][0] != "start-pick":
                    assert rebuilt.decision(0) == st.decision(0)
            st.apply(0, rng.randrange(len(st.decision(0).options)))
            step += 1


def test_determinized_and_rebuilt_states_play_to_the_end():
    st = GAME.setup(1, 4, SOLO)
    rng = Random(0)
    for _ in range(40):
        st.apply(0, rng.randrange(len(st.decision(0).options)))
    assert st.eclipses >= 1  # well into the game
    det = st.determinize(0, Random(1))
    play_random(det, Random(2), count=COUNT)
    rebuilt = GAME.from_observation(st.observation(0), Random(3))
    play_random(rebuilt, Random(4), count=COUNT)
    clone = st.clone()
    play_random(clone, Random(5), count=COUNT)
    assert det.terminal() and rebuilt.terminal() and clone.terminal() and not st.terminal()


def test_render_and_log_show_the_bot():
    st = _play(3, {})
    text = st.render()
    assert "Teotibot action pyramid" in text and "Direction tiles" in text and "Teotibot" in text
    log = st.log()
    assert any("Teotibot rolls" in e["text"] for e in log)
    assert msgpack.unpackb(msgpack.packb(log)) == log

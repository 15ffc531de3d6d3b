"""The forward model's fast paths (used by search bots) give exactly what the full path gives."""

from __future__ import annotations

import pickle
from random import Random

import pytest

from engine.teotihuacan import GAME
from engine.teotihuacan.core import COPIED_FIELDS, FIXED_FIELDS

VARIANTS = [
    (2, {}),
    (3, {"starting_tile_draft": True}),
    (4, {"dark_eclipse": True}),
    (1, {"automaton": "teotibot"}),
]


@pytest.mark.parametrize(("players", "options"), VARIANTS)
def test_playing_by_option_count_logs_what_playing_by_decision_logs(players, options):
    # apply() without a Decision built labels the chosen option alone: the log must not change
    for seed in range(25):
        full, fast = GAME.setup(players, seed, options), GAME.setup(players, seed, options)
        rng_full, rng_fast = Random(seed), Random(seed)
        while full.to_act():
            seat = full.to_act()[0]
            count = len(full.decision(seat).options)
            assert fast.option_count(seat) == count
            full.apply(seat, rng_full.randrange(count))
            fast.apply(seat, rng_fast.randrange(fast.option_count(seat)))
        assert fast.events == full.events and fast.result() == full.result()


def snapshot(st) -> bytes:
    """Every field of ``st``, hidden ones included, as bytes."""
    return pickle.dumps(sorted((k, v) for k, v in st.__dict__.items() if k not in ("opts", "dec")))


def play_out(st, rng: Random) -> None:
    """Random choices to the end, by option count (as a playout plays)."""
    while st.to_act():
        seat = st.to_act()[0]
        st.apply(seat, rng.randrange(st.option_count(seat)))


# the Late Preclassic modules too (Tōnacāihuātl's reordering of the kept tiles changed a shared list)
EXPANSION = [(3, {"modules": "all"}), (1, {"automaton": "teotibot", "modules": "all"})]


@pytest.mark.parametrize(("players", "options"), VARIANTS + EXPANSION)
def test_playing_a_clone_out_leaves_its_source_untouched(players, options):
    # clone() shares what play never changes in place (FIXED_FIELDS, inner lists): prove it
    for seed in range(6):
        st = GAME.setup(players, seed, options)
        rng = Random(seed)
        steps = 0
        while st.to_act():
            if steps % 7 == 0:
                before = snapshot(st)
                copy = st.clone() if steps % 14 else st.determinize(st.to_act()[0], Random(steps))
                play_out(copy, rng)
                assert snapshot(st) == before
            seat = st.to_act()[0]
            st.apply(seat, Random(seed * 1000 + steps).randrange(len(st.decision(seat).options)))
            steps += 1


def test_every_list_of_the_state_is_copied_or_fixed():
    # a field missing from the tables would be shared by clones (and changed under them)
    for players, options in VARIANTS:
        st = GAME.setup(players, 3, options)
        rng = Random(3)
        for _ in range(60):  # into the first Eclipse round (a solo game is ~75 decisions long)
            seat = st.to_act()[0]
            st.apply(seat, rng.randrange(st.option_count(seat)))
        listed = set(COPIED_FIELDS) | set(FIXED_FIELDS)
        unlisted = {k for k, v in st.__dict__.items() if isinstance(v, list | dict | set) and k not in listed}
        assert unlisted == {"options", "opts"}  # game options and cached payloads: never changed


def fields(st) -> bytes:
    """``snapshot`` less the log (a search's sample keeps none)."""
    return pickle.dumps(
        sorted((k, v) for k, v in st.__dict__.items() if k not in ("opts", "dec", "events", "keep_log"))
    )


SAMPLED = VARIANTS + EXPANSION


@pytest.mark.parametrize(("players", "options"), SAMPLED)
def test_observation_sampler_makes_what_from_observation_makes(players, options):
    # observation_sampler reads the public part once and clones it for each sample: each sample
    # must be from_observation's state with the same generator (same draws), and play the same
    for seed in range(3):
        st = GAME.setup(players, seed, options)
        rng = Random(seed)
        steps = 0
        while st.to_act():
            if steps % 9 == 0:  # the first decision (Starting tiles still hidden) included
                viewer = st.to_act()[0]
                obs = st.observation(viewer)
                sample = GAME.capabilities.observation_sampler(obs)
                for k in range(2):  # a second sample, after the first was played out
                    fast_rng, full_rng = Random(k), Random(k)
                    fast, full = sample(fast_rng), GAME.from_observation(obs, full_rng)
                    assert fields(fast) == fields(full)
                    assert fast_rng.getstate() == full_rng.getstate()
                    play_out(fast, Random(steps))
                    play_out(full, Random(steps))
                    assert fields(fast) == fields(full) and fast.result() == full.result()
                    assert fast.events == [] and full.events  # a sample labels nothing for the log
            seat = st.to_act()[0]
            st.apply(seat, rng.randrange(st.option_count(seat)))
            steps += 1


@pytest.mark.parametrize(("players", "options"), SAMPLED)
def test_option_labels_are_the_decisions_labels(players, options):
    # a search keys its tree by option_labels: they must be decision()'s, asked before or after it
    for seed in range(4):
        st = GAME.setup(players, seed, options)
        rng = Random(seed)
        while st.to_act():
            seat = st.to_act()[0]
            before = st.option_labels(seat)
            labels = [option["label"] for option in st.decision(seat).options]
            assert before == labels == st.option_labels(seat)
            st.apply(seat, rng.randrange(len(labels)))

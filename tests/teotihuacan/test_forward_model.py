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
                while copy.to_act():
                    seat = copy.to_act()[0]
                    copy.apply(seat, rng.randrange(copy.option_count(seat)))
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


"""The forward model's fast paths (used by search bots) give exactly what the full path gives."""

from __future__ import annotations

from random import Random

import pytest

from engine.teotihuacan import GAME

VARIANTS = [(2, {}), (3, {"starting_tile_draft": True}), (4, {"dark_eclipse": True}), (1, {"automaton": "teotibot"})]


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


def test_clone_is_independent_of_its_source():
    st = GAME.setup(2, 7, {})
    rng = Random(7)
    for _ in range(150):
        seat = st.to_act()[0]
        st.apply(seat, rng.randrange(st.option_count(seat)))
    before = (st.observation(0), list(st.events))
    copy = st.clone()
    while copy.to_act():
        seat = copy.to_act()[0]
        copy.apply(seat, rng.randrange(copy.option_count(seat)))
    assert (st.observation(0), st.events) == before
    assert st.option_count(st.to_act()[0]) >= 1 and not st.terminal()

"""bench/bench_matchmaking.py: the simulated field is what it says, and a small season beats
the round robin where the policy says it should (crashing bots kept out)."""

from __future__ import annotations

import numpy as np

from bench.bench_matchmaking import make_world, measure, outcome, play_round_robin, play_season


def test_the_field_has_its_versions_crashers_and_arrivals():
    world = make_world(200, 10_000, 200.0, seed=3)
    assert len(world.replaces) == 20 and int(world.crashes.sum()) == 4
    assert np.count_nonzero(world.arrive == 0) == 100 and world.arrive.max() < 8_000
    for new, old in world.replaces.items():
        assert world.arrive[old] < world.arrive[new] and world.strength[new] > world.strength[old] + 19
    assert len(set(world.replaces.values())) == len(world.replaces)  # each old version replaced once


def test_outcomes_follow_the_strengths():
    world = make_world(10, 100, 200.0, seed=1)
    world.strength[:] = 0
    world.strength[0] = 400  # about 91% against an equal opponent
    rng = np.random.default_rng(0)
    wins = sum(outcome(world, [0, 1], rng)[0][0] == 1 for _ in range(2000))
    assert 0.88 < wins / 2000 < 0.94


def test_a_small_season_keeps_crashing_bots_out_and_orders_the_field():
    world = make_world(30, 1500, 300.0, seed=2)
    world.crashes[:] = False
    world.crashes[[1, 2]] = True
    ended = sorted(set(range(30)) - set(world.replaces.values()))
    season = measure(world, play_season(world, 1500, (2, 3), 0.1, 2), ended)
    robin = measure(world, play_round_robin(world, 1500, (2, 3), 2), ended)
    assert season.played == robin.played == 1500
    assert season.crash_share < 0.5 * robin.crash_share  # suspended within their first games
    assert season.tau > 0.7 and robin.tau > 0.7

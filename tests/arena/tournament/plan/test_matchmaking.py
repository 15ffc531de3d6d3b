"""Season matchmaking: placement, the draw's weights, the cap, opponents, voided games,
suspension and the final phase's stop rule, each rule on its own."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
import trueskill

from arena.tournament.plan.matchmaking import (
    Matchmaker,
    MatchmakingPolicy,
    counted,
    draw_weights,
    match_quality,
    placement_quantiles,
    separated,
)
from arena.tournament.stats.ratings import SeatLine
from arena.tournament.stats.ratings_mle import MleRating, mle_ratings


def settled_field(policy: MatchmakingPolicy, count: int, seed: int = 0) -> Matchmaker:
    """``count`` bots past placement, mu 50 (b0) down to about 10, every sigma 2."""
    maker = Matchmaker(policy, seed)
    for k in range(count):
        maker.join(f"b{k}")
    maker.mu[:] = np.linspace(50, 10, count)
    maker.sigma[:] = 2.0
    maker.games[:] = maker.scheduled[:] = policy.placement_games
    return maker


def play(maker: Matchmaker, games: int) -> list[tuple[str, ...]]:
    """Schedule and record ``games`` games, the leader always first (no errors)."""
    groups = []
    for _ in range(games):
        group = maker.next_group()
        assert group is not None
        maker.record(group, list(range(1, len(group) + 1)), [False] * len(group))
        groups.append(group)
    return groups


def test_quality_is_trueskills():
    env = trueskill.TrueSkill(draw_probability=0.10, backend=None)
    rng = np.random.default_rng(3)
    for seats in (2, 3, 4):
        mu, sigma = rng.normal(25, 6, (6, seats)), rng.uniform(0.5, 8, (6, seats))
        expected = [
            env.quality([(env.create_rating(m, s),) for m, s in zip(mu[g], sigma[g], strict=True)])
            for g in range(6)
        ]
        assert match_quality(mu, sigma, env.beta) == pytest.approx(expected, rel=1e-9)


def test_placement_plays_first_against_opponents_spread_over_the_ranks():
    policy = MatchmakingPolicy(seats=(2,), placement_games=10)
    maker = settled_field(policy, 50)
    maker.join("new")
    order = maker.table()
    groups = play(maker, 10)
    assert all(group[0] == "new" for group in groups)  # placement before anyone else
    ranks = sorted(order.index(group[1]) for group in groups)
    assert len(set(ranks)) == 10
    assert Counter(rank * 5 // 50 for rank in ranks) == {fifth: 2 for fifth in range(5)}  # two per fifth
    assert not maker.in_placement("new")


def test_placement_games_scheduled_at_once_still_spread():
    maker = settled_field(MatchmakingPolicy(seats=(2,), placement_games=10), 50)
    maker.join("new")
    groups = [maker.next_group() for _ in range(10)]  # none finished yet: all in flight
    assert all(group is not None and group[0] == "new" for group in groups)
    assert len({group[1] for group in groups if group is not None}) == 10
    assert not maker.in_placement("new")


def test_placement_quantiles_cover_the_table_whatever_the_seats():
    for opponents in (1, 2, 3):
        points = [q for game in range(10) for q in placement_quantiles(game, opponents, 10)]
        assert all(0 < q < 1 for q in points)
        assert Counter(int(q * 10) for q in points) == {tenth: opponents for tenth in range(10)}
        first = [q for game in range(3) for q in placement_quantiles(game, opponents, 10)]
        assert min(first) < 0.4 and max(first) > 0.6  # the first games already reach both ends


def test_weights_favour_few_games_and_long_idle_never_uncertainty():
    policy = MatchmakingPolicy()
    by_games = draw_weights(np.array([5, 50, 500]), np.array([10, 10, 10]), policy)
    assert by_games[0] > by_games[1] > by_games[2]
    by_idle = draw_weights(np.array([50, 50, 50]), np.array([0, 10, 100]), policy)
    assert by_idle[0] < by_idle[1] < by_idle[2]
    # a bot whose sigma is wide (as a crashing bot's stays) is drawn no more often than the rest
    maker = settled_field(MatchmakingPolicy(seats=(2,), nearest=4), 20, seed=1)
    maker.sigma[7] = 8.0
    leaders = Counter(group[0] for group in play(maker, 2000))
    assert leaders["b7"] < 1.3 * 2000 / 20


def test_the_draw_lets_a_bot_behind_catch_up():
    def gained(games_weight: float) -> int:
        maker = settled_field(MatchmakingPolicy(seats=(2, 3, 4), games_weight=games_weight), 30, seed=2)
        maker.games[:] = 200
        maker.games[0] = 10  # b0 far behind
        play(maker, 1000)
        return int(maker.games[0]) - 10

    assert gained(1.0) > 1.5 * gained(0.0)


def test_a_bot_cannot_take_more_than_its_capped_share():
    policy = MatchmakingPolicy(seats=(2,), games_weight=8, idle_weight=0, max_share=2.0, share_window=200)
    maker = settled_field(policy, 20, seed=3)
    maker.games[:] = 1000
    maker.games[0] = policy.placement_games  # b0 has played far less: the weights all but always pick it
    groups = play(maker, 1000)
    seats = sum("b0" in group for group in groups[200:])
    assert seats <= 800 * 2.0 * 2 / 20 + 1  # max_share x the fair share of 2 seats in 20 bots
    uncapped = settled_field(
        MatchmakingPolicy(seats=(2,), games_weight=8, idle_weight=0, max_share=1e9), 20, 3
    )
    uncapped.games[:] = 1000
    uncapped.games[0] = policy.placement_games
    assert sum("b0" in group for group in play(uncapped, 1000)[200:]) > 2 * seats  # the cap did it


def test_opponents_come_from_the_nearest_ranks_by_match_quality():
    maker = settled_field(MatchmakingPolicy(seats=(2, 3), nearest=6), 40, seed=4)
    for _ in range(300):
        order = maker.table()
        group = play(maker, 1)[0]
        leader = order.index(group[0])
        assert all(abs(order.index(other) - leader) <= 6 for other in group[1:])
    maker = settled_field(MatchmakingPolicy(seats=(2,), nearest=6), 40, seed=5)
    maker.mu[:] = np.linspace(50, 10, 40)
    maker.mu[21] = maker.mu[20] - 0.01  # b21 is b20's twin: the clear best match
    assert maker._opponents(20, 1, np.array([i for i in range(40) if i != 20]), 6) == [21]


def test_pairs_that_met_least_are_preferred():
    maker = settled_field(MatchmakingPolicy(seats=(2,), nearest=4), 10, seed=6)
    maker.mu[:] = 30.0  # everyone equally good a match for b4
    pool = np.array([i for i in range(10) if i != 4])
    first = maker._opponents(4, 1, pool, 4)
    maker.meetings[4, first[0]] = maker.meetings[first[0], 4] = 5
    second = maker._opponents(4, 1, pool, 4)
    assert second != first
    # over many games, b4's meetings are spread over its nearest, not piled on one
    played = play(maker, 600)
    partners = Counter(other for group in played if group[0] == "b4" for other in group[1:])
    assert max(partners.values()) <= 2 * min(partners.values()) + 2


def test_a_voided_game_moves_only_the_offender():
    maker = settled_field(MatchmakingPolicy(seats=(3,)), 5)
    before = {name: (maker.rating(name).mu, maker.rating(name).sigma) for name in ("b1", "b2", "b3")}
    games = maker.games.copy()
    recorded = maker.record(("b1", "b2", "b3"), [1, 2, 3], [False, True, False])
    assert recorded.voided
    assert (maker.rating("b1").mu, maker.rating("b1").sigma) == before["b1"]  # won, yet nothing counts
    assert (maker.rating("b3").mu, maker.rating("b3").sigma) == before["b3"]
    assert maker.rating("b2").mu < before["b2"][0]  # the offender lost
    assert maker.games[1] == games[1] and maker.games[3] == games[3] and maker.games[2] == games[2] + 1
    assert maker.meetings.sum() == 0
    clean = maker.record(("b1", "b2", "b3"), [1, 2, 3], [False, False, False])
    assert not clean.voided and maker.rating("b1").mu > before["b1"][0] and maker.meetings[1, 3] == 1


def test_voided_games_stay_out_of_the_published_table():
    clean = [SeatLine("a", 0, 1), SeatLine("b", 0, 2)]
    voided = [SeatLine("b", 0, 1), SeatLine("c", 0, 2, "crash")]  # b "won" only because c crashed
    games = [(k, clean) for k in range(6)] + [(100 + k, voided) for k in range(30)]
    kept = counted(games)
    assert kept == games[:6]
    assert "c" not in mle_ratings(kept)
    # counted in, c's crashes would have lifted b towards a: what the voiding prevents
    everything, fair = mle_ratings(games), mle_ratings(kept)
    assert everything["a"].elo - everything["b"].elo < fair["a"].elo - fair["b"].elo - 50


def test_a_bot_is_suspended_after_n_errors_in_m_games_and_not_drawn_again():
    policy = MatchmakingPolicy(seats=(2,), suspend_errors=3, suspend_window=5)
    maker = settled_field(policy, 6)
    pattern = [True, False, False, False, False, True, False, True, True]  # 3 in 5 only at the end
    for k, error in enumerate(pattern):
        recorded = maker.record(("b0", "b1"), [1, 2], [error, False])
        if k < len(pattern) - 1:
            assert recorded.suspended == {}
    assert recorded.suspended == {"b0": "3 errors in its last 5 games"}
    assert maker.suspended == {"b0": "3 errors in its last 5 games"}
    assert all("b0" not in group for group in play(maker, 200))


def test_drift_while_open_none_in_the_final():
    maker = settled_field(MatchmakingPolicy(seats=(2,), tau=0.5), 12)
    assert maker.env.tau == 0.5
    maker.start_final(maker.table()[:4])
    assert maker.env.tau == 0
    with pytest.raises(ValueError, match="final phase"):
        maker.join("late")


def test_the_final_phase_spreads_games_evenly_over_the_top_k():
    maker = settled_field(MatchmakingPolicy(seats=(2, 3), final_top=5, final_budget=100), 20, seed=7)
    top = maker.table()[:5]
    maker.start_final(top)
    groups = play(maker, 200)
    assert all(set(group) <= set(top) for group in groups)
    counts = maker.final_games[[maker.index[name] for name in top]]
    assert counts.max() - counts.min() <= 3
    assert maker.final_over({}, top)  # budget spent (200 >= 100), whatever the ratings


def rating(name: str, elo: float, half: float) -> MleRating:
    return MleRating(name, elo, elo - half, elo + half, 100)


def test_final_stop_rule_needs_every_adjacent_pair_separated():
    # half-width 19.6 Elo: se 10 each, se of a difference 14.1; one-sided 95% needs 23.3 Elo
    ratings = {"a": rating("a", 100, 19.6), "b": rating("b", 70, 19.6), "c": rating("c", 50, 19.6)}
    assert separated(["a", "b", "c"], ratings, 0.95) == [True, False]
    assert separated(["a", "b", "c"], ratings, 0.80) == [True, True]  # 20 / 14.1 = 1.41 > 0.84
    assert separated(["b", "a"], ratings, 0.95) == [False]  # in the wrong order
    assert separated(["a", "x"], ratings, 0.95) == [False]  # no rating: not separated
    maker = settled_field(MatchmakingPolicy(final_top=3, final_budget=1000), 5)
    maker.start_final(["a", "b", "c"])
    assert not maker.final_over(ratings, ["a", "b", "c"])
    assert maker.final_over({**ratings, "c": rating("c", 30, 19.6)}, ["a", "b", "c"])


def test_the_same_seed_gives_the_same_season():
    def season(seed: int) -> list[tuple[str, ...]]:
        maker = Matchmaker(MatchmakingPolicy(seats=(2, 3, 4)), seed)
        for k in range(25):
            maker.join(f"b{k}")
        return play(maker, 400)

    assert season(11) == season(11)
    assert season(11) != season(12)


@pytest.mark.parametrize(
    ("knobs", "message"),
    [
        ({"seats": (1, 2)}, "seats must be counts from 2 to 4"),
        ({"placement_games": 0}, "placement_games must be at least 1"),
        ({"seats": (4,), "nearest": 2}, "nearest must be at least"),
        ({"suspend_errors": 6, "suspend_window": 5}, "suspend_errors cannot exceed"),
        ({"final_confidence": 1.0}, "final_confidence must lie"),
        ({"max_share": 1.0}, "max_share must exceed 1"),
    ],
)
def test_bad_knobs_say_which(knobs, message):
    with pytest.raises(ValueError, match=message):
        MatchmakingPolicy(**knobs)

"""Order-free MLE ratings (arena/tournament/stats/ratings_mle.py) against simulated agents of known strength."""

from __future__ import annotations

import math
import random

import pytest

from arena.tournament.stats.elo import ELO_PER_NAT, wilson_interval
from arena.tournament.stats.ratings import SeatLine, leaderboard
from arena.tournament.stats.ratings_mle import mle_ratings

TRUE_ELO = {"ace": 200.0, "good": 60.0, "fair": -40.0, "weak": -220.0}  # mean 0, as the fit reports


def simulated_match(rng: random.Random, group: list[str], strength: dict[str, float]) -> list[SeatLine]:
    """One Plackett-Luce ranking of ``group``: sort by strength plus Gumbel noise (exact sampling)."""
    utility = {name: strength[name] / ELO_PER_NAT - math.log(-math.log(rng.random())) for name in group}
    order = sorted(group, key=lambda name: -utility[name])
    return [SeatLine(name, 0, order.index(name) + 1) for name in group]


def simulated_ladder(
    seed: int, deals: int, seats: int, strength=TRUE_ELO
) -> list[tuple[int, list[SeatLine]]]:
    rng = random.Random(seed)
    return [
        (deal, simulated_match(rng, rng.sample(sorted(strength), seats), strength)) for deal in range(deals)
    ]


@pytest.mark.parametrize("seats", [2, 4])
def test_fit_recovers_the_known_order_and_scale(seats):
    fits = mle_ratings(simulated_ladder(seed=seats, deals=1500, seats=seats))
    assert sorted(fits, key=lambda name: -fits[name].elo) == ["ace", "good", "fair", "weak"]
    assert sum(fit.elo for fit in fits.values()) == pytest.approx(0, abs=1e-6)
    spread = fits["ace"].elo - fits["weak"].elo
    assert spread == pytest.approx(TRUE_ELO["ace"] - TRUE_ELO["weak"], rel=0.15)  # the scale is Elo
    for name, fit in fits.items():
        assert fit.low < fit.elo < fit.high
        assert fit.low - 10 <= TRUE_ELO[name] <= fit.high + 10  # slack: the prior shrinks a little


def test_intervals_cover_the_true_ratings_about_95_percent_of_the_time():
    covered = total = 0
    for seed in range(40):
        fits = mle_ratings(simulated_ladder(seed=100 + seed, deals=150, seats=3))
        for name, fit in fits.items():
            total += 1
            covered += fit.low <= TRUE_ELO[name] <= fit.high
    assert 0.88 <= covered / total <= 1.0, covered / total


def test_order_of_results_does_not_change_the_table_but_does_change_trueskill():
    matches = simulated_ladder(seed=9, deals=60, seats=2)
    shuffled = list(matches)
    random.Random(1).shuffle(shuffled)
    assert mle_ratings(shuffled) == mle_ratings(matches)  # exactly, intervals included
    assert mle_ratings(reversed(matches)) == mle_ratings(matches)
    # the online filter this fit complements does depend on the order
    forward = {row.agent: row.mu for row in leaderboard(seats for _, seats in matches)}
    backward = {row.agent: row.mu for row in leaderboard(seats for _, seats in reversed(matches))}
    assert forward != backward


def test_mixed_seat_counts_ties_and_forfeits_in_any_order_give_the_same_bits():
    rng = random.Random(4)
    names = sorted(TRUE_ELO)
    matches = []
    for deal in range(300):
        group = rng.sample(names, rng.choice((2, 3, 4)))
        seats = [  # ranks drawn with repeats: ties of two, three or all seats
            SeatLine(name, 0, rng.randint(1, len(group)), "timeout" if rng.random() < 0.05 else None)
            for name in group
        ]
        matches.append((deal % 97, seats))  # deals shared by several matches
    shuffled = list(matches)
    rng.shuffle(shuffled)
    assert mle_ratings(shuffled) == mle_ratings(matches)  # exactly, intervals included


def test_a_tie_counts_as_each_order_of_the_tied_seats_at_its_share():
    tied = [SeatLine("a", 0, 1), SeatLine("b", 0, 2), SeatLine("c", 0, 2)]
    orders = [
        [SeatLine("a", 0, 1), SeatLine("b", 0, 2), SeatLine("c", 0, 3)],
        [SeatLine("a", 0, 1), SeatLine("c", 0, 2), SeatLine("b", 0, 3)],
    ]
    rest = simulated_ladder(seed=5, deals=40, seats=3, strength={"a": 0.0, "b": 50.0, "c": -50.0})
    with_ties = mle_ratings([*rest, (100, tied), (101, tied)])
    spelt_out = mle_ratings([*rest, (100, orders[0]), (101, orders[1])])
    for name in "abc":
        assert with_ties[name].elo == pytest.approx(spelt_out[name].elo, abs=1e-9)


def test_a_draw_is_half_a_win_each():
    two = [SeatLine("a", 0, 1), SeatLine("b", 0, 2)]
    drawn = [SeatLine("a", 0, 1), SeatLine("b", 0, 1)]
    lost = [SeatLine("a", 0, 2), SeatLine("b", 0, 1)]
    matches = [(i, two) for i in range(300)] + [(300 + i, drawn) for i in range(200)]
    matches += [(500 + i, lost) for i in range(100)]
    fits = mle_ratings(matches)
    # a scored (300 + 200 / 2) / 600 = 2/3: Bradley-Terry puts it 400 log10(2) = 120.4 Elo above b
    assert fits["a"].elo - fits["b"].elo == pytest.approx(400 * math.log10(2), abs=2)
    only_draws = mle_ratings([(i, drawn) for i in range(10)])
    assert only_draws["a"].elo == pytest.approx(0, abs=1e-6) == only_draws["b"].elo


def test_forfeits_rank_last_and_a_perfect_record_stays_finite():
    # "cheat" tops the score sheet every time but forfeits: it must rate below the others
    matches = [
        (deal, [SeatLine("cheat", 30, 1, "timeout"), SeatLine("x", 10, 2), SeatLine("y", 5, 3)])
        for deal in range(20)
    ]
    fits = mle_ratings(matches)
    assert fits["x"].elo > fits["y"].elo > fits["cheat"].elo
    assert all(math.isfinite(fit.elo) and math.isfinite(fit.high) for fit in fits.values())
    assert {fit.matches for fit in fits.values()} == {20}


def test_unratable_matches_are_skipped_and_one_deal_has_no_interval():
    assert mle_ratings([]) == {}
    assert mle_ratings([(0, [SeatLine("solo", 5, 1)])]) == {}  # a lone seat says nothing
    assert mle_ratings([(0, [SeatLine("a", 1, 1), SeatLine("a", 0, 2)])]) == {}  # nor does self-play
    one_deal = mle_ratings([(0, [SeatLine("a", 1, 1), SeatLine("b", 0, 2)])] * 3)
    assert one_deal["a"].elo > 0 > one_deal["b"].elo
    assert one_deal["a"].low is None and one_deal["a"].as_dict()["mle_high"] is None


def test_wilson_interval_known_values():
    low, high = wilson_interval(8, 10)
    assert (round(low, 4), round(high, 4)) == (0.4902, 0.9433)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    assert wilson_interval(10, 10)[1] == 1.0 and wilson_interval(10, 10)[0] > 0.69
    assert wilson_interval(2.5, 5) == pytest.approx(
        (1 - wilson_interval(2.5, 5)[1], 1 - wilson_interval(2.5, 5)[0])
    )

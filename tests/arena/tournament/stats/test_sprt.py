"""The GSPRT of `arena compare` (arena/tournament/stats/sprt.py) on simulated deals between agents of known strength."""

from __future__ import annotations

import math
import random

import pytest

from arena.tournament.stats.elo import score_from_elo
from arena.tournament.stats.sprt import (
    SprtError,
    SprtSettings,
    llr_path,
    log_likelihood_ratio,
    sequential,
    state,
)

DRAWS = 0.3  # chance that a game is level


def game_points(rng: random.Random, elo: float) -> int:
    """One game of an agent ``elo`` stronger than its opponent, in halves: 2 win, 1 level, 0 loss."""
    win = score_from_elo(elo) - DRAWS / 2
    roll = rng.random()
    return 2 if roll < win else 1 if roll < win + DRAWS else 0


def deals(rng: random.Random, elo: float, games: int):
    """An endless stream of deal outcomes (halves, 0 .. 2 games)."""
    while True:
        yield sum(game_points(rng, elo) for _ in range(games))


def game_variance(elo: float) -> float:
    """The variance of one game's score (0, 1/2, 1) under ``game_points``."""
    s = score_from_elo(elo)
    win = s - DRAWS / 2
    return win + DRAWS / 4 - s * s


SETTINGS = SprtSettings(elo0=0, elo1=60, alpha=0.05, beta=0.05)
RUNS = 300
# one worker under xdist: the simulated runs (the module fixture) are the module's cost
pytestmark = pytest.mark.xdist_group("sprt-runs")


@pytest.fixture(scope="module")
def runs():
    """RUNS simulated tests with the truth at elo0 and at elo1 (pentanomial: two games a deal)."""
    found = {}
    for truth in (SETTINGS.elo0, SETTINGS.elo1):
        rng = random.Random(int(truth) + 17)
        found[truth] = [sequential(deals(rng, truth, 2), 2, SETTINGS) for _ in range(RUNS)]
    return found


def test_error_rates_stay_near_alpha_and_beta(runs):
    assert all(run.verdict is not None for results in runs.values() for run in results)
    false_h1 = sum(run.verdict == "H1" for run in runs[SETTINGS.elo0]) / RUNS
    false_h0 = sum(run.verdict == "H0" for run in runs[SETTINGS.elo1]) / RUNS
    # three standard errors above the nominal rates (1.3 points at 5% over 300 runs)
    margin = 3 * math.sqrt(0.05 * 0.95 / RUNS)
    assert false_h1 <= SETTINGS.alpha + margin
    assert false_h0 <= SETTINGS.beta + margin


def test_average_sample_size_is_far_below_a_fixed_size_test(runs):
    # a fixed-size one-sided z-test with the same alpha, beta, elo0 and elo1 needs this many deals
    z = 2 * 1.6448536269514722  # z(1 - alpha) + z(1 - beta)
    per_deal_sd = math.sqrt(game_variance(SETTINGS.elo0) / 2)  # the mean of two games
    shift = score_from_elo(SETTINGS.elo1) - score_from_elo(SETTINGS.elo0)
    fixed = (z * per_deal_sd / shift) ** 2
    for truth, results in runs.items():
        average = sum(run.deals for run in results) / RUNS
        assert average < 0.7 * fixed, (truth, average, fixed)


def test_trinomial_design_keeps_alpha_too():
    """One game a deal (a solo comparison against the automaton) uses the same test."""
    settings = SprtSettings(elo0=0, elo1=80)
    rng = random.Random(3)
    results = [sequential(deals(rng, 0, 1), 1, settings) for _ in range(200)]
    assert sum(run.verdict == "H1" for run in results) / 200 <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / 200)


def test_llr_matches_its_normal_approximation_for_many_deals():
    # Van den Bergh: LLR ~ N (s1 - s0) (2 mean - s0 - s1) / (2 variance) near s0 and s1
    counts = [300, 1200, 2100, 1300, 350]
    total = sum(counts)
    points = [j / 4 for j in range(5)]
    mean = sum(c * a for c, a in zip(counts, points, strict=True)) / total
    variance = sum(c * (a - mean) ** 2 for c, a in zip(counts, points, strict=True)) / total
    s0, s1 = score_from_elo(0), score_from_elo(10)
    approximate = total * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)
    assert log_likelihood_ratio(counts, 0, 10) == pytest.approx(approximate, rel=0.03)


def test_llr_symmetry_bounds_and_estimate():
    counts = [1, 4, 9, 7, 3]
    mirrored = list(reversed(counts))
    # NEW scoring a where it scored 1 - a is the same evidence about minus the Elo difference
    assert log_likelihood_ratio(counts, 0, 20) == pytest.approx(-log_likelihood_ratio(mirrored, -20, 0))
    assert log_likelihood_ratio([0] * 5, 0, 10) == 0
    now = state(counts, SprtSettings())
    assert now.lower == pytest.approx(math.log(0.05 / 0.95)) and now.upper == pytest.approx(math.log(19))
    mean = sum(c * j / 4 for j, c in enumerate(counts)) / sum(counts)
    assert now.elo == pytest.approx(-400 * math.log10(1 / mean - 1))
    assert now.elo_low < now.elo < now.elo_high
    assert now.verdict is None and now.as_dict()["deals"] == 24
    assert state([0, 0, 0, 0, 2], SprtSettings()).as_dict()["elo"] == "inf"


def test_sequential_stops_at_the_first_deal_that_decides():
    outcomes = [4] * 1000
    decided = sequential(outcomes, 2, SprtSettings(elo0=0, elo1=50))
    assert decided.verdict == "H1"
    earlier = sequential(outcomes[: decided.deals - 1], 2, SprtSettings(elo0=0, elo1=50))
    assert earlier.verdict is None and decided.deals < 1000
    # resuming the walk after deals already seen to be undecided finds the same deal
    assert sequential(outcomes, 2, SprtSettings(elo0=0, elo1=50), checked=decided.deals - 1) == decided


def test_llr_path_follows_the_test_to_the_deal_that_decides():
    settings = SprtSettings(elo0=0, elo1=50)
    outcomes = [4, 2, 3, 4, 0, 4] * 200
    decided = sequential(outcomes, 2, settings)
    path = llr_path(outcomes, 2, settings, most=1000)
    assert path[0] == (0, 0.0) and [deal for deal, _ in path] == list(range(decided.deals + 1))
    assert path[-1] == (decided.deals, decided.llr)
    assert path[3][1] == log_likelihood_ratio([0, 0, 1, 1, 1], 0, 50)  # after deals 4, 2, 3
    assert all(settings.lower < llr < settings.upper for _, llr in path[:-1])
    sparse = llr_path(outcomes, 2, settings, most=10)  # a chart's worth of points, the end kept
    assert len(sparse) <= 11 and sparse[-1] == path[-1] and set(sparse) <= set(path)
    assert llr_path([], 2, settings) == [(0, 0.0)]


@pytest.mark.parametrize(
    "settings, message",
    [
        (dict(elo0=5, elo1=5), "elo1 (5) must be greater than elo0 (5)"),
        (dict(alpha=0), "alpha must be between 0 and 0.5"),
        (dict(beta=0.7), "beta must be between 0 and 0.5"),
    ],
)
def test_settings_that_cannot_work_are_refused(settings, message):
    with pytest.raises(SprtError, match=message.replace("(", r"\(").replace(")", r"\)")):
        SprtSettings(**settings)

"""TrueSkill leaderboard: deterministic, ties, forfeits last, conservative ordering."""

from __future__ import annotations

import random

import pytest

from arena.tournament.stats.ratings import SeatLine, effective_ranks, leaderboard


def match(*seats):
    return [SeatLine(agent, score, rank, fault) for agent, score, rank, fault in seats]


def test_stronger_agent_is_rated_above_and_table_is_complete():
    matches = [match(("strong", 10, 1, None), ("weak", 3, 2, None)) for _ in range(8)]
    table = leaderboard(matches)
    assert [row.agent for row in table] == ["strong", "weak"]
    strong, weak = table
    assert strong.rank == 1 and strong.wins == 8 and strong.matches == 8 and strong.mean_score == 10
    assert weak.wins == 0 and strong.rating > weak.rating
    assert strong.rating == pytest.approx(strong.mu - 3 * strong.sigma)
    assert set(strong.as_dict()) == {
        "rank",
        "agent",
        "rating",
        "mu",
        "sigma",
        "matches",
        "wins",
        "mean_score",
        "faults",
    }


def test_same_results_same_order_give_the_same_table_and_order_matters_only_through_schedule():
    rng = random.Random(5)
    names = ["a", "b", "c", "d"]
    matches = []
    for _ in range(40):
        seated = rng.sample(names, rng.choice([2, 3, 4]))
        scores = [rng.randrange(5) for _ in seated]
        ranks = [1 + sum(o > s for o in scores) for s in scores]
        matches.append(match(*[(n, s, r, None) for n, s, r in zip(seated, scores, ranks, strict=True)]))
    assert leaderboard(matches) == leaderboard(list(matches))


def test_ties_share_and_draws_move_ratings_together():
    table = leaderboard([match(("x", 4, 1, None), ("y", 4, 1, None))] * 5)
    x, y = sorted(table, key=lambda row: row.agent)
    assert x.mu == pytest.approx(y.mu) and x.sigma == pytest.approx(y.sigma)
    assert x.wins == y.wins == 5  # a shared first place counts as a win for both


def test_forfeit_ranks_last_whatever_its_score():
    seats = match(("a", 9, 1, "timeout"), ("b", 5, 2, None), ("c", 1, 3, None), ("d", 0, 4, "crash"))
    assert effective_ranks(seats) == [2, 0, 1, 2]
    table = {row.agent: row for row in leaderboard([seats])}
    assert table["a"].faults == 1 and table["a"].wins == 0
    assert table["b"].mu > table["c"].mu > table["a"].mu
    assert table["a"].mu == pytest.approx(table["d"].mu, abs=0.1)  # tied last (TrueSkill is approximate)


def test_automaton_is_rated_like_an_agent():
    matches = [match(("me", 50, 2, None), ("cocijobot", 60, 1, None))] * 3 + [
        match(("me", 70, 1, None), ("cocijobot", 60, 2, None))
    ]
    table = leaderboard(matches)
    assert {row.agent for row in table} == {"me", "cocijobot"}
    assert table[0].agent == "cocijobot"


def test_empty_results_give_an_empty_table():
    assert leaderboard([]) == []

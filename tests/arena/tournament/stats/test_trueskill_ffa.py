"""trueskill_ffa.FfaRater against the `trueskill` library it reimplements: the same numbers, bit for bit."""

from __future__ import annotations

import random

import pytest
import trueskill

from arena.tournament.plan.matchmaking import Matchmaker, MatchmakingPolicy
from arena.tournament.stats.ratings import SeatLine, effective_ranks, leaderboard
from arena.tournament.stats.trueskill_ffa import FfaRater, Skill, skill

TAUS = (trueskill.TAU, 0.0)
DRAWS = (0.0, 0.10, 0.30)


def compare(rater: FfaRater, ratings: list[Skill], ranks: list[int]) -> None:
    """The rater's answer is the library's, fed Rating objects that read the same mu and sigma."""
    env = trueskill.TrueSkill(tau=rater.tau, draw_probability=rater.draw_probability, backend=None)
    held = [trueskill.Rating(*rating) for rating in ratings]
    skills = [Skill(r.mu, r.sigma) for r in held]  # a Rating keeps 1/sigma^2: its read-back may differ
    try:
        expected = [(r.mu, r.sigma) for (r,) in env.rate([(r,) for r in held], ranks=ranks)]
    except (FloatingPointError, ValueError) as error:
        # a result too unlikely for floats (or a precision gone negative): the same error
        with pytest.raises(type(error), match=str(error)):
            rater.rate(skills, ranks)
        raise
    got = rater.rate(skills, ranks)
    assert [tuple(r) for r in got] == expected, (skills, ranks, rater.tau, rater.draw_probability)


def random_ranks(rng: random.Random, seats: int) -> list[int]:
    shape = rng.randrange(5)
    if shape == 0:
        return [0] * seats  # everyone tied
    if shape == 1:
        return rng.sample(range(seats), seats)  # a strict order
    if shape == 2:  # forfeits tie for last, below the others' order
        lines = [
            SeatLine(f"p{i}", 0, rng.randrange(1, seats + 1), rng.choice([None, None, "timeout"]))
            for i in range(seats)
        ]
        return effective_ranks(lines)
    return [rng.randrange(seats) for _ in range(seats)]


def random_skill(rng: random.Random) -> Skill:
    kind = rng.randrange(4)
    if kind == 0:
        return skill(25.0, 25 / 3)  # a newcomer
    if kind == 1:  # a settled bot
        return skill(rng.uniform(10, 45), rng.uniform(0.8, 3))
    if kind == 2:  # extremes: far means, tiny and huge uncertainties
        return skill(rng.uniform(-200, 300), rng.choice([rng.uniform(0.01, 0.2), rng.uniform(20, 80)]))
    return skill(rng.uniform(-5, 60), rng.uniform(0.2, 12))


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_thousands_of_random_matches_rate_exactly_as_the_library(seats: int) -> None:
    rng = random.Random(seats)
    raised = 0
    for _ in range(1000):
        rater = FfaRater(tau=rng.choice(TAUS), draw_probability=rng.choice(DRAWS))
        try:
            compare(rater, [random_skill(rng) for _ in range(seats)], random_ranks(rng, seats))
        except (FloatingPointError, ValueError):
            raised += 1
    assert raised < 100  # the extremes sometimes overflow; most matches must be compared


def test_ties_draws_and_upsets_in_every_shape() -> None:
    rater = FfaRater()
    even = [rater.create() for _ in range(4)]
    cases = [
        (even, [0, 0, 0, 0]),
        (even, [0, 1, 2, 3]),
        (even, [3, 2, 1, 0]),
        (even, [0, 0, 1, 1]),
        (even, [1, 0, 1, 2]),
        ([skill(40, 1), skill(10, 1), skill(25, 8)], [2, 0, 1]),  # an upset
        ([skill(25, 8), skill(25, 8)], [0, 0]),
        ([skill(30.5, 0.5), skill(30.5, 0.5)], [1, 0]),
    ]
    for ratings, ranks in cases:
        compare(rater, ratings, ranks)


def test_a_message_of_zero_precision_is_left_to_the_library(monkeypatch: pytest.MonkeyPatch) -> None:
    rater = FfaRater(draw_probability=0.0)
    consulted = []
    rate = rater.env.rate
    monkeypatch.setattr(
        rater.env, "rate", lambda *args, **kwargs: consulted.append(1) or rate(*args, **kwargs)
    )
    ratings = [Skill(134.3178101442512, 0.12471889070305663), rater.create(), rater.create()]
    got = rater.rate(ratings, [0, 2, 1])  # a far-ahead favourite: one difference's precision underflows
    assert consulted
    env = trueskill.TrueSkill(draw_probability=0.0, backend=None)
    expected = env.rate([(r,) for r in ratings], ranks=[0, 2, 1])  # it reads only mu and sigma
    assert [tuple(r) for r in got] == [(r.mu, r.sigma) for (r,) in expected]


def test_skill_reads_back_what_a_library_rating_holds() -> None:
    rng = random.Random(3)
    for _ in range(1000):
        mu, sigma = rng.uniform(-100, 100), rng.uniform(0.001, 50)
        rating = trueskill.Rating(mu, sigma)
        assert skill(mu, sigma) == (rating.mu, rating.sigma)
    env = trueskill.TrueSkill(backend=None)
    assert FfaRater().create() == tuple(env.create_rating())
    assert FfaRater().create(31.25) == tuple(env.create_rating(mu=31.25))


def test_a_lone_player_or_a_rank_missing_is_refused() -> None:
    rater = FfaRater()
    with pytest.raises(ValueError, match="two or more"):
        rater.rate([rater.create()], [0])
    with pytest.raises(ValueError, match="one rank each"):
        rater.rate([rater.create(), rater.create()], [0])


def season(rng: random.Random, count: int) -> list[list[SeatLine]]:
    """Results of a season's worth of matches of 2 to 4 seats among 30 agents, forfeits included."""
    agents = [f"bot{i}" for i in range(30)]
    strength = {agent: rng.gauss(0, 1) for agent in agents}
    matches = []
    for _ in range(count):
        group = rng.sample(agents, rng.choice([2, 3, 4]))
        scores = {agent: round(10 * strength[agent] + rng.gauss(0, 8)) for agent in group}
        places = sorted(set(scores.values()), reverse=True)
        matches.append(
            [
                SeatLine(
                    agent,
                    scores[agent],
                    1 + places.index(scores[agent]),
                    "crash" if rng.random() < 0.03 else None,
                )
                for agent in group
            ]
        )
    return matches


def test_a_replayed_season_gives_the_library_table_to_the_last_digit() -> None:
    matches = season(random.Random(11), 3000)
    inherits = {"bot29": "bot3"}
    env = trueskill.TrueSkill(draw_probability=0.10, backend=None)
    ratings: dict[str, trueskill.Rating] = {}
    for seats in matches:  # the library, fed as the tally feeds it
        for seat in seats:
            if seat.agent not in ratings:
                before = ratings.get(inherits.get(seat.agent, ""))
                ratings[seat.agent] = env.create_rating(mu=before.mu if before is not None else env.mu)
        rated = env.rate([(ratings[seat.agent],) for seat in seats], ranks=effective_ranks(seats))
        for seat, (rating,) in zip(seats, rated, strict=True):
            ratings[seat.agent] = rating
    table = leaderboard(matches, inherits=inherits)
    expected = sorted(ratings, key=lambda agent: (-(ratings[agent].mu - 3 * ratings[agent].sigma), agent))
    assert [row.agent for row in table] == expected
    assert [(row.mu, row.sigma) for row in table] == [(ratings[a].mu, ratings[a].sigma) for a in expected]


def test_the_season_matchmaker_rates_as_the_library_in_both_phases() -> None:
    rng = random.Random(5)
    policy = MatchmakingPolicy()
    maker = Matchmaker(policy, seed=5)
    names = [f"bot{i}" for i in range(12)]
    for name in names:
        maker.join(name)
    for phase, tau in (("open", policy.tau), ("final", 0.0)):
        if phase == "final":
            maker.env = maker.final_env
        env = trueskill.TrueSkill(draw_probability=policy.draw_probability, tau=tau, backend=None)
        for _ in range(200):
            group = rng.sample(names, rng.choice([2, 3, 4]))
            places = [rng.randrange(1, len(group) + 1) for _ in group]
            teams = [(maker.rating(name),) for name in group]
            expected = [(r.mu, r.sigma) for (r,) in env.rate(teams, ranks=places)]
            maker.record(group, places, [False] * len(group))
            held = [
                (float(maker.mu[maker.index[name]]), float(maker.sigma[maker.index[name]])) for name in group
            ]
            assert held == expected

"""Rating speed: one TrueSkill update, the order-free MLE fit of a ladder, the SPRT's log-likelihood ratio.

Figures (median and spread over repeats, all measured in this run):
- one TrueSkill update of a free-for-all match of 2, 3 and 4 seats (fixed random ratings and
  outcomes, ties included), CPU per match: the `trueskill` library against
  arena/tournament/stats/trueskill_ffa.py, whose numbers it checks are the library's;
- MLE fit (arena/tournament/stats/ratings_mle.py, intervals included) of simulated ladders: 8 agents in
  2- and 4-seat matches, 500 and 5000 matches, one deal per 2 matches (duplicate seating);
- one GSPRT log-likelihood ratio (arena/tournament/stats/sprt.py) for pentanomial counts, as `arena compare`
  computes after every deal.
"""

from __future__ import annotations

import math
import random
import statistics
import time

import trueskill

from arena.tournament.stats.elo import ELO_PER_NAT
from arena.tournament.stats.ratings import SeatLine
from arena.tournament.stats.ratings_mle import mle_ratings
from arena.tournament.stats.sprt import log_likelihood_ratio
from arena.tournament.stats.trueskill_ffa import FfaRater, Skill

AGENTS = {f"bot{i}": 50.0 * (i - 3.5) for i in range(8)}


def ladder(matches: int, seats: int, seed: int) -> list[tuple[int, list[SeatLine]]]:
    rng = random.Random(seed)
    results = []
    for index in range(matches):
        group = rng.sample(sorted(AGENTS), seats)
        utility = {n: AGENTS[n] / ELO_PER_NAT - math.log(-math.log(rng.random())) for n in group}
        order = sorted(group, key=lambda n: -utility[n])
        results.append((index // 2, [SeatLine(n, 0, order.index(n) + 1) for n in group]))
    return results


def timed(action, repeats: int) -> tuple[float, float, float]:
    """Median, min and max seconds of ``repeats`` calls."""
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times), min(times), max(times)


def trueskill_updates(seats: int, count: int = 1000) -> None:
    """CPU per update, library and FfaRater, on the same ``count`` matches (the best of 3 runs)."""
    rng = random.Random(seats)
    rater = FfaRater()
    held = [
        [trueskill.Rating(rng.uniform(15, 35), rng.uniform(0.8, 25 / 3)) for _ in range(seats)]
        for _ in range(count)
    ]
    ranks = [[rng.randrange(seats) for _ in range(seats)] for _ in range(count)]
    skills = [[Skill(r.mu, r.sigma) for r in group] for group in held]
    groups = [[(r,) for r in group] for group in held]
    library, ours = [], []
    for _ in range(3):
        started = time.process_time()
        expected = [rater.env.rate(group, ranks=rank) for group, rank in zip(groups, ranks, strict=True)]
        library.append((time.process_time() - started) / count)
        started = time.process_time()
        got = [rater.rate(group, rank) for group, rank in zip(skills, ranks, strict=True)]
        ours.append((time.process_time() - started) / count)
    same = all(
        [tuple(r) for r in mine] == [(r.mu, r.sigma) for (r,) in theirs]
        for mine, theirs in zip(got, expected, strict=True)
    )
    print(
        f"TrueSkill update, {seats} seats: library {1000 * min(library):.3f} ms, "
        f"FfaRater {1000 * min(ours):.4f} ms CPU a match ({min(library) / min(ours):.0f}x; "
        f"{'the same numbers' if same else 'NUMBERS DIFFER'}, {count} matches, best of 3)"
    )


def main() -> None:
    for seats in (2, 3, 4):
        trueskill_updates(seats)
    for matches in (500, 5000):
        for seats in (2, 4):
            data = ladder(matches, seats, seed=matches + seats)
            median, low, high = timed(lambda data=data: mle_ratings(data), repeats=7)
            print(
                f"MLE fit, {matches} matches of {seats} seats, 8 agents: "
                f"median {1000 * median:.1f} ms (min {1000 * low:.1f}, max {1000 * high:.1f}, 7 runs)"
            )
    counts = [12, 80, 190, 85, 15]
    median, low, high = timed(lambda: [log_likelihood_ratio(counts, 0, 10) for _ in range(1000)], repeats=7)
    print(
        f"SPRT LLR, pentanomial: median {1000 * median:.0f} us per call "
        f"(min {1000 * low:.0f}, max {1000 * high:.0f}, 7 runs of 1000)"
    )


if __name__ == "__main__":
    main()

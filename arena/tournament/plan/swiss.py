"""The swiss format: a living ladder plays its most informative groups first, round by round.

A round robin plays every group of agents, however clear the table already is. A swiss ladder
instead looks at the results so far before each round:

- each agent whose rating is still **uncertain** (its MLE 95% interval wider than
  ``target_interval`` Elo, or no interval yet), widest first, is grouped with the free agents
  that give the highest TrueSkill **match quality** (the chance of a draw: agents close in
  rating, whose result is hardest to predict and so tells the most), discounted by how often
  that group has met already (``quality / (1 + meetings)``), so pairs do not repeat needlessly;
- each group plays its next deal in every seat rotation, as in a round robin (the same seeds:
  the deal of a group depends only on its names and the deal number);
- it stops when every active agent's interval is narrower than ``target_interval``, or after
  ``max_matches`` matches (default: as many as the round robin of the same ladder would play,
  at most a ladder's limit of matches).

An agent added to a running swiss ladder is uncertain, so it plays at once. docs/ladders.md
describes the keys; bench/swiss_vs_round_robin.py measures it against a round robin.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from itertools import combinations

import trueskill

from arena.tournament.plan.growth import deal_of
from arena.tournament.plan.ladder import MAX_MATCHES, Ladder
from arena.tournament.plan.schedule import ScheduledMatch, iter_schedule
from arena.tournament.stats.ratings import leaderboard
from arena.tournament.stats.report import seat_lines
from arena.tournament.store.api import LadderRun, StoredMatch

DRAW_PROBABILITY = 0.10  # as the leaderboard's TrueSkill (arena/tournament/stats/ratings.py)
# Deals an agent plays at least before its interval may count as settled: the first few results
# give intervals far too narrow to trust (the fit's normal approximation and its prior).
MIN_DEALS = 4


def round_robin_size(ladder: Ladder) -> int:
    """How many matches the round robin of ``ladder``'s entrants would play."""
    return replace(ladder, format="round-robin").match_count


def max_matches(ladder: Ladder) -> int:
    """Where a swiss ladder stops at the latest: its ``max_matches``, else the round robin's size
    up to a ladder's limit (MAX_MATCHES: a swiss ladder of many agents never plays the round robin)."""
    return ladder.max_matches or min(round_robin_size(ladder), MAX_MATCHES)


def interval_widths(done: Sequence[StoredMatch], players: int) -> dict[str, float | None]:
    """Each agent's MLE 95% interval width in Elo; None while it has no interval or has played
    fewer than MIN_DEALS deals (``players`` matches a deal)."""
    from arena.tournament.stats.ratings_mle import mle_ratings  # numpy and scipy: only when needed

    fits = mle_ratings((match.seed, seat_lines(match)) for match in done)
    return {
        agent: None
        if fit.low is None or fit.high is None or fit.matches < MIN_DEALS * players
        else fit.high - fit.low
        for agent, fit in fits.items()
    }


def uncertain(
    names: Sequence[str],
    widths: Mapping[str, float | None],
    target: float | None,
    played: Mapping[str, int] | None = None,
) -> list[str]:
    """The agents of ``names`` whose rating is still uncertain (with no ``target``: every agent),
    the most uncertain first: no interval yet before the widest, then fewest matches ``played``."""

    def width(name: str) -> float:
        found = widths.get(name)
        return float("inf") if found is None else found

    def order(name: str) -> tuple[float, int, str]:
        return (-width(name), (played or {}).get(name, 0), name)

    return sorted((name for name in names if target is None or width(name) > target), key=order)


def next_round(
    ladder: Ladder, done: Sequence[StoredMatch], meetings: Counter[frozenset[str]], leaders: Sequence[str]
) -> list[tuple[str, ...]]:
    """The groups of the next round: each of ``leaders`` (in order) still free is grouped with the
    free agents of highest match quality, discounted by the group's earlier meetings."""
    env = trueskill.TrueSkill(draw_probability=DRAW_PROBABILITY, backend=None)
    ratings = {row.agent: env.create_rating(row.mu, row.sigma) for row in leaderboard(map(seat_lines, done))}
    order = [entrant.name for entrant in ladder.entrants]
    free = list(order)
    groups = []
    for leader in leaders:
        if leader not in free:
            continue
        others = [name for name in free if name != leader]

        def value(group: tuple[str, ...]) -> float:
            teams = [(ratings.get(name, env.create_rating()),) for name in group]
            return env.quality(teams) / (1 + meetings[frozenset(group)])

        candidates = [(leader, *rest) for rest in combinations(others, ladder.players - 1)]
        if not candidates:
            break
        best = max(candidates, key=value)  # ties: the first in file order (max keeps the first)
        groups.append(tuple(sorted(best, key=order.index)))
        free = [name for name in free if name not in best]
    return groups


def deal_matches(ladder: Ladder, group: Sequence[str], deal: int, base_seed: int) -> list[ScheduledMatch]:
    """Deal number ``deal`` of ``group`` in every seat rotation: the matches a round robin of the
    same ladder plays for it (same keys, same seed), not yet numbered."""
    entrants = tuple(ladder.entrant(name) for name in group)
    alone = replace(
        ladder, format="round-robin", entrants=entrants, challenger=None, matches_per_pairing=deal + 1
    )
    return list(iter_schedule(alone, base_seed))[-ladder.players :]


def plan_round(stored: Sequence[StoredMatch], run: LadderRun, ladder: Ladder) -> list[ScheduledMatch]:
    """The next round of a swiss run whose matches so far (any status) are ``stored``, numbered
    after them; empty when it is over."""
    limit = max_matches(ladder)
    room = (limit - len(stored)) // ladder.players  # deals that still fit under max_matches
    done = [match for match in stored if match.status == "done"]
    active = [entrant.name for entrant in ladder.entrants]
    played = Counter(seat.agent for match in done for seat in match.seats)
    leaders = uncertain(active, interval_widths(done, ladder.players), ladder.target_interval, played)
    if room <= 0 or not leaders:
        return []
    deals = Counter(deal_of(match.key)[0] for match in stored)
    meetings: Counter[frozenset[str]] = Counter({group: n // ladder.players for group, n in deals.items()})
    base_seed = ladder.seed if run.base_seed is None else run.base_seed
    next_index = max((match.idx for match in stored), default=-1) + 1
    matches: list[ScheduledMatch] = []
    for group in next_round(ladder, done, meetings, leaders)[:room]:
        numbers = [
            number for names, number in map(deal_of, (m.key for m in stored)) if names == frozenset(group)
        ]
        deal = max(numbers, default=-1) + 1
        for match in deal_matches(ladder, group, deal, base_seed):
            matches.append(replace(match, index=next_index + len(matches)))
    return matches

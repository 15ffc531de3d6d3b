"""ratings.RateMemo and the after_match hook (used by the web arena's live leaderboard)."""

from __future__ import annotations

import random

from arena.tournament.stats.ratings import RateMemo, SeatLine, leaderboard


def results(count: int, seed: int = 1) -> list[list[SeatLine]]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        a, b = rng.sample(["a", "b", "c", "d"], 2)
        sa, sb = rng.randrange(30), rng.randrange(30)
        fault = "timeout" if rng.random() < 0.05 else None
        out.append([SeatLine(a, sa, 1 + (sb > sa), fault), SeatLine(b, sb, 1 + (sa > sb))])
    return out


def test_memo_gives_the_same_table_and_reuses_the_unchanged_prefix():
    matches = results(200)
    memo = RateMemo()
    assert leaderboard(matches[:150], memo=memo) == leaderboard(matches[:150])
    seen = len(memo.updates)
    assert leaderboard(matches, memo=memo) == leaderboard(matches)
    assert len(memo.updates) - seen <= 50  # only the 50 new matches were rated afresh
    shuffled = matches[:100] + matches[101:] + matches[100:101]  # a late result changes the tail
    assert leaderboard(shuffled, memo=memo) == leaderboard(shuffled)


def test_after_match_sees_every_rated_match_and_ends_at_the_table():
    matches = results(40)
    snapshots = []
    table = leaderboard(matches, after_match=lambda ratings: snapshots.append(dict(ratings)))
    assert len(snapshots) == len(matches)
    final = {row.agent: row.mu for row in table}
    assert {agent: rating.mu for agent, rating in snapshots[-1].items()} == final

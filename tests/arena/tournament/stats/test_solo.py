"""Solo ladders ranked by score (arena/tournament/stats/solo.py): margins, paired gaps, win rates, and a
real solo ladder on Zapotec against Cocijobot ranked by the agents' margins."""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path

import pytest

from arena.tournament.stats.ratings import SeatLine
from arena.tournament.stats.solo import mean_interval, paired_gap, solo_rows
from tests.support.web_store import SOLO, arena

T2 = 4.302652729911275  # Student's t, 97.5% quantile, 2 degrees of freedom (any table: 4.303)
BOT = "cocijobot"


def match(deal: int, *seats: tuple[str, int], automaton: int) -> tuple[int, list[SeatLine]]:
    """A solo match on ``deal``: the agents' (name, score), then the automaton; ranks by score."""
    scores = [score for _, score in seats] + [automaton]
    lines = [*((name, score) for name, score in seats), (BOT, automaton)]
    return deal, [SeatLine(name, score, 1 + sum(other > score for other in scores)) for name, score in lines]


# The automaton scores very differently from deal to deal (the deal's luck); "a" is a little
# ahead of "b" on every deal.
RECORDS = [
    match(1, ("a", 70), automaton=40),  # margin +30
    match(1, ("b", 67), automaton=40),  # +27
    match(2, ("a", 20), automaton=10),  # +10
    match(2, ("b", 18), automaton=10),  # +8
    match(3, ("a", 50), automaton=0),  # +50
    match(3, ("b", 44), automaton=0),  # +44
]


def test_rows_rank_by_mean_margin_with_hand_computed_intervals():
    first, second = solo_rows(RECORDS)
    assert [first["agent"], second["agent"]] == ["a", "b"]
    # a: margins 30, 10, 50: mean 30, sd 20, half-width t * 20 / sqrt(3)
    half = T2 * 20 / math.sqrt(3)
    assert first["mean_margin"] == 30
    assert first["margin_low"] == pytest.approx(30 - half, abs=1e-3)
    assert first["margin_high"] == pytest.approx(30 + half, abs=1e-3)
    assert first["gap_above"] is None and first["gap_deals"] is None
    # b - paired with a on deals 1-3: differences 3, 2, 6: mean 11/3, sd sqrt(13/3)
    gap_half = T2 * math.sqrt(13 / 3) / math.sqrt(3)
    assert second["gap_above"] == pytest.approx(11 / 3, abs=1e-3)
    assert second["gap_low"] == pytest.approx(11 / 3 - gap_half, abs=1e-3)  # -1.505
    assert second["gap_high"] == pytest.approx(11 / 3 + gap_half, abs=1e-3)  # +8.838
    assert second["gap_deals"] == 3
    # the paired interval is far narrower than either agent's own (the deal's luck cancels)
    assert second["gap_high"] - second["gap_low"] < (first["margin_high"] - first["margin_low"]) / 9
    assert first["mean_score"] == pytest.approx(140 / 3, abs=1e-3)
    assert (first["deals"], first["matches"], first["faults"]) == (3, 3, 0)


def test_the_automaton_is_not_a_row_and_win_rates_count_ties_half():
    records = [
        match(1, ("a", 5), automaton=9),
        match(2, ("a", 9), automaton=9),  # level with the automaton: half a win
        match(3, ("a", 12), automaton=9),
        match(4, ("a", 12), automaton=9),
    ]
    (row,) = solo_rows(records)
    assert row["agent"] == "a"
    assert row["win_rate"] == 2.5 / 4
    # Wilson, 2.5 of 4: (p + z²/2n ± z sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n)
    z, n, p = 1.959963984540054, 4, 0.625
    centre, spread = p + z * z / (2 * n), z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    assert row["win_low"] == pytest.approx((centre - spread) / (1 + z * z / n), abs=1e-3)
    assert row["win_high"] == pytest.approx((centre + spread) / (1 + z * z / n), abs=1e-3)


def test_order_follows_scores_not_wins():
    """Two agents that always lose, one scoring far more, below a lucky one."""
    records = []
    for deal in range(8):
        records.append(match(deal, ("steady", 12), automaton=30))  # never wins, 18 behind
        records.append(
            match(deal, ("lucky", 31 if deal == 0 else 2), automaton=30)
        )  # one win, else 28 behind
    rows = solo_rows(records)
    assert [row["agent"] for row in rows] == ["steady", "lucky"]
    assert rows[1]["win_rate"] > rows[0]["win_rate"] == 0


def test_gap_is_paired_over_shared_deals_only():
    records = [*RECORDS, match(4, ("a", 99), automaton=0)]  # a deal "b" has not played yet
    first, second = solo_rows(records)
    assert first["deals"] == 4 and second["gap_deals"] == 3
    assert second["gap_above"] == pytest.approx(11 / 3, abs=1e-3)


def test_several_agents_a_match_each_against_the_automaton_in_the_last_seat():
    """With players = 2 a deal has two seatings; an agent's deal margin is their mean."""
    records = [
        match(1, ("a", 10), ("b", 4), automaton=6),
        match(1, ("b", 8), ("a", 12), automaton=6),
    ]
    by_agent = {row["agent"]: row for row in solo_rows(records)}
    assert by_agent.keys() == {"a", "b"}
    assert by_agent["a"]["mean_margin"] == 5  # (4 + 6) / 2
    assert by_agent["b"]["mean_margin"] == 0  # (-2 + 2) / 2
    assert by_agent["a"]["deals"] == 1 and by_agent["a"]["matches"] == 2
    assert by_agent["a"]["margin_low"] is None  # one deal: no interval
    assert by_agent["b"]["gap_above"] == 5 and by_agent["b"]["gap_low"] is None


def test_helpers_on_small_samples():
    assert mean_interval([4.0]) == (4.0, None, None)
    mean, low, high = mean_interval([1.0, 3.0])  # sd sqrt(2), t(1 df) = 12.706
    assert mean == 2 and high - mean == pytest.approx(12.7062047, abs=1e-4) and mean - low == high - mean
    assert paired_gap({1: 5.0}, {2: 1.0}) == (None, None, None, 0)


def test_a_real_solo_ladder_is_ranked_by_margin(tmp_path: Path):
    """random, first-option and greedy on Zapotec against Cocijobot, on shared deals (SOLO's)."""
    root = Path(__file__).resolve().parents[4]
    (tmp_path / "solo.toml").write_text(
        SOLO.format(first_option=root / "examples" / "bots" / "first_option.py")
    )
    db = str(tmp_path / "solo.db")
    arena("run", str(tmp_path / "solo.toml"), "--db", db, "--quiet", "--jobs", "2")
    exported = json.loads(arena("export", "--db", db, "--format", "json").stdout)
    seeds = {row["agent"]: set() for row in exported}
    for row in exported:
        seeds[row["agent"]].add(row["seed"])
    assert len({frozenset(deals) for deals in seeds.values()}) == 1  # the same deals for everyone
    # each agent's mean margin, from the exported seats
    by_match: dict[int, dict[str, int]] = {}
    for row in exported:
        by_match.setdefault(row["match"], {})[row["agent"]] = row["score"]
    margins: dict[str, list[int]] = {}
    for seats in by_match.values():
        (agent,) = set(seats) - {BOT}
        margins.setdefault(agent, []).append(seats[agent] - seats[BOT])
    expected = sorted(margins, key=lambda agent: -statistics.mean(margins[agent]))
    rows = json.loads(arena("leaderboard", "web-solo", "--db", db, "--format", "json").stdout)
    assert [row["agent"] for row in rows] == expected
    assert expected[0] == "greedy"  # far the strongest of the three
    assert BOT not in {row["agent"] for row in rows}
    for row in rows:
        assert row["mean_margin"] == pytest.approx(statistics.mean(margins[row["agent"]]), abs=1e-3)
    table = arena("leaderboard", "web-solo", "--db", db, "--method", "mle")
    assert "ranked by mean margin against the automaton" in table.stdout
    assert "gap to above" in table.stdout and "MLE" not in table.stdout
    assert "note: 'web-solo' is a solo ladder" in table.stderr and "not by mle" in table.stderr
    assert table.stderr.count("\n") == 1
    csv = arena("leaderboard", "web-solo", "--db", db, "--format", "csv").stdout
    assert csv.splitlines()[0].startswith("rank,agent,mean_margin,margin_low,margin_high,gap_above")

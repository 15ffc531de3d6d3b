"""The swiss format: informative pairings first, a stop at target_interval, fewer matches than a round robin."""

from __future__ import annotations

import json
import random

import pytest

from arena.registry.plugins import discover
from arena.tournament.plan.ladder import LadderError, parse_ladder
from arena.tournament.plan.runs import open_run
from arena.tournament.plan.swiss import interval_widths, max_matches, round_robin_size
from arena.tournament.run.play import play_swiss
from arena.tournament.run.runner import RunReport
from arena.tournament.stats.report import leaderboard_rows
from arena.tournament.store.sqlite import Store
from tests.arena.tournament.store.test_store import outcome_for
from tests.support.ladder_runs import arena

STRENGTH = {f"s{k}": 150 * k for k in range(8)}  # Elo: each agent clearly above the one before


def ladder_text(fmt: str, extra: str = "", repeats: int = 4, names=STRENGTH) -> str:
    agents = "".join(
        f'[[agents]]\nname = "{name}"\nagent = "random"\noptions = {{ seed = {i} }}\n'
        for i, name in enumerate(names)
    )
    return f'name = "sw"\ngame = "goofspiel"\nformat = "{fmt}"\nmatches_per_pairing = {repeats}\nseed = 5\n{extra}\n{agents}'


def play_by_strength(store: Store):
    """A stand-in for the workers: the stronger agent wins as often as their Elo gap says."""

    def play_round(pending) -> RunReport:
        for match in pending:
            a, b = match.entrants
            rng = random.Random(f"{match.seed}:{a}:{b}")
            a_wins = rng.random() < 1 / (1 + 10 ** ((STRENGTH[b] - STRENGTH[a]) / 400))
            store.mark_running(match.id)
            store.record_outcome(match, outcome_for(match, [1, 0] if a_wins else [0, 1]))
        return RunReport(played=len(pending))

    return play_round


def test_swiss_plays_fewer_matches_than_a_round_robin_and_ranks_the_best_first(tmp_path):
    registry = discover()
    swiss = parse_ladder(ladder_text("swiss", "target_interval = 400"), registry)
    with Store(tmp_path / "t.db") as store:
        run = open_run(store, swiss)
        assert store.matches(run.id) == []  # rounds are planned as it goes
        report = play_swiss(store, run, swiss, play_by_strength(store))
        done = store.matches(run.id, statuses=("done",))
        rows = leaderboard_rows(store, run, "mle")
        widths = interval_widths(done, 2)
    rr = round_robin_size(swiss)
    assert rr == 28 * 2 * 4 and max_matches(swiss) == rr
    assert report.played == len(done) < rr // 4  # fewer than one round robin deal per pairing
    assert [row["agent"] for row in rows[:3]] == ["s7", "s6", "s5"]
    assert all(width is not None and width <= 400 for width in widths.values())  # it stopped on target
    # pairings: agents close in strength meet more than far apart ones
    gaps = [abs(STRENGTH[m.entrants[0]] - STRENGTH[m.entrants[1]]) for m in done]
    assert sum(gaps) / len(gaps) < sum(abs(a - b) for a in STRENGTH.values() for b in STRENGTH.values()) / 56


def test_swiss_stops_at_max_matches_and_a_new_agent_plays_at_once(tmp_path):
    registry = discover()
    few = list(STRENGTH)[:4]
    capped = parse_ladder(ladder_text("swiss", "max_matches = 12", names=few), registry)
    with Store(tmp_path / "t.db") as store:
        run = open_run(store, capped)
        play_swiss(store, run, capped, play_by_strength(store))
        assert len(store.matches(run.id)) == 12
        grown = parse_ladder(ladder_text("swiss", "max_matches = 16", names=[*few, "s7"]), registry)
        open_run(store, grown)
        play_swiss(store, run, grown, play_by_strength(store))
        matches = store.matches(run.id)
    assert len(matches) == 16 and [m.idx for m in matches] == list(range(16))
    assert all("s7" in m.entrants for m in matches[12:14])  # the newcomer, the most uncertain, plays first


@pytest.mark.parametrize(
    ("extra", "fmt", "message"),
    [
        ("target_interval = 100", "round-robin", "key 'target_interval' is only used with format = 'swiss'"),
        ("max_matches = 0", "swiss", "max_matches must be above 0, got 0"),
        ('target_interval = "wide"', "swiss", "key 'target_interval' in the ladder must be a number"),
    ],
)
def test_swiss_keys_are_checked(extra, fmt, message):
    with pytest.raises(LadderError, match=message):
        parse_ladder(ladder_text(fmt, extra), discover())


def test_arena_run_plays_a_swiss_ladder_and_marks_uncertain_ratings(tmp_path):
    ladder = tmp_path / "sw.toml"
    extra = "target_interval = 50\nmax_matches = 4\n[options]\ncards = 4"
    ladder.write_text(ladder_text("swiss", extra, names=["s0", "s1", "s2"]))
    db = str(tmp_path / "t.db")
    out = arena("run", str(ladder), "--db", db, "--quiet")
    assert "4/4 matches done, 4 played now" in out.stdout
    rows = json.loads(arena("leaderboard", "--db", db, "-f", "json").stdout)
    assert all(row["uncertain"] for row in rows)  # 4 matches cannot pin a rating to 50 Elo
    table = arena("leaderboard", "--db", db).stdout
    assert "still uncertain: interval wider than target_interval = 50 Elo" in table

"""The ladder page's tally fed only the matches done since its last look gives the tables of a
full replay: results arriving out of schedule order, a result taken back, a long season's chart."""

from __future__ import annotations

import random

import pytest

import arena.tournament.stats.ladder_tally as tally_module
from arena.registry.plugins import discover
from arena.tournament.plan.ladder import parse_ladder
from arena.tournament.plan.runs import open_run
from arena.tournament.plan.schedule import make_schedule
from arena.tournament.stats.fault_lines import agent_faults
from arena.tournament.stats.ladder_tally import LadderTally, SettledTally
from arena.tournament.stats.ratings import leaderboard
from arena.tournament.stats.report import done_lines, standings
from arena.tournament.store.sqlite import Store
from tests.arena.tournament.store.test_reads import LADDER, finish


@pytest.fixture
def season(tmp_path):
    store = Store(tmp_path / "tally.db")
    ladder = parse_ladder(LADDER, discover(), source="tally.toml")
    run = open_run(store, ladder, make_schedule(ladder))
    yield store, run
    store.close()


def full(store, run):
    """The tally of a replay from scratch."""
    return SettledTally(run.id, None, {}).current(store)


def same_tables(a: LadderTally, b: LadderTally) -> None:
    assert a.ratings.standings() == b.ratings.standings()
    assert a.finished()[1] == b.finished()[1]
    assert a.met == b.met and a.ahead == b.ahead
    assert a.faulted == b.faulted


def test_results_out_of_order_give_the_tables_of_a_full_replay(season):
    store, run = season
    rng = random.Random(5)
    pending = store.pending(run.id)
    order = list(range(len(pending)))
    rng.shuffle(order)  # parallel workers finish in any order
    kept = SettledTally(run.id, None, {})
    for step, n in enumerate(order):
        finish(store, pending[n], rng, fault_seat=0 if step % 9 == 0 else None)
        if step % 4 == 0:
            with store.snapshot():
                same_tables(kept.current(store), full(store, run))
    final = kept.current(store)
    same_tables(final, full(store, run))
    assert final.ratings.standings() == standings(store, run)
    assert final.ratings.standings() == leaderboard(lines for _, lines in done_lines(store, run))
    # the forfeits gathered as it rated are those the store lists, and make the same faults table
    assert final.faulted and sum(map(len, final.faulted.values())) == len(store.fault_seats(run.id))
    assert agent_faults(store, run.id, faulted=final.faulted) == agent_faults(store, run.id)


def test_a_result_taken_back_is_replayed_from_scratch(season):
    store, run = season
    rng = random.Random(2)
    pending = store.pending(run.id)
    for match in pending[:10]:
        finish(store, match, rng)
    kept = SettledTally(run.id, None, {})
    kept.current(store)
    store.take_back([pending[3].id])
    same_tables(kept.current(store), full(store, run))
    finish(store, store.pending(run.id)[0], rng)
    same_tables(kept.current(store), full(store, run))


def test_a_long_season_keeps_a_bounded_chart_ending_at_its_last_match(season, monkeypatch):
    monkeypatch.setattr(tally_module, "CHART_POINTS", 3)
    store, run = season
    rng = random.Random(4)
    for match in store.pending(run.id)[:29]:
        finish(store, match, rng)
    tally = full(store, run)
    _, history = tally.finished()
    counts = [count for count, _ in next(iter(history.values()))]
    assert 3 <= len(counts) <= 2 * 3 + 1
    assert counts[-1] == tally.rated == 29
    assert counts == sorted(counts)


def test_a_slow_mle_fit_is_redone_at_most_once_a_minute_and_a_tenth_of_the_time(season, monkeypatch):
    store, run = season
    rng = random.Random(6)
    pending = store.pending(run.id)
    clock = [1000.0]
    monkeypatch.setattr(tally_module.time, "monotonic", lambda: clock[0])
    tables = tally_module.RunTables(run.id, None, {})
    for match in pending[:6]:
        finish(store, match, rng)
    first = tables.mle(store, run.id, 6)
    assert tables.mle(store, run.id, 6) is first  # nothing new: kept
    finish(store, pending[6], rng)
    second = tables.mle(store, run.id, 7)
    assert second is not first  # a fast fit is redone at every change
    tables.fit_seconds = 30.0  # as a season's fit takes: at most every 10 x 30 s
    for match in pending[7:9]:
        finish(store, match, rng)
    clock[0] += 299
    assert tables.mle(store, run.id, 9) is second  # stale: its figures lag
    clock[0] += 2
    third = tables.mle(store, run.id, 9)
    assert third is not second and third["a"].matches > second["a"].matches

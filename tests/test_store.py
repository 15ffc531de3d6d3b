"""The SQLite store: schema migration, resume bookkeeping, edited-ladder refusal, records."""

from __future__ import annotations

import sqlite3

import pytest

from arena.ladder import parse_ladder
from arena.match import MatchOutcome, SeatResult
from arena.plugins import discover
from arena.schedule import make_schedule
from arena.store import SCHEMA_VERSION, Store, StoreError, decode_record, encode_record

LADDER = """\
name = "store-test"
game = "goofspiel"
matches_per_pairing = 2
[[agents]]
name = "a"
agent = "random"
[[agents]]
name = "b"
agent = "random"
[[agents]]
name = "c"
agent = "prize-bidder"
"""


@pytest.fixture
def ladder():
    return parse_ladder(LADDER, discover(), source="store.toml")


def outcome_for(match, scores):
    ranks = [1 + sum(other > score for other in scores) for score in scores]
    seats = tuple(
        SeatResult(seat, agent, score, rank)
        for seat, (agent, score, rank) in enumerate(zip(match.spec.agents, scores, ranks, strict=True))
    )
    return MatchOutcome(match.spec, seats, {"moves": [[0, 1]] * 50, "seed": match.spec.seed})


def test_fresh_database_is_migrated_in_wal_mode(tmp_path):
    path = tmp_path / "t.db"
    with Store(path) as store:
        assert store.schema_version() == SCHEMA_VERSION
        assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    with Store(path) as store:  # reopening does not migrate twice
        assert store.schema_version() == SCHEMA_VERSION


def test_newer_schema_is_refused(tmp_path):
    path = tmp_path / "t.db"
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    with pytest.raises(StoreError, match="newer than this Tlachtli"):
        Store(path)


def test_run_is_resumed_and_only_unfinished_matches_are_pending(tmp_path, ladder):
    schedule = make_schedule(ladder)
    with Store(tmp_path / "t.db") as store:
        run = store.open_run(ladder)
        pending = store.pending(run.id)
        assert [m.idx for m in pending] == list(range(len(schedule))) == [m.index for m in schedule]
        first, second, third = pending[:3]
        store.mark_running(first.id)
        store.record_outcome(first, outcome_for(first, [3, 1]), seconds=0.5)
        store.mark_running(second.id)  # interrupted while running
        store.mark_running(third.id)
        store.mark_pending([third.id])  # cancelled cleanly
        assert store.counts(run.id) == {"pending": len(schedule) - 2, "running": 1, "done": 1, "aborted": 0}

    with Store(tmp_path / "t.db") as store:
        again = store.open_run(ladder)
        assert again.id == run.id
        assert store.reset_interrupted(run.id) == 1
        pending = store.pending(run.id)
        assert [m.idx for m in pending] == list(range(1, len(schedule)))
        done = store.matches(run.id, statuses=("done",))
        assert len(done) == 1 and done[0].attempts == 1 and done[0].seconds == 0.5
        assert [(s.agent, s.plugin, s.score, s.rank) for s in done[0].seats] == [
            ("a", "random", 3, 1),
            ("b", "random", 1, 2),
        ]
        with pytest.raises(StoreError, match="already done"):
            store.record_outcome(first, outcome_for(first, [3, 1]))


def test_edited_ladder_is_refused_unless_new(tmp_path):
    registry = discover()
    original = parse_ladder(LADDER, registry, source="store.toml")
    edited = parse_ladder(
        LADDER.replace("matches_per_pairing = 2", "matches_per_pairing = 3"), registry, source="store.toml"
    )
    with Store(tmp_path / "t.db") as store:
        first = store.open_run(original)
        with pytest.raises(StoreError, match="'store-test' .* was started from different content.*--new"):
            store.open_run(edited)
        fresh = store.open_run(edited, new=True)
        assert fresh.id != first.id and store.latest_run("store-test") == fresh
        assert len(store.pending(fresh.id)) == 3 * 3 * 2
        # a comment-only change is the same ladder: it resumes the latest run
        text = "# note\n" + LADDER.replace("matches_per_pairing = 2", "matches_per_pairing = 3  # more")
        same = parse_ladder(text, registry)
        assert store.open_run(same).id == fresh.id


def test_records_are_compressed_and_round_trip(tmp_path, ladder):
    record = {"moves": [[0, 1, 2]] * 200, "log": [{"event": "bid", "card": 3}] * 100}
    assert decode_record(encode_record(record)) == record
    assert len(encode_record(record)) < len(str(record)) / 10
    with Store(tmp_path / "t.db") as store:
        run = store.open_run(ladder)
        match = store.pending(run.id)[0]
        outcome = outcome_for(match, [2, 2])
        store.mark_running(match.id)
        store.record_outcome(match, outcome)
        assert store.record(match.id) == outcome.record
        assert [s.rank for s in store.matches(run.id, statuses=("done",))[0].seats] == [1, 1]


def test_matches_filter_by_agent_and_fault(tmp_path, ladder):
    with Store(tmp_path / "t.db") as store:
        run = store.open_run(ladder)
        pending = store.pending(run.id)
        for match in pending[:6]:
            outcome = outcome_for(match, [5, 1])
            if match.entrants[1] == "c":
                seats = (outcome.seats[0], SeatResult(1, "prize-bidder", 1, 2, fault="timeout"))
                outcome = MatchOutcome(outcome.spec, seats, outcome.record)
            store.mark_running(match.id)
            store.record_outcome(match, outcome)
        with_c = store.matches(run.id, agent="c")
        assert with_c and all("c" in m.entrants for m in with_c)
        faulted = store.matches(run.id, faults_only=True)
        assert faulted and all(any(s.fault == "timeout" for s in m.seats) for m in faulted)
        assert {m.entrants[1] for m in faulted} == {"c"}


def test_an_older_database_is_migrated_forward_keeping_its_data(tmp_path, ladder, monkeypatch):
    import arena.store as store_module

    path = tmp_path / "t.db"
    with Store(path) as store:
        run = store.open_run(ladder)
    upgrade = "ALTER TABLE matches ADD COLUMN note TEXT; UPDATE matches SET note = 'migrated'"
    monkeypatch.setattr(store_module, "MIGRATIONS", (*store_module.MIGRATIONS, upgrade))
    monkeypatch.setattr(store_module, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    with Store(path) as store:
        assert store.schema_version() == SCHEMA_VERSION + 1
        assert {row[0] for row in store.db.execute("SELECT note FROM matches")} == {"migrated"}
        assert len(store.pending(run.id)) == len(make_schedule(ladder))

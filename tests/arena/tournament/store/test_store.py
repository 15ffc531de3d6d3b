"""The stores (SQLite and PostgreSQL alike): schema migration, resume bookkeeping, edited-ladder refusal, records."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
import time

import pytest

from arena.match.spec import MatchOutcome, SeatResult
from arena.registry.plugins import discover
from arena.tournament.plan.ladder import parse_ladder
from arena.tournament.plan.runs import open_run
from arena.tournament.plan.schedule import make_schedule
from arena.tournament.store.api import MatchFilter, StoreError
from arena.tournament.store.opening import open_store
from arena.tournament.store.schema import SCHEMA_VERSION, SQLITE
from arena.tournament.store.sqlite import Store, decode_record, encode_record

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


def test_run_is_resumed_and_only_unfinished_matches_are_pending(store_db, ladder, monkeypatch):
    monkeypatch.setenv("TLACHTLI_LEASE_S", "1")
    schedule = make_schedule(ladder)
    with open_store(store_db) as store:
        run = open_run(store, ladder)
        pending = store.pending(run.id)
        assert [m.idx for m in pending] == list(range(len(schedule))) == [m.index for m in schedule]
        first, second, third = pending[:3]
        store.mark_running(first.id)
        store.record_outcome(first, outcome_for(first, [3, 1]), seconds=0.5)
        store.mark_running(second.id)  # interrupted while running
        store.mark_running(third.id)
        store.mark_pending([third.id])  # cancelled cleanly
        assert store.counts(run.id) == {"pending": len(schedule) - 2, "running": 1, "done": 1, "aborted": 0}

    with open_store(store_db) as store:
        again = open_run(store, ladder)
        assert again.id == run.id
        if not store.exclusive:  # a shared store: the match is the other runner's until its lease ends
            assert store.reset_interrupted(run.id) == 0
            assert not store.mark_running(second.id)
            time.sleep(1.1)
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


def test_an_incomparable_edit_is_refused_unless_new(store_db):
    registry = discover()
    original = parse_ladder(LADDER, registry, source="store.toml")
    reseeded = LADDER.replace("matches_per_pairing = 2", "matches_per_pairing = 2\nseed = 5")
    edited = parse_ladder(reseeded, registry, source="store.toml")
    with open_store(store_db) as store:
        first = open_run(store, original)
        with pytest.raises(StoreError, match="'store-test' .*: seed was 0 and is now 5: .*--new"):
            open_run(store, edited)
        fresh = open_run(store, edited, new=True)
        assert fresh.id != first.id and store.latest_run("store-test") == fresh
        assert len(store.pending(fresh.id)) == 3 * 2 * 2
        # a comment-only change is the same ladder: it resumes the latest run
        same = parse_ladder("# note\n" + reseeded.replace("seed = 5", "seed = 5  # fixed"), registry)
        assert open_run(store, same).id == fresh.id


def test_records_are_compressed_and_round_trip(store_db, ladder):
    record = {"moves": [[0, 1, 2]] * 200, "log": [{"event": "bid", "card": 3}] * 100}
    assert decode_record(encode_record(record)) == record
    assert len(encode_record(record)) < len(str(record)) / 10
    with open_store(store_db) as store:
        run = open_run(store, ladder)
        match = store.pending(run.id)[0]
        outcome = outcome_for(match, [2, 2])
        store.mark_running(match.id)
        store.record_outcome(match, outcome)
        assert store.record(match.id) == outcome.record
        assert [s.rank for s in store.matches(run.id, statuses=("done",))[0].seats] == [1, 1]


def test_matches_filter_by_agent_and_fault(store_db, ladder):
    with open_store(store_db) as store:
        run = open_run(store, ladder)
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
    import arena.tournament.store.schema as store_module

    path = tmp_path / "t.db"
    with Store(path) as store:
        run = open_run(store, ladder)
    upgrade = "ALTER TABLE matches ADD COLUMN note TEXT; UPDATE matches SET note = 'migrated'"
    monkeypatch.setattr(store_module, "MIGRATIONS", (*store_module.MIGRATIONS, upgrade))
    with Store(path) as store:
        assert store.schema_version() == SCHEMA_VERSION + 1
        assert {row[0] for row in store.db.execute("SELECT note FROM matches")} == {"migrated"}
        assert len(store.pending(run.id)) == len(make_schedule(ladder))


def test_a_version_1_database_is_migrated_with_its_results_kept(tmp_path, ladder):
    path = tmp_path / "old.db"
    old = sqlite3.connect(path, isolation_level=None)
    old.executescript(";".join(SQLITE.migration(0)) + "; PRAGMA user_version = 1;")
    old.execute(
        "INSERT INTO ladders (name, digest, game, format, source, config, created) VALUES ('x','d','goofspiel','round-robin','x.toml','{}','now')"
    )
    old.execute(
        "INSERT INTO matches (ladder_id, idx, key, seed, spec, entrants, status) VALUES (1, 0, 'a|b#0/r0', 9, ?, '[\"a\",\"b\"]', 'done')",
        (json.dumps(make_schedule(ladder)[0].spec.to_dict()),),
    )
    old.execute("INSERT INTO seats VALUES (1, 0, 'a', 'random', 3, 1, NULL)")
    old.close()
    with Store(path) as store:
        assert store.schema_version() == SCHEMA_VERSION
        [match] = store.matches(1)
        assert (match.status, match.seed, match.failures, match.reason) == ("done", 9, 0, None)
        assert match.seats[0].score == 3
        assert store.latest_run("x").base_seed is None
        assert store.counts(1)["done"] == 1  # the run's kept match count is filled in
        assert store.db.execute("PRAGMA foreign_key_check").fetchall() == []


def test_a_match_whose_worker_is_lost_too_often_is_aborted_with_the_reason(store_db, ladder):
    with open_store(store_db) as store:
        run = open_run(store, ladder)
        first = store.pending(run.id)[0]
        for attempt in range(1, 3):
            store.mark_running(first.id)
            assert not store.record_lost_worker(first.id, f"lost #{attempt}", max_failures=3)
        assert store.matches(run.id)[0].status == "pending"
        store.mark_running(first.id)
        assert store.record_lost_worker(first.id, "killed by SIGKILL", max_failures=3)
        aborted = store.matches(run.id, statuses=("aborted",))
        assert [m.id for m in aborted] == [first.id] and aborted[0].failures == 3
        assert aborted[0].reason == "its worker process was lost 3 times; last: killed by SIGKILL"
        assert first.id not in [m.id for m in store.pending(run.id)]  # not played again
        assert store.counts(run.id)["aborted"] == 1


def test_secret_ladder_gets_a_drawn_base_seed_kept_on_resume(store_db):
    secret = parse_ladder(LADDER.replace("game =", 'seed = "secret"\ngame ='), discover(), source="s.toml")
    with open_store(store_db) as store:
        run = open_run(store, secret)
        assert run.secret and run.base_seed not in (None, 0)
        assert [m.spec.seed for m in store.pending(run.id)] == [
            m.spec.seed for m in make_schedule(secret, run.base_seed)
        ]
        assert open_run(store, secret).base_seed == run.base_seed  # resumed, not drawn again
        assert open_run(store, secret, new=True).base_seed != run.base_seed


def test_arena_db_upgrade_brings_an_older_sqlite_store_up_and_refuses_a_newer_one(tmp_path):
    from tests.support.cli import arena_in_process

    path = tmp_path / "old.db"
    old = sqlite3.connect(path, isolation_level=None)
    old.executescript(";".join(SQLITE.migration(0) + SQLITE.migration(1)) + "; PRAGMA user_version = 2;")
    old.close()
    out = arena_in_process("db", "upgrade", str(path))
    assert out.returncode == 0 and f"upgraded from version 2 to {SCHEMA_VERSION}" in out.stdout
    assert Store.schema_version_of(path) == SCHEMA_VERSION
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    refused = arena_in_process("db", "upgrade", str(path))
    assert (
        refused.returncode == 2
        and refused.stderr.count("\n") == 1
        and "newer than this Tlachtli" in refused.stderr
    )


def test_progress_counts_follow_every_insert_delete_and_status_change(store_db, ladder):
    """Only the matches not done are counted; the done ones are the rest of the count a run keeps,
    which every path that adds or drops a match must keep right."""
    with open_store(store_db) as store:
        run = open_run(store, ladder)
        schedule = make_schedule(ladder)

        def counted() -> dict[str, int]:  # the plain way: every match counted
            return {
                str(status): int(n)
                for status, n in store._rows(
                    "SELECT status, COUNT(*) FROM matches WHERE ladder_id = ? GROUP BY status", (run.id,)
                )
            }

        def agree() -> None:
            skipped = [  # a page by offset, the plain way
                int(row[0])
                for row in store._rows(
                    "SELECT id FROM matches WHERE ladder_id = ? ORDER BY idx LIMIT 4 OFFSET 3", (run.id,)
                )
            ]
            assert store.match_ids(run.id, MatchFilter(), 4, 3) == skipped
            assert store.progress(run.id).counts == counted()
            assert store.count_matches(run.id) == sum(counted().values())
            assert {k: v for k, v in store.counts(run.id).items() if v} == counted()
            assert store.progress_by_run()[run.id].counts == counted()

        agree()
        assert store.add_matches(run.id, schedule[:3]) == 0  # held already: nothing added
        agree()
        first, second, third = store.pending(run.id)[:3]
        store.mark_running(first.id)
        store.record_outcome(first, outcome_for(first, [5, 3]))
        store.mark_running(second.id)
        store.record_lost_worker(third.id, "lost", max_failures=1, times=1)
        store.mark_running(third.id)
        assert store.record_lost_worker(third.id, "lost", max_failures=1)
        agree()
        assert set(counted()) == {"done", "running", "pending", "aborted"}
        store.take_back([first.id])
        agree()
        extra = [dataclasses.replace(m, index=m.index + len(schedule), key=f"{m.key}+") for m in schedule[:2]]
        assert store.add_matches(run.id, extra) == 2
        agree()
        config = json.dumps(store.config(run.id))
        store.update_run(run.id, digest="d2", source="s", config=config, retired=["c"], matches=[])
        agree()  # a schedule with gaps now: its pages are read by offset
        assert all("c" not in m.entrants for m in store.pending(run.id))
        indexes = [m.idx for m in store.matches(run.id)]
        assert max(indexes) - min(indexes) + 1 > len(indexes)

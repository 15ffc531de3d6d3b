"""What only the PostgreSQL store does: its schema table and migrations under a lock, claims with
SKIP LOCKED and leases, one-line errors for a server it cannot use, and copies both ways.
(The behaviour both stores share is tested on both: test_store.py.)"""

from __future__ import annotations

import threading

import psycopg
import pytest

from arena.match.spec import MatchOutcome, SeatResult
from arena.registry.plugins import discover
from arena.tournament.plan.ladder import parse_ladder
from arena.tournament.plan.runs import open_run, plan_run
from arena.tournament.store import schema
from arena.tournament.store.api import StoreError
from arena.tournament.store.copy import copy_store
from arena.tournament.store.doctor import check_store
from arena.tournament.store.opening import open_store
from arena.tournament.store.postgres import PostgresStore, shown
from arena.tournament.store.schema import POSTGRESQL, SCHEMA_VERSION, TABLES
from tests.support.cli import arena_in_process

LADDER = """\
name = "pg-test"
game = "goofspiel"
seed = 3
matches_per_pairing = 2
[[agents]]
name = "a"
agent = "random"
[[agents]]
name = "b"
agent = "prize-bidder"
"""


@pytest.fixture
def ladder():
    return parse_ladder(LADDER, discover(), source="pg.toml")


def play_some(store, ladder, count: int) -> int:
    """A run with ``count`` matches stored done (one with a fault); its id."""
    run = open_run(store, ladder)
    for n, match in enumerate(store.pending(run.id)[:count]):
        assert store.mark_running(match.id)
        seats = (
            SeatResult(0, match.spec.agents[0], 10 + n, 1),
            SeatResult(1, match.spec.agents[1], 3, 2, fault="timeout" if n == 1 else None),
        )
        store.record_outcome(
            match, MatchOutcome(match.spec, seats, {"seed": match.spec.seed, "moves": [[n]] * 30}), 0.25
        )
    return run.id


def rows_of(db: str) -> dict[str, list[tuple]]:
    with open_store(db, read_only=True) as store:
        return {table: list(store.table_rows(table)[1]) for table in TABLES}


def test_a_new_database_is_migrated_once_by_runners_starting_together(postgres_server):
    url = postgres_server.fresh(migrated=False)
    errors: list[BaseException] = []

    def open_it() -> None:
        try:
            PostgresStore(url).close()
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=open_it) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT version FROM tlachtli_schema").fetchall() == [(SCHEMA_VERSION,)]


def test_an_older_schema_is_upgraded_keeping_its_data_and_a_newer_one_refused(postgres_server, ladder):
    url = postgres_server.fresh(migrated=False)
    with psycopg.connect(url, autocommit=True) as conn:  # a store of schema version 1, as first shipped
        conn.execute("CREATE TABLE tlachtli_schema (version BIGINT NOT NULL)")
        for statement in POSTGRESQL.migration(0):
            conn.execute(statement)
        conn.execute("INSERT INTO tlachtli_schema VALUES (1)")
        conn.execute(
            "INSERT INTO ladders (name, digest, game, format, source, config, created)"
            " VALUES ('x', 'd', 'goofspiel', 'round-robin', 'x.toml', '{}', 'now')"
        )
    out = arena_in_process("db", "upgrade", url)
    assert out.returncode == 0 and f"schema upgraded from version 1 to {SCHEMA_VERSION}" in out.stdout
    with open_store(url) as store:
        assert store.schema_version() == SCHEMA_VERSION
        assert store.latest_run("x").base_seed is None
    again = arena_in_process("db", "upgrade", url)
    assert "the latest; nothing to do" in again.stdout
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("UPDATE tlachtli_schema SET version = %s", (SCHEMA_VERSION + 1,))
    refused = arena_in_process("db", "upgrade", url)
    assert refused.returncode == 2 and "newer than this Tlachtli" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1


def test_a_server_it_cannot_use_is_one_line_without_the_password(postgres_server):
    url = postgres_server.url("no_such_db").replace("postgres@", "postgres:s3cret@")
    with pytest.raises(StoreError, match="cannot use the PostgreSQL database .*no_such_db") as raised:
        open_store(url)
    assert "s3cret" not in str(raised.value) and "***" in shown(url)
    out = arena_in_process("leaderboard", "--db", url)
    assert out.returncode == 2 and "s3cret" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_one_match_is_claimed_by_one_runner_and_its_put_back_is_its_own(postgres_server, ladder):
    url = postgres_server.fresh()
    with open_store(url) as first, open_store(url) as second:
        run = open_run(first, ladder)
        match = first.pending(run.id)[0]
        assert first.mark_running(match.id)
        assert not second.mark_running(match.id)  # claimed: the other runner skips it
        second.mark_pending([match.id])  # not its own: left alone
        assert first.counts(run.id)["running"] == 1
        assert second.reset_interrupted(run.id) == 0  # the lease is live
        outcome = MatchOutcome(
            match.spec, (SeatResult(0, "random", 1, 2), SeatResult(1, "prize-bidder", 5, 1)), {}
        )
        first.record_outcome(match, outcome)
        with pytest.raises(StoreError, match="already done"):
            second.record_outcome(match, outcome)  # a runner whose lease had lapsed: refused


def test_new_joins_the_run_another_runner_is_playing_and_only_that(postgres_server, ladder, monkeypatch):
    monkeypatch.setenv("TLACHTLI_LEASE_S", "30")
    url = postgres_server.fresh()
    with open_store(url) as first, open_store(url) as second, open_store(url) as third:
        run = plan_run(first, ladder, new=True).run
        assert plan_run(second, ladder, new=True).run.id == run.id  # just created: the same run
        match = first.pending(run.id)[0]
        assert first.mark_running(match.id)
        first.heartbeat()
        old = "2000-01-01T00:00:00+00:00"
        with first.transaction() as tx:  # long ago, but a match is still held under a live lease
            tx.run(f"UPDATE ladders SET created = '{old}' WHERE id = {run.id}")
            tx.run(f"UPDATE matches SET started = '{old}' WHERE ladder_id = {run.id}")
        assert plan_run(third, ladder, new=True).run.id == run.id
        with first.transaction() as tx:  # its runner killed, the lease run out: nobody plays it
            tx.run(f"UPDATE matches SET lease = 0 WHERE id = {match.id}")
        fresh = plan_run(third, ladder, new=True).run
        assert fresh.id != run.id and first.counts(run.id)["running"] == 0
        edited = parse_ladder(LADDER.replace("seed = 3", "seed = 4"), discover(), source="pg.toml")
        assert plan_run(second, edited, new=True).run.id not in (run.id, fresh.id)  # another file


def test_copy_round_trips_sqlite_postgresql_sqlite_with_every_row_identical(
    tmp_path, postgres_server, ladder
):
    original = str(tmp_path / "original.db")
    with open_store(original) as store:
        run_id = play_some(store, ladder, 3)  # and one match pending: the copy holds it too
        store.add_season_event(run_id, 0, "start", {"seed": 5})
        store.add_season_event(run_id, 2, "join", {"name": "x"})
        store.save_season_state(run_id, {"status": "running"})
    url = postgres_server.fresh()
    back = str(tmp_path / "back.db")
    assert copy_store(original, url).rows == {
        "ladders": 1,
        "matches": 4,
        "seats": 6,
        "records": 3,
        "season_events": 2,
        "season_state": 1,
    }
    assert arena_in_process("db", "copy", url, back).returncode == 0
    assert rows_of(original) == rows_of(url) == rows_of(back)
    for db in (url, back):
        with open_store(db) as store:
            assert store.record(store.matches(run_id, statuses=("done",))[2].id)["moves"] == [[2]] * 30
            # ids go on after the copied ones: a new run is stored beside them
            other = parse_ladder(LADDER.replace("pg-test", "pg-more"), discover(), source="more.toml")
            assert open_run(store, other).id == run_id + 1
            store.add_season_event(run_id, 3, "record", {"idx": 3})  # the log's ids go on too
            assert [event.kind for event in store.season_events(run_id)] == ["start", "join", "record"]
    for command in ("leaderboard", "export"):
        outputs = {
            arena_in_process(command, "-l", "pg-test", "--db", db, "--format", "json").stdout
            for db in (original, url)
        }
        assert len(outputs) == 1 and "pg-test" not in outputs  # the same table and rows from either store


def test_copy_refuses_a_target_that_holds_runs_and_a_missing_source(tmp_path, postgres_server, ladder):
    url = postgres_server.fresh()
    with open_store(url) as store:
        play_some(store, ladder, 1)
    source = str(tmp_path / "s.db")
    with open_store(source) as store:
        play_some(store, ladder, 1)
    out = arena_in_process("db", "copy", source, url)
    assert out.returncode == 2 and "already holds ladder runs" in out.stderr
    missing = arena_in_process("db", "copy", str(tmp_path / "none.db"), url)
    assert missing.returncode == 2 and "no database at" in missing.stderr


def test_doctor_checks_a_postgresql_store_and_names_the_check_it_cannot_make(postgres_server, ladder):
    url = postgres_server.fresh()
    with open_store(url) as store:
        play_some(store, ladder, 3)
    problems, summary = check_store(url)
    assert problems == [] and "1 ladder run(s), 4 matches, 3 records" in summary
    assert "page-level integrity check is the server's" in summary
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "UPDATE records SET data = 'not zlib'::bytea WHERE match_id = (SELECT MIN(match_id) FROM records)"
        )
    problems, _ = check_store(url)
    assert len(problems) == 1 and "does not decode" in problems[0]
    out = arena_in_process("doctor", "--db", url)
    assert out.returncode == 1 and "problem:" in out.stdout
    empty = postgres_server.fresh(migrated=False)
    assert "not a Tlachtli store" in check_store(empty)[0][0]


def test_tlachtli_db_names_the_store_of_every_command(postgres_server, ladder, monkeypatch):
    url = postgres_server.fresh()
    with open_store(url) as store:
        play_some(store, ladder, 2)
    monkeypatch.setenv("TLACHTLI_DB", url)
    out = arena_in_process("matches")
    assert out.returncode == 0 and "pg-test" not in out.stderr and len(out.stdout.splitlines()) == 2 + 4


def test_the_schema_version_table_is_the_only_difference_in_tables(postgres_server):
    with psycopg.connect(postgres_server.fresh()) as conn:
        names = {
            row[0] for row in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
        }
    assert names == {*TABLES, "tlachtli_schema"}
    assert schema.latest() == SCHEMA_VERSION

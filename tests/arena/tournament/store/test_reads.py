"""The store's read queries (arena/tournament/store/reads.py): what they return, that they stay
portable SQL, and that nothing outside the store runs SQL of its own."""

from __future__ import annotations

import ast
import random
import re
import sqlite3
from pathlib import Path

import pytest

import arena.tournament.store.reads as reads_module
from arena.match.spec import MatchOutcome, SeatResult
from arena.registry.plugins import discover
from arena.tournament.plan.ladder import parse_ladder
from arena.tournament.plan.runs import open_run
from arena.tournament.plan.schedule import make_schedule
from arena.tournament.store.api import MatchFilter, StoreError
from arena.tournament.store.schema import MIGRATIONS, SQLITE
from arena.tournament.store.sqlite import Store

ARENA = Path(__file__).resolve().parents[4] / "arena"
LADDER = """\
name = "reads"
game = "goofspiel"
matches_per_pairing = 6
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


def finish(store, match, rng, fault_seat=None):
    scores = [rng.randrange(20) for _ in match.entrants]
    ranks = [1 + sum(other > score for other in scores) for score in scores]
    seats = tuple(
        SeatResult(seat, agent, score, rank, "timeout" if seat == fault_seat else None)
        for seat, (agent, score, rank) in enumerate(zip(match.spec.agents, scores, ranks, strict=True))
    )
    store.mark_running(match.id)
    store.record_outcome(match, MatchOutcome(match.spec, seats, {"moves": [[0, 1]] * 30, "faults": []}), 1.5)


@pytest.fixture
def played(tmp_path):
    """A run of 36 matches, the first 12 done (match 3 with a fault in seat 1), one running."""
    store = Store(tmp_path / "reads.db")
    ladder = parse_ladder(LADDER, discover(), source="reads.toml")
    run = open_run(store, ladder, make_schedule(ladder))
    rng = random.Random(3)
    pending = store.pending(run.id)
    for n, match in enumerate(pending[:12]):
        finish(store, match, rng, fault_seat=1 if n == 3 else None)
    store.mark_running(pending[12].id)
    yield store, run
    store.close()


def test_done_matches_are_every_done_match_in_schedule_order_read_in_chunks(played, monkeypatch):
    store, run = played
    expected = store.matches(run.id, statuses=("done",))
    monkeypatch.setattr(reads_module, "DONE_CHUNK", 5)  # several chunks, one of them ragged
    done = list(store.done_matches(run.id))
    assert [m.id for m in done] == [m.id for m in expected]
    assert [m.seed for m in done] == [m.seed for m in expected]
    assert [[(s.agent, s.score, s.rank, s.fault) for s in m.seats] for m in done] == [
        [(s.agent, s.score, s.rank, s.fault) for s in m.seats] for m in expected
    ]
    assert [m.idx for m in store.done_matches(run.id, after=3, upto=7)] == [4, 5, 6, 7]


def test_a_damaged_seat_is_one_line_naming_it(played):
    store, run = played
    store.db.execute(
        "UPDATE seats SET rank = 'first' WHERE seat = 0 AND match_id = ?", (store.matches(run.id)[2].id,)
    )
    with pytest.raises(
        StoreError, match=r"table seats, match \d+ seat 0: its rank is 'first', not an integer"
    ):
        list(store.done_matches(run.id))


def test_progress_counts_and_last_activity_are_those_of_the_matches(played):
    store, run = played
    found = store.progress(run.id)
    assert found.counts == {"done": 12, "running": 1, "pending": 23}
    latest = store.db.execute(
        "SELECT MAX(COALESCE(finished, started)) FROM matches WHERE ladder_id = ?", (run.id,)
    ).fetchone()[0]
    assert found.last == latest
    assert store.progress_by_run() == {run.id: found}
    assert store.running(run.id, 5) == [(store.pending(run.id)[0].id, store.pending(run.id)[0].key)]
    assert store.unplayed_from(run.id) == 12


def test_match_pages_and_filters(played):
    store, run = played
    every = [m.id for m in store.matches(run.id)]
    assert store.count_matches(run.id) == 36
    assert store.match_ids(run.id, MatchFilter(), 5, 5) == every[5:10]
    faulted = store.matches(run.id, faults_only=True)
    assert store.match_ids(run.id, MatchFilter(fault="any"), 50) == [m.id for m in faulted]
    assert store.count_matches(run.id, MatchFilter(fault="timeout")) == 1
    assert store.count_matches(run.id, MatchFilter(fault="crash")) == 0
    played_by_c = [m.id for m in store.matches(run.id, agent="c")]
    assert store.match_ids(run.id, MatchFilter(agent="c"), 50) == played_by_c
    seed = store.matches(run.id)[4].seed
    assert store.match_ids(run.id, MatchFilter(seed=seed), 50) == [
        m.id for m in store.matches(run.id) if m.seed == seed
    ]


def test_agent_reads(played):
    store, run = played
    done = store.matches(run.id, statuses=("done",), agent="a")
    ids = sorted((m.id for m in done), reverse=True)
    assert store.agent_match_count("a") == len(done)
    assert store.agent_match_ids("a", 3, 2) == ids[2:5]
    assert store.agent_plugins("a") == ["random"]
    seats = store.agent_seats("a")
    assert sum(row.matches for row in seats) == len(done)
    wins = sum(1 for m in done for s in m.seats if s.agent == "a" and s.rank == 1 and s.fault is None)
    assert sum(row.wins for row in seats) == wins
    assert store.seats_played(run.id, ["a", "nobody"]) == {"a": len(done)}
    faults = store.fault_seats(run.id)
    assert [(f.idx, f.seat, f.fault) for f in faults] == [(3, 1, "timeout")]


def test_snapshot_sees_one_state_while_a_writer_commits(played, tmp_path):
    store, run = played
    reader = Store.read_only(tmp_path / "reads.db")
    try:
        with reader.snapshot():
            before = reader.progress(run.id).counts["done"]
            finish(store, store.pending(run.id)[1], random.Random(1))
            assert reader.progress(run.id).counts["done"] == before
        assert reader.progress(run.id).counts["done"] == before + 1
    finally:
        reader.close()


def test_the_read_index_migration_adds_the_read_indexes(tmp_path):
    before = next(n for n, text in enumerate(MIGRATIONS) if "matches_activity" in str(text))
    old = sqlite3.connect(tmp_path / "old.db")
    for number in range(before):
        for statement in SQLITE.migration(number):
            old.execute(statement)
    old.execute(f"PRAGMA user_version = {before}")
    old.commit()
    old.close()
    with Store(tmp_path / "old.db") as store:
        names = {row[0] for row in store.db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        plan = store.db.execute(
            "EXPLAIN QUERY PLAN SELECT MIN(idx) FROM matches WHERE ladder_id = 1 AND status IN ('pending', 'running')"
        ).fetchall()
    assert {"matches_status", "matches_activity", "seats_agent", "seats_fault"} <= names
    assert "matches_status" in " ".join(str(tuple(row)) for row in plan)


SQLITE_ONLY = re.compile(
    r"json_|group_concat|\browid\b|ifnull|strftime|datetime\(|\binstr\(|printf\(|\btotal\(|\bglob\b|pragma|"
    r"insert or|\blimit \?, \?",
    re.IGNORECASE,
)


def sql_text(path: Path) -> str:
    """Every string literal of a module but its docstrings: its SQL, and its messages."""
    tree = ast.parse(path.read_text())
    docstrings = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
    return " ".join(
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    )


def test_the_read_queries_are_portable_sql():
    queries = sql_text(ARENA / "tournament" / "store" / "reads.py")
    assert "SELECT" in queries and "GROUP BY" in queries  # the literals were found
    assert SQLITE_ONLY.findall(queries) == []
    assert re.findall(r"SUM\((?!CASE)", queries) == []  # PostgreSQL cannot SUM a comparison


def lines_outside_the_stores(pattern: str) -> list[str]:
    """Each line of arena/ outside the stores that matches ``pattern``. The stores: the tournament
    store, and the accounts wing's own SQLite file (users and sessions, arena/accounts/store.py:
    a store of its own, which keeps its driver to itself too)."""
    offenders = []
    for path in ARENA.rglob("*.py"):
        if (ARENA / "tournament" / "store") in path.parents or path == ARENA / "accounts" / "store.py":
            continue
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            if re.search(pattern, line):
                offenders.append(f"{path.relative_to(ARENA.parent)}:{number}: {line.strip()}")
    return offenders


def test_nothing_outside_the_store_runs_sql():
    assert lines_outside_the_stores(r"\.execute(many|script)?\(|\bstore\.db\.|\.cursor\(") == []


def test_nothing_outside_the_store_names_a_database_driver():
    """Each store raises its driver's errors as StoreError (DatabaseError): a caller that caught
    sqlite3.Error would let a PostgreSQL failure through as a traceback."""
    driver = r"^\s*(import|from)\s+(sqlite3|psycopg\w*)\b|\b(sqlite3|psycopg\w*)\.(\w+\.)*\w*Error\b"
    assert lines_outside_the_stores(driver) == []


def test_a_new_store_has_pages_that_hold_several_records(tmp_path):
    with Store(tmp_path / "new.db") as store:
        assert store.db.execute("PRAGMA page_size").fetchone()[0] == 16384
    old = sqlite3.connect(tmp_path / "old.db")  # an existing file keeps its pages
    old.executescript(
        "PRAGMA page_size = 4096; " + ";".join(SQLITE.migration(0)) + "; PRAGMA user_version = 1;"
    )
    old.close()
    with Store(tmp_path / "old.db") as store:
        assert store.db.execute("PRAGMA page_size").fetchone()[0] == 4096

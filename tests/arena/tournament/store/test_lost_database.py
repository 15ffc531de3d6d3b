"""A database that fails under a command: each store raises its driver's errors (sqlite3's,
psycopg's) as the store's own, so `arena run`, `arena leaderboard` and the web say so in one line
or one page on either backend (test_reads.py: no code outside the store names a driver)."""

from __future__ import annotations

import sqlite3
from urllib.parse import urlsplit

import pytest

from arena.match.spec import MatchOutcome, SeatResult
from arena.registry.plugins import discover
from arena.tournament.plan.ladder import parse_ladder
from arena.tournament.plan.runs import open_run
from arena.tournament.store.api import DatabaseError
from arena.tournament.store.opening import open_store
from tests.support.cli import arena_in_process
from tests.support.ladder_runs import killable_env, start, wait_for_done, write_ladder

LADDER = """\
name = "lost"
game = "goofspiel"
seed = 3
[[agents]]
name = "a"
agent = "random"
[[agents]]
name = "b"
agent = "prize-bidder"
"""


def played_store(db: str) -> None:
    """A run of LADDER with one match stored done, written through the store."""
    ladder = parse_ladder(LADDER, discover(), source="lost.toml")
    with open_store(db) as store:
        run = open_run(store, ladder)
        match = store.pending(run.id)[0]
        assert store.mark_running(match.id)
        seats = (SeatResult(0, match.spec.agents[0], 5, 1), SeatResult(1, match.spec.agents[1], 3, 2))
        store.record_outcome(match, MatchOutcome(match.spec, seats, {"seed": match.spec.seed, "moves": []}))


def database(url: str) -> str:
    return urlsplit(url).path.lstrip("/")


def cut_off(server, url: str) -> None:
    """The database goes away under its users: new connections refused, open ones ended (as a
    server restarting or a database being moved does)."""
    name = database(url)
    server.admin(f"ALTER DATABASE {name} ALLOW_CONNECTIONS false")
    server.admin(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'")


def one_error_line(stderr: str) -> str:
    lines = [line for line in stderr.strip().splitlines() if not line.startswith("sandbox: ")]
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    assert "Traceback" not in stderr
    return lines[0]


def test_a_table_gone_under_the_leaderboard_is_one_line_on_either_store(store_db):
    played_store(store_db)
    if store_db.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(store_db, autocommit=True) as conn:
            conn.execute("DROP TABLE seats")
        expected = "refused a command"
    else:
        with sqlite3.connect(store_db) as conn:
            conn.execute("DROP TABLE seats")
        conn.close()
        expected = "is damaged"
    out = arena_in_process("leaderboard", "--db", store_db)
    assert out.returncode == 2
    assert expected in one_error_line(out.stderr) and "seats" in out.stderr


def test_a_database_gone_before_the_command_is_one_line(postgres_server, tmp_path):
    url = postgres_server.fresh()
    played_store(url)
    cut_off(postgres_server, url)
    ladder = tmp_path / "lost.toml"
    ladder.write_text(LADDER)
    for command in (["leaderboard"], ["run", str(ladder)]):
        out = arena_in_process(*command, "--db", url)
        assert out.returncode == 2
        assert "cannot use the PostgreSQL database" in one_error_line(out.stderr)
    with pytest.raises(DatabaseError):
        open_store(url, read_only=True)


def test_a_run_whose_database_goes_away_ends_with_one_line(tmp_path, popen, request, postgres_server):
    url = postgres_server.fresh()
    ladder = write_ladder(tmp_path, repeats=20, pace_ms=20)  # ~120 matches: still playing when cut off
    runner = start(
        popen, "run", str(ladder), "--db", url, "--jobs", "1", "--quiet", env=killable_env("lost", request)
    )
    wait_for_done(url, 1, runner)
    cut_off(postgres_server, url)
    _, err = runner.communicate(timeout=120)
    assert runner.returncode != 0
    assert "cannot use the PostgreSQL database" in one_error_line(err)


def test_the_web_answers_503_while_its_database_is_away_and_recovers(postgres_server):
    pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")
    from starlette.testclient import TestClient

    from arena.web.app import create_app

    url = postgres_server.fresh()
    played_store(url)
    client = TestClient(create_app(url), raise_server_exceptions=False)
    allow = f"ALTER DATABASE {database(url)} ALLOW_CONNECTIONS true"
    assert client.get("/").status_code == 200
    cut_off(postgres_server, url)  # the pool's connection is ended under it
    page = client.get("/")
    assert page.status_code == 503 and page.headers["content-type"].startswith("text/html")
    assert "tournament store cannot be read now" in page.text and "postgresql://" not in page.text
    postgres_server.admin(allow)
    assert client.get("/api/ladders").status_code == 200  # the pool connected again
    cut_off(postgres_server, url)
    api = client.get("/api/ladders")
    assert api.status_code == 503 and "tournament store cannot be read now" in api.json()["error"]
    postgres_server.admin(allow)
    answer = client.get("/api/ladders")
    assert answer.status_code == 200 and answer.json()[0]["name"] == "lost"


def test_the_web_answers_503_for_a_store_it_cannot_read_on_either_backend(store_db):
    pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")
    from starlette.testclient import TestClient

    from arena.web.app import create_app

    played_store(store_db)
    client = TestClient(create_app(store_db), raise_server_exceptions=False)
    assert client.get("/api/ladders").status_code == 200
    if store_db.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(store_db, autocommit=True) as conn:
            conn.execute("DROP TABLE ladders CASCADE")
    else:
        with sqlite3.connect(store_db) as conn:
            conn.execute("PRAGMA foreign_keys = OFF")
            conn.execute("DROP TABLE ladders")
        conn.close()
    for url in ("/", "/api/ladders"):
        answer = client.get(url)
        assert answer.status_code == 503, (url, answer.text)
        assert "tournament store cannot be read now" in answer.text
        assert "no such table" not in answer.text and "does not exist" not in answer.text  # the log's

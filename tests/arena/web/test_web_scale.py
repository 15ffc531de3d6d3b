"""The web arena on a growing season: an agent's matches page by page, a large field's page
charting and crossing only its top agents, and the ladder view fed only the new results."""

from __future__ import annotations

import random
import time

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")
from starlette.testclient import TestClient  # noqa: E402

import arena.web.app as web_app  # noqa: E402
import arena.web.views as views  # noqa: E402
from arena.registry.plugins import discover  # noqa: E402
from arena.tournament.plan.ladder import parse_ladder  # noqa: E402
from arena.tournament.plan.runs import open_run  # noqa: E402
from arena.tournament.plan.schedule import make_schedule  # noqa: E402
from arena.tournament.stats.report import leaderboard_rows  # noqa: E402
from arena.tournament.store.sqlite import Store  # noqa: E402
from arena.web.app import create_app  # noqa: E402
from tests.arena.tournament.store.test_reads import LADDER, finish  # noqa: E402


@pytest.fixture
def season(tmp_path):
    """A goofspiel run of three agents, 20 of its 36 matches done."""
    db = tmp_path / "season.db"
    with Store(db) as store:
        ladder = parse_ladder(LADDER, discover(), source="season.toml")
        run = open_run(store, ladder, make_schedule(ladder))
        rng = random.Random(8)
        for match in store.pending(run.id)[:20]:
            finish(store, match, rng)
    return db, run.id


def test_an_agents_matches_come_page_by_page_latest_first(season, monkeypatch):
    db, _ = season
    monkeypatch.setattr(views, "AGENT_MATCHES", 4)
    client = TestClient(create_app(db))
    first = client.get("/api/agents/a").json()
    with Store.read_only(db) as store:
        ids = sorted((m.id for m in store.matches(1, agent="a") if m.seats), reverse=True)
    assert first["count"] == len(ids) and first["pages"] == -(-len(ids) // 4)
    assert [m["id"] for m in first["matches"]] == ids[:4]
    second = client.get("/api/agents/a?page=2").json()
    assert [m["id"] for m in second["matches"]] == ids[4:8]
    assert client.get("/api/agents/a?page=999").json()["page"] == first["pages"]  # the last one
    page = client.get("/agents/a?page=2")
    assert page.status_code == 200 and 'href="?page=3"' in page.text and 'href="?page=1"' in page.text


def test_a_large_field_charts_and_crosses_its_top_agents_only(season, monkeypatch):
    db, run_id = season
    monkeypatch.setattr(views, "SHOWN_AGENTS", 2)
    view = TestClient(create_app(db)).get(f"/api/ladders/{run_id}").json()
    top = [row["agent"] for row in view["leaderboard"]][:2]
    assert len(view["leaderboard"]) == 3  # the table keeps every agent
    assert list(view["history"]) == top and view["head_to_head"]["agents"] == top


def test_the_served_table_follows_new_results_as_a_full_replay_gives_it(season):
    db, run_id = season
    client = TestClient(create_app(db))
    rng = random.Random(9)
    with Store(db) as store:
        pending = store.pending(run_id)
        for n in (5, 0, 3):  # out of schedule order
            finish(store, pending[n], rng)
            for _ in range(500):  # a slow view (a loaded machine) is refreshed in the background
                response = client.get(f"/api/ladders/{run_id}/leaderboard")
                if response.headers["x-tlachtli-fresh"] == "1":
                    break
                time.sleep(0.02)
            assert response.json() == leaderboard_rows(store, store.runs()[0])


def test_the_ladder_page_shows_the_leaderboard_a_page_at_a_time(season, monkeypatch):
    db, run_id = season
    monkeypatch.setattr(web_app, "BOARD_ROWS", 2)
    client = TestClient(create_app(db))
    agents = [row["agent"] for row in client.get(f"/api/ladders/{run_id}/leaderboard").json()]
    first, second = client.get(f"/ladders/{run_id}"), client.get(f"/ladders/{run_id}/board?page=2")
    assert "page 1 of 2" in first.text and 'href="?page=2"' in first.text
    assert f"/agents/{agents[2]}" not in first.text.split('id="board-pages"')[0].split('id="leaderboard"')[1]
    board = second.text.split('id="leaderboard"')[1].split("</table>")[0]
    assert f"/agents/{agents[2]}" in board and f"/agents/{agents[0]}" not in board


def test_the_retired_and_faults_tables_stop_at_a_page(tmp_path, monkeypatch):
    db = tmp_path / "grown.db"
    with Store(db) as store:
        ladder = parse_ladder(LADDER, discover(), source="grown.toml")
        run = open_run(store, ladder, make_schedule(ladder))
        rng = random.Random(2)
        for n, match in enumerate(store.pending(run.id)[:12]):
            finish(store, match, rng, fault_seat=n % 2)
    monkeypatch.setattr(web_app, "BOARD_ROWS", 1)
    client = TestClient(create_app(db))
    view = client.get(f"/api/ladders/{run.id}").json()
    assert len(view["faults"]) > 1
    page = client.get(f"/ladders/{run.id}").text
    faults = page.split("<h2>Faults by kind</h2>")[1]
    assert faults.count("fault-line") == 1 and f"and {len(view['faults']) - 1} more" in faults

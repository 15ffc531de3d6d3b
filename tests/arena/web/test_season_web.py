"""The web's season page: the service's state, the table with intervals and statuses, the final
phase, each bot's games over time; its JSON twin; 404 for what is not a season."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")
from starlette.testclient import TestClient  # noqa: E402

from arena.registry.plugins import discover  # noqa: E402
from arena.tournament.plan.ladder import load_ladder  # noqa: E402
from arena.tournament.run.season import run_season  # noqa: E402
from arena.tournament.store.opening import DATA_ENV, open_store  # noqa: E402
from arena.web.app import create_app  # noqa: E402

# The final phase is due from the start and has a small budget: the season ends by itself.
SEASON = """\
name = "web-season"
game = "goofspiel"
players = 2
format = "season"
seed = 2
sandbox = "none"

[options]
cards = 5

[season]
placement_games = 40
final_at = "2000-01-01T00:00:00Z"
final_top = 3
final_budget = 12

[[agents]]
name = "rand-1"
agent = "random"
options = { seed = 1 }

[[agents]]
name = "rand-2"
agent = "random"
options = { seed = 2 }

[[agents]]
name = "bidder"
agent = "prize-bidder"

[[agents]]
name = "crasher"
agent = "fault-crash"
"""


@pytest.fixture
def season_db(tmp_path: Path, store_db: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """A season that ran to its end, on either store."""
    ladder = tmp_path / "season.toml"
    ladder.write_text(SEASON)
    monkeypatch.setenv(DATA_ENV, str(tmp_path / "data"))  # a PostgreSQL store's control files
    db = store_db
    lines: list[str] = []
    with open_store(db) as store:
        report = run_season(store, lambda: load_ladder(ladder, discover()), jobs=2, say=lines.append)
    assert report.ended == "the final budget of 12 games is spent", lines
    return db


def test_the_season_page_shows_the_service_the_table_and_the_final_phase(season_db: str):
    client = TestClient(create_app(season_db), raise_server_exceptions=False)
    with open_store(season_db) as store:
        run = store.latest_run("web-season")
        assert run is not None
        done = store.counts(run.id)["done"]
    data = client.get(f"/api/seasons/{run.id}").json()
    state, table = data["state"], {row["agent"]: row for row in data["table"]}
    assert state["status"] == "finished" and state["phase"] == "over" and state["counts"]["done"] == done
    assert "pid" not in state and "fingerprint" not in state  # the service's own, not the visitors'
    assert len(state["final_top"]) == 3 and state["final_played"] >= 12
    assert set(table) == {"rand-1", "rand-2", "bidder", "crasher"}
    for name in (name for name in state["final_top"] if name != "crasher"):
        assert (
            table[name]["status"] == "placement"
            and table[name]["low"] < table[name]["elo"] < table[name]["high"]
        )
    assert [table[name]["separated"] is None for name in state["final_top"]].count(True) == 1  # the last one
    if "crasher" in state["final_top"]:  # it crashed every game: voided, and suspended
        assert table["crasher"]["status"] == "suspended" and table["crasher"]["games"] == 0
    assert set(data["games"]) == set(table)  # each bot's games over the season's clock
    assert all(points[-1][1] >= points[0][1] for points in data["games"].values())

    page = client.get(f"/seasons/{run.id}")
    assert page.status_code == 200
    html = page.text
    assert "The season is over: the final budget of 12 games is spent." in html
    assert re.search(r"<b>finished</b>, phase <b>over</b>", html)
    assert html.count("<polyline") >= 4 and "games played by each bot over the season" in html
    for name in table:
        assert f">{name}</a>" in html
    assert "ahead of next" in html and ("separated" in html or "not yet" in html)

    ladders = client.get("/").text
    assert f'href="/seasons/{run.id}"' in ladders
    assert client.get("/seasons/999").status_code == 404
    assert client.get("/api/seasons/999").json() == {"error": "no season with id 999"}

"""The match page's score sheet and score-over-time chart (arena/web/scoresheet.py), through
Starlette's TestClient on the shared web store, and in Chromium (Playwright) for each game."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")

from starlette.testclient import TestClient  # noqa: E402

from arena.web.app import create_app  # noqa: E402
from arena.web.charts import score_chart  # noqa: E402
from arena.web.scoresheet import category_label, score_sheet  # noqa: E402
from engine.api import Result  # noqa: E402
from engine.zapotec import GAME as ZAPOTEC  # noqa: E402
from tests.support.web_store import HOSTILE_NAME, WEB_STORE  # noqa: E402

pytestmark = WEB_STORE
GAMES = {"web-zapotec": "zapotec", "web-teotihuacan": "teotihuacan"}


@pytest.fixture(scope="module")
def client(web_store: Path) -> TestClient:
    return TestClient(create_app(web_store), raise_server_exceptions=False)


def first_match(client: TestClient, ladder_name: str) -> int:
    ladder = next(entry["id"] for entry in client.get("/api/ladders").json() if entry["name"] == ladder_name)
    return client.get(f"/api/ladders/{ladder}/matches").json()["matches"][0]["id"]


@pytest.mark.parametrize("ladder", sorted(GAMES))
def test_match_json_has_a_score_sheet_adding_up_to_the_scores(client, ladder):
    meta = client.get(f"/api/matches/{first_match(client, ladder)}").json()
    sheet = meta["score_sheet"]
    scores = meta["record"]["result"]["scores"]
    assert sheet["scores"] == scores == [seat["score"] for seat in meta["match"]["seats"]]
    for seat, score in enumerate(scores):
        assert sum(row["points"][seat] for row in sheet["categories"]) == score
    assert sheet["timeline"][-1]["scores"] == scores
    # the record keeps the engine's breakdown too (per seat, category -> points)
    breakdown = meta["record"]["result"]["details"]["breakdown"]
    assert [sum(b.values()) for b in breakdown] == scores
    if GAMES[ladder] == "zapotec":
        assert any(row["name"].startswith("turn_scoring_round_") for row in sheet["categories"])
        assert [mark["after"] for mark in sheet["timeline"]][-1] == "end scoring"
    else:
        assert any(mark["after"] == "Eclipse 1" for mark in sheet["timeline"])


@pytest.mark.parametrize("ladder", sorted(GAMES))
def test_match_page_shows_the_sheet_and_the_chart_escaped(client, ladder):
    page = client.get(f"/matches/{first_match(client, ladder)}").text
    assert 'id="score-sheet"' in page and "<tfoot>" in page and 'id="score-chart"' in page
    assert HOSTILE_NAME not in page  # the hostile agent (Zapotec) is escaped in the sheet's header
    chart = page.split('id="score-chart">', 1)[1].split("</div>", 1)[0]
    ET.fromstring(chart)  # well-formed SVG


def test_category_labels_read_as_words():
    assert category_label("turn_scoring_round_2") == "Turn scoring round 2"
    assert category_label("eclipse_avenue") == "Eclipse: Avenue"


def test_score_chart_draws_a_line_per_seat_and_escapes_names():
    timeline = [{"after": "round 1", "scores": [3, 0]}, {"after": "Eclipse 1", "scores": [10, -2]}]
    root = ET.fromstring(score_chart(timeline, ["<b>x</b>", "two"]))
    ns = "{http://www.w3.org/2000/svg}"
    assert len(root.findall(f"{ns}polyline")) == 2
    assert "<b>" not in score_chart(timeline, ["<b>x</b>", "two"])
    assert ET.fromstring(score_chart([], [])) is not None


def test_numbered_categories_stand_together_in_number_order():
    # Seat 0 scored nothing in round 2, so the union of the seats' categories met round 3 first.
    breakdown = [
        {"turn_scoring_round_3": 6, "turn_scoring_round_4": 6},
        {"turn_scoring_round_2": 2, "turn_scoring_round_3": 4, "sacrifice_track": 9},
    ]

    class Last:  # the two calls score_sheet makes of a finished state
        def terminal(self) -> bool:
            return True

        def result(self) -> Result:
            return Result(scores=(12, 15), ranks=(2, 1), details={"breakdown": breakdown, "timeline": []})

    sheet = score_sheet(ZAPOTEC, Last(), ["a", "b"])  # type: ignore[arg-type]  # duck-typed final state
    assert [row["name"] for row in sheet["categories"]] == [
        "turn_scoring_round_2",
        "turn_scoring_round_3",
        "turn_scoring_round_4",
        "sacrifice_track",
    ]

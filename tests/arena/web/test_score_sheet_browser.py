"""The score sheet of each game in Chromium (Playwright): the table's totals are the seats'
scores, every category row adds up, the chart draws one line per seat inside the window.
TLACHTLI_WEB_SHOTS=docs writes docs/web-score-sheet-<game>.png."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.browser import NEEDS_CHROMIUM, open_page
from tests.support.web_store import WEB_STORE

pytestmark = [
    NEEDS_CHROMIUM,
    WEB_STORE,
]


@pytest.fixture(scope="module")
def server(web_server: str) -> str:
    """The shared store, served in a thread of this process (conftest.py)."""
    return web_server


def _number(text: str) -> int:
    return int(text) if text.strip() else 0


@pytest.mark.parametrize("ladder", ["web-zapotec", "web-teotihuacan"])
def test_score_sheet_of_each_game(server, browser, ladder, tmp_path):
    page = open_page(browser, server + "/")
    page.click(f"text={ladder}")
    page.click("text=matches")
    page.click("table#matches tbody tr:first-child a")
    sheet = page.locator("#score-sheet table.score-sheet")
    sheet.wait_for()
    scores = [
        _number(t) for t in page.locator("table:first-of-type tbody tr td:nth-child(4)").all_inner_texts()
    ]
    totals = [_number(t) for t in sheet.locator("tfoot tr.total td").all_inner_texts()]
    assert totals == scores and len(totals) == 2
    rows = sheet.locator("tbody tr")
    assert rows.count() >= 3
    sums = [0] * len(totals)
    for k in range(rows.count()):
        cells = rows.nth(k).locator("td").all_inner_texts()
        sums = [total + _number(cell) for total, cell in zip(sums, cells, strict=True)]
    assert sums == totals
    chart = page.locator("#score-chart svg")
    assert chart.locator("polyline").count() == 2
    box = chart.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= page.viewport_size["width"]
    shots = Path(os.environ.get("TLACHTLI_WEB_SHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    page.locator("#score-sheet").screenshot(
        path=str(shots / f"web-score-sheet-{ladder.removeprefix('web-')}.png")
    )
    assert page.problems == []
    page.close()

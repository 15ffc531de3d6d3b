"""The boards as Chromium draws them (Playwright): every text inside its box and inside the
picture, measured by the browser itself (getBBox), for each game set-up mid-game and at the end.
TLACHTLI_WEB_SHOTS=docs writes the screenshots docs/web.md shows (board-<set-up>-<mid|end>.png)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.web.replay import draw
from tests.support.board_positions import SETUPS, positions
from tests.support.browser import NEEDS_CHROMIUM
from tests.support.web_store import WEB_STORE

pytestmark = [NEEDS_CHROMIUM, WEB_STORE]

# Each text's box from the browser's own font metrics; a text in a g.box must lie in its first rect.
MEASURE = """() => {
  const svg = document.querySelector('svg');
  const width = svg.width.baseVal.value, height = svg.height.baseVal.value;
  const found = [];
  for (const t of svg.querySelectorAll('text')) {
    const b = t.getBBox();
    const group = t.closest('g.box');
    let area = {x: 0, y: 0, width: width, height: height};
    if (group) area = group.querySelector('rect').getBBox();
    if (b.width === 0) continue;
    if (b.x < area.x - 0.5 || b.x + b.width > area.x + area.width + 0.5 ||
        b.y < area.y - 2 || b.y + b.height > area.y + area.height + 2)
      found.push(t.textContent + ' [' + Math.round(b.x) + '..' + Math.round(b.x + b.width) + ' in ' +
                 Math.round(area.x) + '..' + Math.round(area.x + area.width) + ']');
  }
  return found;
}"""
SHOWN = ("teotihuacan-base", "teotihuacan-expansion", "teotihuacan-solo", "zapotec-2p", "zapotec-solo")


@pytest.fixture
def page(browser):  # the shared Chromium (conftest.py); the page is closed when the test ends
    return browser.new_page(viewport={"width": 1000, "height": 800})


@pytest.mark.parametrize("setup", SETUPS, ids=lambda setup: setup.name)
def test_every_text_fits_its_box_in_chromium(page, setup, tmp_path):
    shots = Path(os.environ.get("TLACHTLI_WEB_SHOTS") or tmp_path)
    for when, state in positions(setup):
        page.set_content(
            f"<!doctype html><html><body>{draw(setup.game, state, None, setup.names)}</body></html>"
        )
        found = page.evaluate(MEASURE)
        assert found == [], f"{setup.name} {when}: {found[:5]}"
        if setup.name in SHOWN:
            shots.mkdir(parents=True, exist_ok=True)
            page.locator("svg").screenshot(path=str(shots / f"board-{setup.name}-{when}.png"))

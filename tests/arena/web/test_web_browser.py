"""The web arena in a real browser: Playwright driving the system's Chromium (never a download).

Skips with a one-line reason where Playwright or a `chromium` executable is missing (`.ci/run`
installs chromium when it runs as root). Set TLACHTLI_WEB_SHOTS=DIR to keep the screenshots
(docs/web.md's come from there).
"""

from __future__ import annotations

import re

import pytest

from tests.support.browser import NEEDS_CHROMIUM, open_page, playwright_api, shot
from tests.support.web_store import WEB_STORE

sync_api = playwright_api()
pytestmark = [
    NEEDS_CHROMIUM,
    WEB_STORE,
]


# The stores, which take longest to build, are shared with test_web.py, and served for the whole
# session in a thread of this process (conftest.py: web_server, contest_server).
@pytest.fixture(scope="module")
def server(web_server: str) -> str:
    return web_server


@pytest.mark.parametrize("ladder", ["web-zapotec", "web-teotihuacan"])
def test_replay_viewer_steps_through_a_stored_match(server, browser, ladder, tmp_path):
    page = open_page(browser, server + "/")
    page.click(f"text={ladder}")
    page.click("text=matches")
    page.click("table#matches tbody tr:first-child a")
    board = page.locator("#board svg")
    board.wait_for()
    where = sync_api.expect(page.locator("#where"))  # (no wait_for_function: the CSP forbids eval)
    where.to_have_text(re.compile("^step 0 "))
    first = board.inner_html()
    page.click("#next")
    where.to_have_text(re.compile("^step 1 "))
    page.keyboard.press("ArrowRight")
    where.to_have_text(re.compile("^step 2 "))
    assert board.inner_html() != first
    assert page.locator("#options li.chosen").count() == 1
    assert page.locator("#move").inner_text().startswith("Move 2:")
    page.select_option("#seat", "0")
    sync_api.expect(page.locator("#observation")).to_contain_text('"seat": 0')
    if ladder == "web-zapotec":
        assert "cards face down" in board.inner_html()
        assert "<img src=x" in " ".join(page.locator("pre.stderr").all_inner_texts())  # shown as text
    shot(page, f"web-match-{ladder.removeprefix('web-')}.png", tmp_path)
    assert page.problems == []
    page.close()


def test_ladder_page_sorts_and_shows_no_console_error(server, browser, tmp_path):
    page = open_page(browser, server + "/")
    page.click("text=web-teotihuacan")
    page.locator("#leaderboard").wait_for()
    assert page.locator(".chart svg polyline").count() >= 2
    page.click("#leaderboard thead th:has-text('agent')")
    first = page.locator("#leaderboard tbody tr:first-child td:nth-child(2)").inner_text()
    page.click("#leaderboard thead th:has-text('agent')")
    assert page.locator("#leaderboard tbody tr:first-child td:nth-child(2)").inner_text() != first
    with page.expect_response(re.compile(r"/api/ladders/\d+/progress$")):
        pass  # one live-update poll (every 2 s) came back: any error it caused is in page.problems
    shot(page, "web-ladder.png", tmp_path)
    assert page.problems == []
    page.close()


def fits_the_page(page, selector: str) -> None:
    """Nothing of ``selector`` is cut off: it lies inside the viewport's width, drawn at full size."""
    box = page.locator(selector).bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= page.viewport_size["width"]
    assert box["width"] >= 700  # the chart's own width (720): not squeezed


def test_compare_page_shows_the_verdict_and_the_llr_against_its_bounds(contest_server, browser, tmp_path):
    page = open_page(browser, contest_server + "/")
    page.click("text=compare prize-bidder vs random")
    verdict = page.locator("#verdict")
    verdict.wait_for()
    assert verdict.inner_text().startswith("H1 accepted: NEW is better than OLD")
    chart = page.locator("#llr-chart svg")
    assert chart.locator("line.bound.upper").count() == 1 and chart.locator("line.bound.lower").count() == 1
    assert chart.locator("polyline.llr").count() == 1
    assert "accept H1 at +2.94" in chart.inner_html() and "accept H0 at -2.94" in chart.inner_html()
    deals = int(page.locator("#deals").inner_text().split()[0])
    assert f"{deals} deals" in chart.inner_html()
    assert page.locator("#elo").inner_text().startswith("+")  # NEW - OLD, with its interval
    assert "95% interval" in page.locator("#elo").inner_text()
    fits_the_page(page, "#llr-chart svg")
    shot(page, "web-compare.png", tmp_path)
    assert page.problems == []
    page.close()


def test_solo_ladder_page_ranks_by_mean_margin(contest_server, browser, tmp_path):
    page = open_page(browser, contest_server + "/")
    page.click("text=web-solo")
    page.locator("#leaderboard").wait_for()
    headers = page.locator("#leaderboard thead th").all_inner_texts()
    assert headers[:4] == ["rank", "agent", "mean margin", "95% interval"] and "mu" not in headers
    agents = page.locator("#leaderboard tbody tr td:nth-child(2)").all_inner_texts()
    assert agents[0] == "greedy" and sorted(agents) == ["first-option", "greedy", "random"]
    margins = [
        float(text) for text in page.locator("#leaderboard tbody tr td:nth-child(3)").all_inner_texts()
    ]
    assert margins == sorted(margins, reverse=True)
    assert page.locator("#solo-note").is_visible()
    assert page.locator(".chart svg circle").count() == 3
    fits_the_page(page, ".chart svg")
    shot(page, "web-solo.png", tmp_path)
    assert page.problems == []
    page.close()


@pytest.mark.parametrize("size", [(1280, 720), (1440, 900)], ids=["1280x720", "1440x900"])
@pytest.mark.parametrize("ladder", ["web-zapotec", "web-teotihuacan"])
def test_board_and_move_list_side_by_side_and_step_links_followed_in_the_tab(server, browser, ladder, size):
    page = open_page(browser, server + "/", size)
    page.click(f"text={ladder}")
    page.click("text=matches")
    page.click("table#matches tbody tr:first-child a")
    page.locator("#board svg").wait_for()
    where = sync_api.expect(page.locator("#where"))
    where.to_have_text(re.compile("^step 0 "))
    board, moves = page.locator("#board").bounding_box(), page.locator("#step").bounding_box()
    assert board is not None and moves is not None
    assert moves["x"] >= board["x"] + board["width"] - 1, (board, moves)  # beside it, not under it
    assert moves["y"] < board["y"] + board["height"] / 2 and moves["x"] + moves["width"] <= size[0]
    # a #step= typed in the address bar (or a link to it) in the same tab moves the viewer there
    page.goto(page.url.split("#")[0] + "#step=5")
    where.to_have_text(re.compile("^step 5 "))
    # times as a clock reads them (m:ss.s), never milliseconds with decimals
    sync_api.expect(page.locator("#move")).to_have_text(re.compile(r"^Move 5: .* in \d+:\d\d\.\d$"))
    assert re.fullmatch(r"seat 0: \d+:\d\d\.\d, seat 1: \d+:\d\d\.\d", page.locator("#clock").inner_text())
    page.goto(page.url.split("#")[0] + "#step=end")
    where.to_have_text(re.compile(r"^step (\d+) of \1"))
    page.go_back()
    where.to_have_text(re.compile("^step 5 "))
    assert page.problems == []
    page.close()

"""A person plays a seat through the page `arena play --agent human` serves, in a real browser.

Playwright drives the system's Chromium (never a download), as test_web_browser.py does, and
skips the same way where either is missing. TLACHTLI_WEB_SHOTS=DIR keeps the screenshot of the
page mid-game (docs/web.md's).
"""

from __future__ import annotations

import json
import os
import random
import re
from pathlib import Path

import pytest

from arena.match.record import load_record, replay
from arena.registry.plugins import discover
from tests.support.browser import NEEDS_CHROMIUM, open_page, playwright_api
from tests.support.human_play import HumanMatch
from tests.support.web_store import WEB_STORE

sync_api = playwright_api()
pytestmark = [NEEDS_CHROMIUM, WEB_STORE]


def beside_the_board(page) -> None:
    """The decision (prompt, options, log) stands beside the board, not under it."""
    board, step = page.locator("#board").bounding_box(), page.locator(".step").bounding_box()
    assert board is not None and step is not None
    assert step["x"] >= board["x"] + board["width"] - 1 and step["y"] < board["y"] + board["height"] / 2
    assert step["x"] + step["width"] <= page.viewport_size["width"]


def click_until_the_end(
    page, rng: random.Random, shot_at: int | None = None, shot: Path | None = None, news: list | None = None
) -> int:
    """Click one of the offered options (drawn by ``rng``) until the final table shows; the clicks.
    ``news``: gets the lines the page listed as new at each decision."""
    clicks = 0
    ready = page.locator("#options button.choice:enabled, #end:not([hidden])").first
    while True:
        ready.wait_for(timeout=60_000)
        if page.locator("#end").is_visible():
            return clicks
        buttons = page.locator("#options button.choice")
        count = buttons.count()
        assert page.locator("#prompt").inner_text().strip()
        assert page.locator("#board svg").count() == 1  # the seat's board, drawn
        if clicks == 0:
            beside_the_board(page)
        assert re.match(r"time left for this decision: \d+:\d\d\.\d ", page.locator("#clock").inner_text())
        if news is not None:
            news.extend(page.locator("#news li").all_inner_texts())
        if shot is not None and clicks == shot_at:
            page.screenshot(path=str(shot))
        buttons.nth(rng.randrange(count)).click()
        clicks += 1


@pytest.mark.parametrize(
    "game, automaton, options",
    [
        ("zapotec", "cocijobot", []),
        # slow (~30 s on a quiet machine): the page's code is the game's own only in its board, which
        # test_boards_browser draws in Chromium for every Teotihuacan set-up; test_human plays it over HTTP
        pytest.param("teotihuacan", "teotibot", ["--option", "modules=all"], marks=pytest.mark.slow),
    ],
)
def test_a_person_plays_a_whole_match_through_the_page(browser, tmp_path, game, automaton, options):
    record_file = tmp_path / "match.json"
    args = ["-g", game, "-a", "human", "--automaton", automaton, "--seed", "5", "--record", str(record_file)]
    match = HumanMatch(args + options)
    try:
        page = open_page(browser, match.pages[0], (1280, 720))
        shots = Path(os.environ.get("TLACHTLI_WEB_SHOTS") or tmp_path)
        shots.mkdir(parents=True, exist_ok=True)
        news: list[str] = []
        clicks = click_until_the_end(page, random.Random(5), 12, shots / f"web-play-{game}.png", news)
        status, stdout, stderr = match.finish()
    finally:
        match.stop()
    assert status == 0, stderr
    record = load_record(str(record_file))
    human = record["agents"][0]
    assert (human["agent"], human["kind"], human["name"], human["move_ms"]) == (
        "human",
        "human",
        "human",
        300_000,
    )
    assert record["faults"] == []
    mine = [move for move in record["moves"] if move["seat"] == 0]
    assert len(mine) == clicks > 10 and {move["by"] for move in mine} == {"agent"}
    replay(record, discover().game(game))  # the stored match replays to its recorded result
    score, rank = record["result"]["scores"][0], record["result"]["ranks"][0]
    assert page.locator("#status").inner_text().startswith(f"match over: you scored {score}, rank {rank}")
    cells = page.locator("#outcome tbody tr:first-child td").all_inner_texts()
    assert cells[:4] == ["0", "human", str(score), str(rank)]
    # the end screen: the score sheet, its totals the record's, and the final board (not the last decision's)
    scores = record["result"]["scores"]
    assert page.locator("#score-sheet tbody tr").count() > 3
    assert page.locator("#score-sheet tfoot td").all_inner_texts() == [str(s) for s in scores]
    board = page.locator("#board svg").inner_html()
    if game == "zapotec":
        assert all(f": {s} VP" in board for s in scores), (scores, re.findall(r": \d+ VP", board))
    with page.expect_download() as saved:  # the record, saved for `arena replay`
        page.click("#save-record")
    assert json.loads(Path(saved.value.path()).read_text())["result"] == record["result"]
    # the log: every seat's moves, the automaton's too, the whole game under its summary
    whole = page.locator("#log li").all_text_contents()  # (folded: not drawn, still there)
    assert int(page.locator("#log-count").inner_text()) == len(whole) > clicks
    assert any(automaton.capitalize() in text for text in whole), whole[:20]
    assert page.locator("#news li").count() >= 1
    # between two decisions, what the other seat did was listed as new
    assert any(automaton.capitalize() in text for text in news), news[:20]
    table = [line.split() for line in stdout.splitlines()]
    assert ["0", "human", str(score), str(rank)] in table  # arena play's own table says the same
    assert page.problems == []
    page.close()


def test_a_second_tab_takes_the_seat_over_and_the_first_says_so(browser, tmp_path):
    match = HumanMatch(["-g", "zapotec", "-a", "human", "-a", "random", "--seed", "2"])
    try:
        first = open_page(browser, match.pages[0])
        first.locator("#options button.choice").first.wait_for()
        second = open_page(browser, match.pages[0], (1440, 900))
        second.locator("#options button.choice").first.wait_for()
        beside_the_board(second)
        sync_api.expect(first.locator("#status")).to_have_text(
            "this seat is now played in another tab (the one opened last)"
        )
        assert first.locator("#options button.choice").count() == 0  # nothing left to click there
        asked = second.locator("#status").inner_text()
        assert asked.startswith("your move (decision 1,")
        second.locator("#options button.choice").first.click()
        sync_api.expect(second.locator("#status")).not_to_have_text(asked)  # the match went on
        assert first.problems == [] and second.problems == []
    finally:
        match.stop()

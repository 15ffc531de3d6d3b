"""A match followed live in a real browser (Playwright + the system's Chromium), to its end, with
the bot's info text and the move list (grouped by round, clickable, keyboard left/right)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import urllib.error
import urllib.request

import pytest

from tests.support.browser import NEEDS_CHROMIUM, open_page, playwright_api, shot
from tests.support.info_agents import HOSTILE_INFO
from tests.support.live_ladder import PLUGIN, get_json, running_match, start_ladder, stop_ladder, wait_for
from tests.support.web_store import ROOT, WEB_STORE, free_port, served

sync_api = playwright_api()
pytestmark = [NEEDS_CHROMIUM, WEB_STORE]


def test_a_live_match_is_followed_to_its_end_with_info_and_move_list(browser, tmp_path):
    ladder, db = start_ladder(tmp_path, delay_ms=300, info="hostile")
    try:
        match = wait_for("a running match", lambda: running_match(db))
        with served(db) as home:
            follow_a_live_match_to_its_end(browser, f"{home}/matches/{match}", tmp_path)
    finally:
        stop_ladder(ladder)


def follow_a_live_match_to_its_end(browser, url: str, tmp_path) -> None:
    """The page of a match being played, followed to its end (with the talker's hostile info)."""
    page = open_page(browser, url)
    expect = sync_api.expect
    expect(page.locator("#live-status")).to_be_visible()
    # "(live)" comes with the first step the page is sent: under load, seconds after the match
    # is marked running (its agents still starting), so wait as long as for the moves below.
    expect(page.locator("#where")).to_contain_text("(live)", timeout=60_000)
    moves = page.locator("#move-list li.move")
    # Followed as it is played: the list grows, the newest step stays shown and highlighted.
    expect(moves.nth(2)).to_be_attached(timeout=60_000)
    seen = moves.count()
    expect(moves.nth(seen + 1)).to_be_attached(timeout=60_000)
    expect(page.locator("#move-list li.current")).to_have_count(1)
    shot(page, "web-live-followed.png", tmp_path)
    # Played to the end: the page turns into the finished match's, at its last step.
    expect(page.get_by_role("heading", name="Agents")).to_be_visible(timeout=120_000)
    expect(page.locator("#live-status")).to_have_count(0)
    last = finished_at_its_last_step(page)
    expect(page.locator("#move-list li.current")).to_have_attribute("data-step", str(last))

    # The move list: grouped by round, clickable, keyboard left/right.
    phases = page.locator("#move-list li.phase").all_inner_texts()
    assert phases[:2] == ["Round 1", "Round 2"] and len(phases) == len(set(phases))
    talker = page.locator("#move-list li.move:has(.bot-info)")
    assert talker.count() > 10
    entry = talker.nth(3)
    step = int(entry.get_attribute("data-step"))
    entry.locator("a").click()
    expect(page.locator("#where")).to_have_text(f"step {step} of {last}")
    expect(page.locator("#move-list li.current")).to_have_attribute("data-step", str(step))
    page.keyboard.press("ArrowRight")
    expect(page.locator("#move-list li.current")).to_have_attribute("data-step", str(step + 1))
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#move-list li.current")).to_have_attribute("data-step", str(step - 1))
    page.keyboard.press("ArrowRight")

    # The bot's info: beside the move, as text (the markup and escapes it sent are inert).
    info = page.locator("#bot-info")
    expect(info).to_contain_text('<img src=x onerror="alert(3)">')
    assert "\\x1b[2J" in info.inner_text() and "\\u202e" in info.inner_text()
    assert page.locator("#move-list img, .bot-info-box img, .bot-info-box b").count() == 0
    assert HOSTILE_INFO[:10] in talker.nth(0).locator(".bot-info").inner_text()
    assert re.match(r"^\d+\. seat 0: ", entry.locator("a").inner_text())
    assert page.problems == []
    page.close()


def test_arena_play_watch_serves_the_match_as_it_is_played(browser, tmp_path):
    port = free_port()
    record = tmp_path / "record.json"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env["TLACHTLI_PLUGINS"] = ",".join(filter(None, [os.environ.get("TLACHTLI_PLUGINS"), PLUGIN]))
    command = [sys.executable, "-m", "arena.cli", "play", "-g", "zapotec", "-a", "talker", "-a", "random",
               "-O", "0:delay_ms=250", "--seed", "3", "--record", str(record), "--watch", "--watch-port", str(port)]  # fmt: skip
    play = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        home = f"http://127.0.0.1:{port}"
        wait_for("the watch page", lambda: answers(home + "/api/matches/1/moves"), timeout=60)
        assert get_json(home + "/api/matches/1/moves")["live"] is True
        # Loopback only, and only under its own names (a rebinding page's Host is refused).
        request = urllib.request.Request(home + "/matches/1", headers={"Host": "evil.example"})
        with pytest.raises(urllib.error.HTTPError, match="400"):
            urllib.request.urlopen(request, timeout=10)
        page = open_page(browser, home + "/")  # redirects to the match
        expect = sync_api.expect
        expect(page.locator("#live-status")).to_be_visible()
        expect(page.locator("#move-list li.move").nth(2)).to_be_attached(timeout=60_000)
        expect(page.get_by_role("heading", name="Agents")).to_be_visible(timeout=120_000)
        assert "ladder" not in page.locator("main p").first.inner_text()  # no ladder to link to
        last = finished_at_its_last_step(page)
        saved = json.loads(record.read_text())
        assert last == len(saved["moves"])
        assert page.locator("#move-list li.move .bot-info").first.inner_text().startswith("thinking #1")
        assert page.problems == []
        page.close()
        assert play.poll() is None  # the page stays up after the end
        play.send_signal(signal.SIGTERM)
        out, err = play.communicate(timeout=30)
    finally:
        if play.poll() is None:
            play.kill()
            play.communicate()
    assert play.returncode == 0, err
    assert f"watch the match at {home}/matches/1" in err and "its page stays at" in err
    assert "talker" in out and "Traceback" not in err


def finished_at_its_last_step(page) -> int:
    """The finished match's last step, once the page shows it (`step N of N`) and its move list
    is drawn whole (N + 1 entries, step 0 included): the list is drawn after the "Agents"
    heading, so counting it at once could read the live list or none."""
    where = page.locator("#where")
    sync_api.expect(where).to_have_text(re.compile(r"^step (\d+) of \1$"))
    last = int(where.inner_text().split()[1])
    sync_api.expect(page.locator("#move-list li.move")).to_have_count(last + 1)
    return last


def answers(url: str) -> bool:
    try:
        get_json(url)
    except OSError:
        return False
    return True

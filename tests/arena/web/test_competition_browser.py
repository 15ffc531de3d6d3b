"""A public competition in a real browser (Playwright driving the system's Chromium): a player
signs up, uploads a bot and watches its states, sees a rejected upload's line, reads their bot's
page and a game's log (its stderr, markup shown as text), signs out; another player sees the
same bot's page without its private parts. `TLACHTLI_WEB_SHOTS=docs` writes docs/web.md's
`web-submission-rejected.png`, `web-bot.png` and `web-bot-log.png`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("argon2", reason="the web extra is not installed (pip install -e '.[web]')")

from arena.process.sandbox import bwrap_works  # noqa: E402
from tests.support.bot_packages import write_package  # noqa: E402
from tests.support.browser import NEEDS_CHROMIUM, open_page, playwright_api, shot  # noqa: E402
from tests.support.cli import arena_in_process  # noqa: E402
from tests.support.competition import HOSTILE, PASSWORD, archive, build_competition, competition_app  # noqa: E402
from tests.support.web_store import WEB_STORE, served  # noqa: E402

expect = playwright_api().expect
pytestmark = [
    NEEDS_CHROMIUM,
    WEB_STORE,  # on the worker of the other browser tests: one Chromium per parallel run
    pytest.mark.skipif(not bwrap_works(), reason="submitted bots run only under bubblewrap"),
]

TEST_PLUGINS = "examples.games.goofspiel.game,examples.games.goofspiel.agents"
NOISY = f"import sys\nprint({HOSTILE!r}, file=sys.stderr)\n"


@pytest.fixture(scope="module")
def competition(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    folder = tmp_path_factory.mktemp("browser-competition")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TLACHTLI_PLUGINS", TEST_PLUGINS)
        patch.setenv("TLACHTLI_ENTRY_POINTS_ONLY", "tlachtli")
        ladder, db = build_competition(folder)
        app = competition_app(db, ladder)
        with served(db, app) as url:
            yield {"folder": folder, "ladder": ladder, "url": url}
        app.state.competition.uploads.wait()


def _sign_up(page: Any, name: str) -> None:
    page.click("text=sign up")
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url("**/me")


def _upload(page: Any, path: Path) -> None:
    page.set_input_files("input[type=file]", str(path))
    page.click("#upload button[type=submit]")
    page.wait_for_url("**/submissions/*")


def _serious(problems: list[str]) -> list[str]:
    """Page errors and dialogs, and console errors but a refused page's own status (401, 403)."""
    return [p for p in problems if "Failed to load resource" not in p]


def test_a_player_from_sign_up_to_a_games_log_and_another_players_view(competition, browser, tmp_path):
    url = competition["url"]
    good = tmp_path / "anabot.tar.gz"
    good.write_bytes(archive(write_package(tmp_path / "anabot", name="anabot", body=NOISY)))
    bad = tmp_path / "lost.tar.gz"
    bad.write_bytes(archive(write_package(tmp_path / "lostbot", name="lostbot", games=("chess-on-mars",))))

    ana = open_page(browser, url + "/")
    _sign_up(ana, "ana")
    assert "Python" in ana.inner_text("main")  # what a bot can rely on
    _upload(ana, good)
    expect(ana.locator("#state")).to_have_text("active", timeout=120_000)
    assert ana.inner_text("#states").split() == ["received", "checked", "built", "validated", "active"]
    ana.goto(url + "/me")
    _upload(ana, bad)
    expect(ana.locator("#state")).to_have_text("rejected", timeout=120_000)
    assert "names games not installed here: chess-on-mars" in ana.inner_text("#reason")
    assert "state: rejected" in ana.inner_text("#log")
    shot(ana, "web-submission-rejected.png", tmp_path)

    played = arena_in_process("run", str(competition["ladder"]), "-q", cwd=competition["folder"])
    assert played.returncode == 0, played.stderr
    ana.goto(url + "/bots/anabot")
    assert ana.locator("#rating-chart svg").count() == 1
    assert ana.locator("#games tbody tr").count() > 0
    shot(ana, "web-bot.png", tmp_path)
    ana.click("#games tbody tr >> nth=0 >> text=log")
    assert HOSTILE in ana.inner_text("pre.stderr")  # as text, not run
    shot(ana, "web-bot-log.png", tmp_path)
    ana.goto(url + "/bots/anabot")
    log_address = ana.locator("#games a", has_text="log").first.get_attribute("href")
    ana.click("#signout")
    ana.goto(url + "/me")
    assert "sign in first" in ana.inner_text("main")
    assert _serious(ana.problems) == []

    ben = open_page(browser, url + "/")
    _sign_up(ben, "ben")
    ben.goto(url + "/bots/anabot")
    assert ben.locator("#games tbody tr").count() > 0
    assert ben.locator("#games a", has_text="log").count() == 0
    assert "lostbot" not in ben.inner_text("main") and "why" not in ben.inner_text("#versions")
    ben.goto(url + log_address)
    assert "owner only" in ben.inner_text("main")
    ben.goto(url + ben_match(log_address))
    ben.wait_for_selector(".board")
    assert HOSTILE not in ben.content() and "&lt;script&gt;alert" not in ben.content()
    assert _serious(ben.problems) == []


def ben_match(log_address: str) -> str:
    """The public match page of a game log's address (/bots/NAME/games/ID)."""
    return "/matches/" + log_address.rsplit("/", 1)[1]

"""A season on a competition's website: while `arena season start` plays, a player signs up, uploads
a bot through the pages, the running season takes it in and plays it, and the player reads the log
of one of its games, all through the website."""

from __future__ import annotations

import uuid

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")
pytest.importorskip("argon2", reason="the web extra is not installed (pip install -e '.[web]')")

from arena.process.sandbox import bwrap_works  # noqa: E402
from tests.arena.tournament.run.test_season_service import games_of, start, state, wait_until, write  # noqa: E402
from tests.support.cli import arena_in_process  # noqa: E402
from tests.support.competition import (  # noqa: E402
    bot_archive,
    client,
    competition_app,
    sign_up,
    upload,
    wait_final,
)
from tests.support.ladder_runs import killable_env  # noqa: E402

pytestmark = pytest.mark.skipif(not bwrap_works(), reason="submitted bots run only under bubblewrap")
HELLO = "anabot-was-here"


def test_a_player_takes_part_in_a_running_season_from_the_website(tmp_path, popen, request, monkeypatch):
    monkeypatch.setenv("TLACHTLI_PLUGINS", "examples.games.goofspiel.game,examples.games.goofspiel.agents")
    monkeypatch.setenv("TLACHTLI_ENTRY_POINTS_ONLY", "tlachtli")
    ladder = write(tmp_path / "season.toml", "seats = [2]\nplacement_games = 3\nnearest = 4")
    db, log = tmp_path / "season.db", tmp_path / "season.log"
    season = start(popen, ladder, db, killable_env(uuid.uuid4().hex, request), log)
    wait_until(
        lambda: state(db).get("counts", {}).get("done", 0) >= 3, season, log, "the season's first matches"
    )

    app = competition_app(db, ladder)
    try:
        ana = sign_up(client(app), "ana")
        body = f"import sys\nprint({HELLO!r}, file=sys.stderr)\n"
        answer = upload(ana, bot_archive(tmp_path, "anabot", body=body))
        assert answer.status_code == 303, answer.text
        number = int(answer.headers["location"].rsplit("/", 1)[1])
        assert wait_final(ana, number)["state"] == "active"
        # the running season takes the upload in (no restart) and plays it
        wait_until(lambda: games_of(db, "anabot") >= 2, season, log, "the uploaded bot's games")
        games = ana.get("/api/bots/anabot").json()["games"]
        assert games["count"] >= 2
        game = games["games"][0]["id"]
        page = ana.get(f"/bots/anabot/games/{game}")
        assert page.status_code == 200 and HELLO in page.text  # its own stderr of that game
        assert client(app).get(f"/bots/anabot/games/{game}").status_code in (401, 403)  # not for others
    finally:
        app.state.competition.uploads.wait()
    stopped = arena_in_process("season", "stop", "season", "--db", str(db))
    assert stopped.returncode == 0, stopped.stderr
    assert season.wait(timeout=120) == 0, log.read_text()

"""Following a match as it is played: `arena run` writes each step, the web arena serves them
(GET /api/matches/ID/moves), and a secret ladder's running match shows nothing."""

from __future__ import annotations

import socket

from starlette.testclient import TestClient

from arena.match.live import live_folder
from arena.web.app import create_app
from tests.support.cli import arena_in_process
from tests.support.live_ladder import running_match, start_ladder, stop_ladder, wait_for


def test_a_running_match_is_followed_to_its_end(tmp_path):
    process, db = start_ladder(tmp_path)
    try:
        match = wait_for("a running match", lambda: running_match(db))
        client = TestClient(create_app(db))
        seen: list[dict] = []
        live_steps = []

        def poll() -> bool:
            data = client.get(f"/api/matches/{match}/moves?after={len(seen)}").json()
            seen.extend(data["moves"])
            if data["live"]:
                live_steps.append(data["steps"])
                if data["steps"] > 1:  # a live step is drawn like a finished one
                    step = client.get(f"/api/matches/{match}/steps/{data['steps'] - 1}").json()
                    assert step["svg"].startswith("<svg") and step["info"]["step"] == data["steps"] - 1
            return data["status"] == "done"

        wait_for("the match to end", poll, every=0.3)
        assert "Live" not in client.get(f"/matches/{match}").text
    finally:
        stop_ladder(process)
    # Seen while played: several growing snapshots, then the finished match from the store.
    assert len(live_steps) >= 2 and 1 < live_steps[-1], live_steps
    finished = client.get(f"/api/matches/{match}/moves").json()
    assert finished["live"] is False and finished["error"] is None
    assert [move["step"] for move in seen] == list(range(finished["steps"]))
    assert seen == finished["moves"]  # what was followed is what was stored
    talker = [move for move in seen if move["seat"] == 0 and move["step"]]
    assert talker[0]["info"].startswith("thinking #") and talker[0]["phase"] == "Round 1"
    assert not live_folder(db).exists()  # every live file went with its match


def test_a_secret_ladder_shows_nothing_of_a_running_match(tmp_path):
    process, db = start_ladder(tmp_path, secret=True)
    try:
        match = wait_for("a running match", lambda: running_match(db))
        folder = live_folder(db)
        wait_for("its live file", lambda: any(folder.glob("*.jsonl")) if folder.exists() else False)
        client = TestClient(create_app(db))
        data = client.get(f"/api/matches/{match}/moves").json()
        assert (data["live"], data["steps"], data["moves"]) == (False, 0, [])
        assert client.get(f"/api/matches/{match}/steps/0").status_code == 404
        page = client.get(f"/matches/{match}").text
        assert "Live" not in page and "secret seed" in page
    finally:
        stop_ladder(process)


def test_a_seat_view_shows_only_its_own_bots_info(tmp_path):
    process, db = start_ladder(tmp_path, delay_ms=5)
    try:
        wait_for("the first match", lambda: running_match(db))
        client = TestClient(create_app(db))
        wait_for("its end", lambda: client.get("/api/matches/1/moves").json()["status"] == "done", every=0.3)
    finally:
        stop_ladder(process)
    for query, shown in (("", True), ("?seat=0", True), ("?seat=1", False)):
        moves = client.get(f"/api/matches/1/moves{query}").json()["moves"]
        infos = [move["info"] for move in moves if move["seat"] == 0 and move["step"]]
        assert all(infos) if shown else not any(infos)  # another bot's info may tell its hand
        step = next(move["step"] for move in moves if move["seat"] == 0 and move["step"])
        assert bool(client.get(f"/api/matches/1/steps/{step}{query}").json()["info"]["bot_info"]) is shown


def test_arena_play_watch_refuses_a_busy_port_in_one_line():
    with socket.create_server(("127.0.0.1", 0)) as busy:
        port = busy.getsockname()[1]
        result = arena_in_process(
            "play", "-g", "zapotec", "-a", "random", "-a", "random", "--watch", "--watch-port", str(port)
        )
    assert result.returncode == 2
    assert result.stderr.startswith(
        f"error: --watch cannot listen on 127.0.0.1:{port}: Address already in use"
    )
    assert "Traceback" not in result.stderr and len(result.stderr.splitlines()) == 1

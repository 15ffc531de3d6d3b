"""The web arena keeps a running secret ladder's deals hidden, as the CLI does,
and answers only the Host it serves (no DNS rebinding)."""

from __future__ import annotations

import http.client
import json
import sqlite3
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")
from starlette.testclient import TestClient  # noqa: E402

from arena.web.app import create_app, served_hosts  # noqa: E402
from tests.support.web_store import arena, free_port, start_server, stop_server  # noqa: E402

# No `seed` key: a ladder without one draws a secret seed.
LADDER = """\
name = "secret-goof"
game = "goofspiel"
[options]
cards = 5
[[agents]]
name = "r1"
agent = "random"
options = { seed = 1 }
[[agents]]
name = "r2"
agent = "random"
"""


@pytest.fixture(scope="module")
def played_secret(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ladder played to the end by `arena run` (copied by each test)."""
    folder = tmp_path_factory.mktemp("secret")
    (folder / "l.toml").write_text(LADDER)
    with pytest.MonkeyPatch.context() as patch:  # conftest's plugin setting is per test
        patch.setenv("TLACHTLI_PLUGINS", "examples.games.goofspiel.game")
        arena("run", str(folder / "l.toml"), "--db", str(folder / "t.db"), "--quiet")
    return folder / "t.db"


@pytest.fixture
def running_secret(played_secret: Path, tmp_path: Path) -> tuple[Path, list[int]]:
    """A secret ladder with one match played and one left (as a stopped `arena run` leaves it),
    and the seeds of its matches (read from the database, as only its owner can)."""
    db = tmp_path / "t.db"
    db.write_bytes(played_secret.read_bytes())
    with sqlite3.connect(db) as connection:
        connection.execute("UPDATE matches SET status = 'pending' WHERE idx = 1")
        seeds = [row[0] for row in connection.execute("SELECT seed FROM matches ORDER BY idx")]
        assert connection.execute("SELECT secret FROM ladders").fetchone()[0] == 1
    connection.close()
    return db, seeds


def test_running_secret_ladder_shows_no_seed_and_no_record(running_secret):
    db, seeds = running_secret
    client = TestClient(create_app(db), raise_server_exceptions=False)
    (ladder,) = client.get("/api/ladders").json()
    listing = client.get(f"/api/ladders/{ladder['id']}/matches").json()
    assert [m["seed"] for m in listing["matches"]] == ["secret", "secret"]
    played = next(m["id"] for m in listing["matches"] if m["status"] == "done")
    match = client.get(f"/api/matches/{played}").json()
    assert match["record"] is None and match["steps"] == 0
    assert client.get(f"/api/matches/{played}/steps/0").status_code == 404
    assert client.get(f"/api/matches/{played}/steps/0?seat=1").status_code == 404
    assert "secret seed" in client.get(f"/matches/{played}").text
    # the seed filter is no oracle: it is ignored while the deals are hidden
    assert client.get(f"/api/ladders/{ladder['id']}/matches?seed={seeds[0]}").json()["count"] == 2
    pages = [
        f"/ladders/{ladder['id']}/matches",
        f"/api/ladders/{ladder['id']}/matches",
        f"/matches/{played}",
        f"/api/matches/{played}",
        "/agents/r1",
        "/api/agents/r1",
        f"/api/ladders/{ladder['id']}",
    ]
    for url in pages:
        text = client.get(url).text
        assert not any(str(seed) in text for seed in seeds), url
    # the CLI applies the same rule
    assert "secret" in arena("matches", "--db", str(db)).stdout


def test_secret_ladder_is_shown_once_every_match_is_played(running_secret):
    db, seeds = running_secret
    with sqlite3.connect(db) as connection:
        connection.execute("UPDATE matches SET status = 'done'")
    connection.close()
    client = TestClient(create_app(db), raise_server_exceptions=False)
    (ladder,) = client.get("/api/ladders").json()
    listing = client.get(f"/api/ladders/{ladder['id']}/matches").json()
    assert sorted(m["seed"] for m in listing["matches"]) == sorted(seeds)
    first = listing["matches"][0]["id"]
    assert client.get(f"/api/matches/{first}").json()["record"]["seed"] == seeds[0]
    assert client.get(f"/api/matches/{first}/steps/0").status_code == 200


def test_served_hosts_are_the_address_and_its_aliases():
    assert served_hosts("127.0.0.1") == ["127.0.0.1", "localhost", "[::1]"]
    assert served_hosts("::1") == ["[::1]", "localhost", "127.0.0.1"]
    assert served_hosts("192.0.2.7", ["Arena.LAN"]) == ["192.0.2.7", "arena.lan"]
    assert served_hosts("0.0.0.0") == ["*"]


@pytest.mark.parametrize(
    ("host", "status"),
    [
        ("evil.example", 400),
        ("evil.example:8000", 400),
        ("127.0.0.1.evil.example", 400),
        ("127.0.0.1:8000", 200),
        ("localhost:8000", 200),
        ("[::1]:8000", 200),
    ],
)
def test_host_header_must_name_the_served_address(running_secret, host, status):
    db, _ = running_secret
    client = TestClient(create_app(db, hosts=served_hosts("127.0.0.1")), raise_server_exceptions=False)
    assert client.get("/api/ladders", headers={"host": host}).status_code == status


def test_arena_serve_refuses_another_host(running_secret):
    db, _ = running_secret
    port = free_port()
    server = start_server(db, port)
    try:
        for host, status in (("evil.example", 400), (f"localhost:{port}", 200)):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            connection.request("GET", "/api/ladders", headers={"Host": host})
            response = connection.getresponse()
            body = response.read()
            connection.close()
            assert response.status == status, (host, body)
            if status == 200:
                assert json.loads(body)[0]["name"] == "secret-goof"
    finally:
        stop_server(server)

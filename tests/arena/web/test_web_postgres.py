"""The web arena over a PostgreSQL store: the web tests' store copied there (`arena db copy`) answers
every page and JSON twin as the SQLite file does."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import quote

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")
from starlette.testclient import TestClient  # noqa: E402

from arena.tournament.store.copy import copy_store  # noqa: E402
from arena.web.app import create_app  # noqa: E402
from tests.support.web_store import WEB_STORE  # noqa: E402

pytestmark = WEB_STORE
JSON_ONLY = re.compile(r"/(leaderboard|progress|moves|steps/\d+)$")  # no page of their own


def api_urls(client: TestClient) -> list[str]:
    """Every JSON twin of the store's pages: the ladders, each ladder's view, leaderboard, progress
    and matches, each agent, and each match with its moves and a step of its replay."""
    urls = ["/api/ladders"]
    for ladder in client.get("/api/ladders").json():
        base = f"/api/ladders/{ladder['id']}"
        urls += [base, f"{base}/leaderboard", f"{base}/progress", f"{base}/matches"]
        for match in client.get(f"{base}/matches").json()["matches"][:3]:
            urls += [f"/api/matches/{match['id']}", f"/api/matches/{match['id']}/moves"]
            urls.append(f"/api/matches/{match['id']}/steps/2")
            urls += [f"/api/agents/{quote(seat['agent'], safe='')}" for seat in match["seats"]]
    return sorted(set(urls))


def test_every_page_reads_the_same_from_postgresql(web_store: Path, postgres_server) -> None:
    url = postgres_server.fresh(migrated=False)
    copy_store(str(web_store), url)
    sqlite = TestClient(create_app(web_store), raise_server_exceptions=False)
    postgres = TestClient(create_app(url), raise_server_exceptions=False)
    urls = api_urls(sqlite)
    assert len(urls) > 20  # both ladders, their matches and agents were found
    for page in urls:
        expected = sqlite.get(page)
        assert expected.status_code == 200, page
        answer = postgres.get(page)
        assert (answer.status_code, answer.json()) == (200, expected.json()), page
    html = ["/", *(u.removeprefix("/api") for u in urls if u != "/api/ladders" and not JSON_ONLY.search(u))]
    for page in html:
        answer = postgres.get(page)
        assert (answer.status_code, answer.headers["content-type"].split(";")[0]) == (200, "text/html"), page

"""`arena serve --competition` through Starlette's TestClient: a player's way from sign-up to
their bot's log of a game, and each attack of a public site watched as it fails (CSRF from another
origin, another user's cookie, a token in the wrong place, a path in an upload's name, a flood
of sign-ins, stored markup in a bot's name, description and stderr, another user's private
parts). The big-upload attack needs a real server: test_competition_server.py."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")
pytest.importorskip("argon2", reason="the web extra is not installed (pip install -e '.[web]')")

from arena.process.sandbox import bwrap_works  # noqa: E402
from tests.support.cli import arena_in_process  # noqa: E402
from tests.support.competition import (  # noqa: E402
    HOST,
    HOSTILE,
    PASSWORD,
    bot_archive,
    build_competition,
    client,
    competition_app,
    csrf,
    sign_up,
    upload,
    wait_final,
)
from tests.support.processes import eventually_empty  # noqa: E402

pytestmark = pytest.mark.skipif(not bwrap_works(), reason="submitted bots run only under bubblewrap")

TEST_PLUGINS = "examples.games.goofspiel.game,examples.games.goofspiel.agents"
# a bot that prints markup on stderr and explains its moves with markup too
NOISY = f"import sys\nprint({HOSTILE!r}, file=sys.stderr)\n"
NOISY_AGENT = f"""
from arena.bot import Agent


class Bot(Agent):
    def act(self, observation, decision):
        self.explain({HOSTILE!r})
        return 0
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A competition where ``ana`` uploaded ``anabot`` (active, its matches played) and ``ben``
    has an account."""
    folder = tmp_path_factory.mktemp("competition")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TLACHTLI_PLUGINS", TEST_PLUGINS)
        patch.setenv("TLACHTLI_ENTRY_POINTS_ONLY", "tlachtli")
        ladder, db = build_competition(folder)
        app = competition_app(db, ladder)
        # every test client comes from one address: more accounts from it than a real one may make
        app.state.competition.sign_ups.count = 1000
        ana = sign_up(client(app), "ana")
        data = bot_archive(folder, "anabot", body=NOISY, agent=NOISY_AGENT, description=HOSTILE)
        answer = upload(ana, data)
        assert answer.status_code == 303, answer.text
        number = int(answer.headers["location"].rsplit("/", 1)[1])
        assert wait_final(ana, number)["state"] == "active"
        played = arena_in_process("run", str(ladder), "-q", cwd=folder)
        assert played.returncode == 0, played.stderr
        ben = sign_up(client(app), "ben")
        yield {
            "folder": folder,
            "ladder": ladder,
            "db": db,
            "app": app,
            "ana": ana,
            "ben": ben,
            "anabot": number,
        }
        app.state.competition.uploads.wait()


def test_read_only_serve_has_no_competition_routes(site):
    from arena.web.app import create_app, served_hosts

    plain = client(create_app(site["db"], None, served_hosts("127.0.0.1")))
    assert plain.get("/signup").status_code == 404
    assert plain.post("/signin", data={}).status_code in (404, 405)
    assert plain.post("/api/submissions", content=b"x").status_code in (404, 405)


def test_sign_up_sign_in_and_sign_out_and_the_old_cookie_dies(site):
    browser = sign_up(client(site["app"]), "carla")
    cookie = browser.cookies.get("tl_session")
    page = browser.get("/me")
    assert page.status_code == 200 and "carla" in page.text
    set_cookie = [
        v
        for k, v in browser.post(
            "/signout", data={"csrf": csrf(page.text)}, headers={"origin": HOST}
        ).headers.multi_items()
        if k == "set-cookie"
    ]
    assert any("tl_session" in v for v in set_cookie)
    assert browser.get("/me").status_code == 401
    # the cookie copied before signing out is dead too: the session is gone on the server
    thief = client(site["app"])
    thief.cookies.set("tl_session", cookie)
    assert thief.get("/me").status_code == 401
    # and signing in again works
    token = csrf(browser.get("/signin").text)
    answer = browser.post(
        "/signin", data={"name": "carla", "password": PASSWORD, "csrf": token}, headers={"origin": HOST}
    )
    assert answer.status_code == 303 and browser.get("/me").status_code == 200


def test_the_session_cookie_is_httponly_and_samesite(site):
    browser = client(site["app"])
    token = csrf(browser.get("/signup").text)
    answer = browser.post(
        "/signup", data={"name": "dora", "password": PASSWORD, "csrf": token}, headers={"origin": HOST}
    )
    cookie = next(
        v for k, v in answer.headers.multi_items() if k == "set-cookie" and v.startswith("tl_session=")
    )
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Secure" not in cookie  # plain http here
    from starlette.testclient import TestClient

    # over TLS (Hypercorn's, or a proxy's: --behind-https) every cookie is Secure
    secure = TestClient(
        competition_app(site["db"], site["ladder"], secure=True), base_url="https://127.0.0.1"
    )
    token = csrf(secure.get("/signup").text)
    answer = secure.post(
        "/signup",
        data={"name": "dora2", "password": PASSWORD, "csrf": token},
        headers={"origin": "https://127.0.0.1"},
        follow_redirects=False,
    )
    cookie = next(
        v for k, v in answer.headers.multi_items() if k == "set-cookie" and v.startswith("tl_session=")
    )
    assert "Secure" in cookie


def test_bad_sign_up_input_is_one_line(site):
    browser = client(site["app"])
    token = csrf(browser.get("/signup").text)
    for name, password, line in (
        ("Ana!", PASSWORD, "a user name is 2-32 characters"),
        ("ana", PASSWORD, "the name &#39;ana&#39; is taken"),
        ("erin", "short", "a password has at least 10 characters"),
    ):
        answer = browser.post(
            "/signup", data={"name": name, "password": password, "csrf": token}, headers={"origin": HOST}
        )
        assert answer.status_code == 400 and line in answer.text and "Traceback" not in answer.text


def test_csrf_from_another_origin_is_refused(site):
    ana = site["ana"]
    token = csrf(ana.get("/me").text)
    evil = ana.post("/me/token", data={"csrf": token}, headers={"origin": "http://evil.example"})
    assert evil.status_code == 403 and "another origin" in evil.text
    no_origin = ana.post("/me/token", data={"csrf": token})
    assert no_origin.status_code == 403
    referer = ana.post("/me/token", data={"csrf": token}, headers={"referer": "http://evil.example/page"})
    assert referer.status_code == 403
    forged = ana.post("/me/token", data={"csrf": "guessed"}, headers={"origin": HOST})
    assert forged.status_code == 403 and "expired or came from elsewhere" in forged.text
    missing = ana.post("/me/token", data={}, headers={"origin": HOST})
    assert missing.status_code == 403
    # a sign-out from another site does not sign her out either
    assert (
        ana.post("/signout", data={"csrf": token}, headers={"origin": "http://evil.example"}).status_code
        == 403
    )
    assert ana.get("/me").status_code == 200
    # an upload from another origin is refused before its body is read
    refused = ana.post(
        "/me/upload",
        data={"csrf": token},
        files={"package": ("b.tar.gz", b"x", "application/gzip")},
        headers={"origin": "http://evil.example"},
    )
    assert refused.status_code == 403
    # a sign-in form posted from elsewhere (login CSRF) fails without the cookie's token
    stranger = client(site["app"])
    assert (
        stranger.post(
            "/signin", data={"name": "ana", "password": PASSWORD, "csrf": "x"}, headers={"origin": HOST}
        ).status_code
        == 403
    )


def test_another_users_session_cookie_shows_their_own_things_only(site):
    ana, ben = site["ana"], site["ben"]
    number = site["anabot"]
    assert ana.get(f"/submissions/{number}").status_code == 200
    assert ben.get(f"/submissions/{number}").status_code == 404
    assert ben.get(f"/api/submissions/{number}").status_code == 404
    game = ana.get("/api/bots/anabot").json()["games"]["games"][0]["id"]
    assert ana.get(f"/bots/anabot/games/{game}").status_code == 200
    refused = ben.get(f"/bots/anabot/games/{game}")
    assert refused.status_code == 403 and HOSTILE not in refused.text
    forged = client(site["app"])
    forged.cookies.set("tl_session", ana.cookies.get("tl_session")[:-2] + "xx")
    assert forged.get("/me").status_code == 401


def test_an_api_token_in_the_wrong_place_is_refused(site):
    ana = site["ana"]
    token = csrf(ana.get("/me").text)
    page = ana.post("/me/token", data={"csrf": token}, headers={"origin": HOST}).text
    api_token = page.split('<code id="token">')[1].split("</code>")[0]
    number = site["anabot"]
    script = client(site["app"])
    right = script.get(f"/api/submissions/{number}", headers={"authorization": f"Bearer {api_token}"})
    assert right.status_code == 200 and right.json()["state"] == "active"
    in_query = script.get(f"/api/submissions/{number}?token={api_token}")
    assert in_query.status_code == 400 and "Authorization header" in in_query.json()["error"]
    script.cookies.set("tl_session", api_token)  # a token is no session
    assert script.get(f"/api/submissions/{number}").status_code == 401
    script.cookies.clear()
    assert (
        script.get(f"/api/submissions/{number}", headers={"authorization": f"Token {api_token}"}).status_code
        == 401
    )
    assert (
        script.get(f"/api/submissions/{number}", headers={"authorization": "Bearer tl_wrong"}).status_code
        == 401
    )
    in_body = script.post("/api/submissions", content=b"x", params={"access_token": api_token})
    assert in_body.status_code == 400


def test_a_path_in_an_upload_name_writes_nothing_there(site, tmp_path):
    ben = site["ben"]
    target = site["folder"] / "escaped.tar.gz"
    for name in ("../../escaped.tar.gz", str(target), "..\\..\\escaped.tar.gz", "a/../../../escaped.tar.gz"):
        answer = upload(ben, bot_archive(tmp_path, "benbot", version=str(len(name))), filename=name)
        assert answer.status_code == 303
        wait_final(ben, int(answer.headers["location"].rsplit("/", 1)[1]))
    assert not target.exists()
    assert not list(site["folder"].rglob("escaped*"))
    assert not list(Path("/tmp").glob("escaped*"))
    # each upload is removed when its pipeline ends, just after it wrote the final state the test saw
    uploads = site["folder"] / "submissions" / "uploads"
    assert eventually_empty(lambda: list(uploads.iterdir())) == []


def test_a_thousand_sign_in_attempts_are_rate_limited(site):
    attacker = client(competition_app(site["db"], site["ladder"]))  # its own limits: the others' stay fresh
    token = csrf(attacker.get("/signin").text)
    statuses = []
    for number in range(1000):
        answer = attacker.post(
            "/signin",
            data={"name": "ana", "password": f"guess{number:06d}", "csrf": token},
            headers={"origin": HOST},
        )
        statuses.append(answer.status_code)
    assert statuses.count(401) <= 10 and statuses.count(429) >= 990
    assert set(statuses) == {401, 429}
    # meanwhile even the right password waits: the window is the name's too
    late = attacker.post(
        "/signin", data={"name": "ana", "password": PASSWORD, "csrf": token}, headers={"origin": HOST}
    )
    assert late.status_code == 429 and "try again in" in late.text and late.headers["retry-after"].isdigit()


def test_behind_a_proxy_each_player_has_their_own_sign_in_window_and_a_forged_one_gains_nothing(site):
    def attempts(app: Any, forwarded: str) -> list[int]:
        browser = client(app)
        token = csrf(browser.get("/signin").text)
        headers = {"origin": HOST, "x-forwarded-for": forwarded}
        return [
            browser.post(
                "/signin", data={"name": f"n{i}", "password": "x" * 10, "csrf": token}, headers=headers
            ).status_code
            for i in range(11)
        ]

    # behind the proxy, the address it added last counts: two players, two windows
    proxied = competition_app(site["db"], site["ladder"], proxied=True)
    assert attempts(proxied, "198.51.100.7")[-1] == 429
    assert attempts(proxied, "198.51.100.7, 203.0.113.9")[:10] == [401] * 10
    # served directly, a forged X-Forwarded-For is ignored: the peer's address counts
    direct = competition_app(site["db"], site["ladder"])
    assert attempts(direct, "198.51.100.1")[:10] == [401] * 10
    assert attempts(direct, "198.51.100.2")[0] == 429


def test_stored_markup_in_names_descriptions_and_stderr_is_shown_as_text(site, tmp_path):
    ana = site["ana"]
    # a description with markup, shown as text on the bot's page
    page = client(site["app"]).get("/bots/anabot").text
    assert HOSTILE not in page and '<p id="description">&lt;script&gt;alert(1)&lt;/script&gt;</p>' in page
    # a bot name with markup is refused by the manifest, and the line is escaped
    evil_name = tmp_path / "evil"
    (evil_name / "bot_code").mkdir(parents=True)
    (evil_name / "tlachtli.toml").write_text(
        f'name = "{HOSTILE}"\nversion = "1"\ngames = ["goofspiel"]\n[start]\npython = "bot_code:Bot"\n'
    )
    (evil_name / "bot_code" / "__init__.py").write_text("")
    from tests.support.competition import archive

    answer = upload(ana, archive(evil_name))
    number = int(answer.headers["location"].rsplit("/", 1)[1])
    assert wait_final(ana, number)["state"] == "rejected"
    for page in (ana.get(f"/submissions/{number}").text, ana.get("/me").text):
        assert HOSTILE not in page and "&lt;script&gt;" in page
    # its stderr and info texts on its game log, escaped
    game = ana.get("/api/bots/anabot").json()["games"]["games"][0]["id"]
    log = ana.get(f"/bots/anabot/games/{game}").text
    assert HOSTILE not in log
    assert log.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 2  # its stderr, and its info texts


def test_the_owner_sees_the_logs_and_another_player_the_public_parts(site):
    ana, ben = site["ana"], site["ben"]
    mine = ana.get("/api/bots/anabot").json()
    theirs = ben.get("/api/bots/anabot").json()
    anonymous = client(site["app"]).get("/api/bots/anabot").json()
    assert mine["mine"] and not theirs["mine"] and not anonymous["mine"]
    assert mine["games"]["count"] == theirs["games"]["count"] > 0
    assert all(g["log"] for g in mine["games"]["games"]) and not any(
        g["log"] for g in theirs["games"]["games"]
    )
    assert "reason" in mine["versions"][0] and "reason" not in theirs["versions"][0]
    assert mine["history"] and list(mine["history"]) == ["anabot"]  # its rating over the ladder
    page = ben.get("/bots/anabot").text
    assert "/bots/anabot/games/" not in page and "<svg" in page
    game = mine["games"]["games"][0]["id"]
    log = ana.get(f"/bots/anabot/games/{game}")
    assert "stderr" in log.text and "&lt;script&gt;" in log.text
    # the public match page keeps no stderr in a competition, its JSON neither
    match = ben.get(f"/api/matches/{game}").json()
    assert all("stderr" not in agent for agent in match["record"]["agents"])
    public = ben.get(f"/matches/{game}").text
    assert HOSTILE not in public and "&lt;script&gt;alert(1)&lt;/script&gt;" not in public


def test_downloads_are_json_lines_with_only_the_owners_stderr_and_a_quota(site, monkeypatch):
    from arena.web.competition import site as site_module

    ana, ben = site["ana"], site["ben"]
    lines = [json.loads(line) for line in ana.get("/api/bots/anabot/games?page=1").text.splitlines()]
    assert lines and all(entry["record"]["moves"] for entry in lines)
    own = [a for a in lines[0]["record"]["agents"] if a["display"] == "anabot"]
    others = [a for a in lines[0]["record"]["agents"] if a["display"] != "anabot"]
    assert all("stderr" in a for a in own) and all("stderr" not in a for a in others)
    theirs = [json.loads(line) for line in ben.get("/api/bots/anabot/games").text.splitlines()]
    assert all("stderr" not in a for entry in theirs for a in entry["record"]["agents"])
    assert client(site["app"]).get("/api/bots/anabot/games").status_code == 401
    monkeypatch.setattr(site_module, "DOWNLOADS_PER_DAY", 3)
    statuses = [ben.get("/api/bots/anabot/games").status_code for _ in range(4)]
    assert statuses[-1] == 429


def test_the_public_results_are_a_dataset(site):
    import sqlite3

    run_id = sqlite3.connect(site["db"]).execute("SELECT MAX(id) FROM ladders").fetchone()[0]
    rows = [
        json.loads(line)
        for line in client(site["app"]).get(f"/api/ladders/{run_id}/results.jsonl").text.splitlines()
    ]
    assert rows and all(row["status"] == "done" and len(row["seats"]) == 2 for row in rows)
    assert any(seat["agent"] == "anabot" for row in rows for seat in row["seats"])
    assert client(site["app"]).get("/api/ladders/999/results.jsonl").status_code == 404


def test_an_operator_made_account_signs_in_once_by_its_link(site):
    done = arena_in_process("users", "add", "olga", "--operator", "--db", str(site["db"]), "--url", HOST)
    assert done.returncode == 0, done.stderr
    link = done.stdout.strip().rsplit("/", 1)[1]
    browser = client(site["app"])
    token = csrf(browser.get(f"/welcome/{link}").text)
    answer = browser.post(
        f"/welcome/{link}", data={"password": PASSWORD, "csrf": token}, headers={"origin": HOST}
    )
    assert answer.status_code == 303 and browser.get("/operator").status_code == 200
    again = client(site["app"])
    token = csrf(again.get(f"/welcome/{link}").text)
    used = again.post(
        f"/welcome/{link}", data={"password": PASSWORD, "csrf": token}, headers={"origin": HOST}
    )
    assert used.status_code == 404 and "unknown, used or expired" in used.text
    assert site["ben"].get("/operator").status_code == 403
    listed = arena_in_process("users", "list", "--db", str(site["db"]))
    assert "olga  operator" in listed.stdout and "ana  player" in listed.stdout


def test_the_operator_suspends_a_user_and_a_bot_and_locks_submissions(site, tmp_path):
    operator = client(site["app"])
    done = arena_in_process("users", "add", "omar", "--operator", "--db", str(site["db"]))
    link = done.stdout.strip().rsplit("/", 1)[1]
    token = csrf(operator.get(f"/welcome/{link}").text)
    operator.post(f"/welcome/{link}", data={"password": PASSWORD, "csrf": token}, headers={"origin": HOST})
    victim = sign_up(client(site["app"]), "vic")

    def act(action: str, name: str = "") -> Any:
        token = csrf(operator.get("/operator").text)
        return operator.post(
            "/operator", data={"csrf": token, "action": action, "name": name}, headers={"origin": HOST}
        )

    assert act("suspend-user", "vic").status_code == 200
    assert victim.get("/me").status_code == 401
    assert act("restore-user", "vic").status_code == 200
    assert victim.get("/me").status_code == 401  # the suspension ended its sessions for good
    token = csrf(victim.get("/signin").text)
    victim.post(
        "/signin", data={"name": "vic", "password": PASSWORD, "csrf": token}, headers={"origin": HOST}
    )
    assert victim.get("/me").status_code == 200
    assert act("lock").status_code == 200
    locked = upload(victim, bot_archive(tmp_path, "vicbot"))
    assert locked.status_code == 403 and "locked" in locked.text
    act("unlock")
    answer = upload(victim, bot_archive(tmp_path, "vicbot"))
    number = int(answer.headers["location"].rsplit("/", 1)[1])
    assert wait_final(victim, number)["state"] == "active"
    act("suspend-bot", "vicbot")
    assert wait_final(victim, number)["state"] == "withdrawn"
    answer = upload(victim, bot_archive(tmp_path, "vicbot", version="2.0"))
    again = wait_final(victim, int(answer.headers["location"].rsplit("/", 1)[1]))
    assert again["state"] == "rejected" and "suspended by the operator" in again["reason"]
    assert act("dance", "x").status_code == 400

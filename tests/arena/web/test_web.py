"""The web arena (arena/web): routes and JSON twins on a real store, escaping, CSP, 404s, read-only."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import urllib.request
from pathlib import Path
from urllib.parse import quote

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")
from starlette.testclient import TestClient  # noqa: E402

import arena.web.app as web_app  # noqa: E402
from arena.web.app import create_app  # noqa: E402
from tests.support.cli import arena_in_process  # noqa: E402
from tests.support.web_store import (  # noqa: E402
    COMPARE,
    HOSTILE_NAME,
    WEB_STORE,
    arena,
    free_port,
    start_server,
    stop_server,
)

pytestmark = WEB_STORE


@pytest.fixture(scope="module")
def db(web_store: Path) -> Path:
    return web_store


@pytest.fixture(scope="module")
def client(db: Path) -> TestClient:
    return TestClient(create_app(db), raise_server_exceptions=False)


def ladder_ids(client: TestClient) -> dict[str, int]:
    return {ladder["name"]: ladder["id"] for ladder in client.get("/api/ladders").json()}


def match_ids(client: TestClient, ladder: int) -> list[int]:
    return [m["id"] for m in client.get(f"/api/ladders/{ladder}/matches").json()["matches"]]


def test_ladders_list_shows_progress_of_every_ladder(client):
    ladders = client.get("/api/ladders").json()
    assert {(entry["name"], entry["game"], entry["done"], entry["total"]) for entry in ladders} == {
        ("web-zapotec", "zapotec", 2, 2),
        ("web-teotihuacan", "teotihuacan", 2, 2),
    }
    page = client.get("/")
    assert page.status_code == 200 and "web-teotihuacan" in page.text and "2/2" in page.text


@pytest.mark.parametrize("name", ["web-zapotec", "web-teotihuacan"])
def test_leaderboard_json_is_the_cli_document(client, db, name):
    cli = json.loads(arena("leaderboard", name, "--db", str(db), "--format", "json").stdout)
    assert client.get(f"/api/ladders/{ladder_ids(client)[name]}/leaderboard").json() == cli
    view = client.get(f"/api/ladders/{ladder_ids(client)[name]}").json()
    assert view["leaderboard"] == cli
    assert set(view["history"]) == {row["agent"] for row in cli}
    assert view["head_to_head"]["agents"] == [row["agent"] for row in cli]


def test_ladder_page_draws_table_chart_and_matrix(client):
    page = client.get(f"/ladders/{ladder_ids(client)['web-teotihuacan']}")
    assert page.status_code == 200
    for needle in ('id="leaderboard"', "<polyline", 'class="h2h"', "mean score", "r1", "r2"):
        assert needle in page.text


def test_hostile_names_and_stderr_are_escaped_everywhere(client):
    ladder = ladder_ids(client)["web-zapotec"]
    first = match_ids(client, ladder)[0]
    hostile_agent = "/agents/%3Cscript%3Ealert(1)%3C%2Fscript%3E"
    for url in (
        "/",
        f"/ladders/{ladder}",
        f"/ladders/{ladder}/board",
        f"/ladders/{ladder}/matches",
        f"/matches/{first}",
        hostile_agent,
    ):
        page = client.get(url)
        assert page.status_code == 200, url
        assert HOSTILE_NAME not in page.text, url
        assert "<img src=x" not in page.text, url
    match_page = client.get(f"/matches/{first}").text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in match_page
    assert "&lt;img src=x onerror=" in match_page  # the bot's stderr, shown as text
    assert client.get("/api" + hostile_agent).json()["agent"] == HOSTILE_NAME
    # The board drawing of a step names the agents at their seats, escaped by the engine drawing.
    step = client.get(f"/api/matches/{first}/steps/3").json()
    assert "<script" not in step["svg"] and "seat 0 &lt;script&gt;alert(1)" in step["svg"]


def test_every_response_carries_the_content_security_policy(client):
    for url in ("/", "/api/ladders", "/static/match.js", "/matches/nope", "/no/such/page"):
        policy = client.get(url).headers["content-security-policy"]
        assert "script-src 'self'" in policy and "default-src 'none'" in policy, url


@pytest.mark.parametrize(
    "url",
    [
        "/matches/abc",
        "/matches/-1",
        "/matches/1.5",
        "/matches/99999999999999999999999999",
        "/matches/999999",
        "/ladders/x",
        "/ladders/999999",
        "/ladders/999999/matches",
        "/api/ladders/0/leaderboard",
        "/api/matches/1/steps/zz",
        "/api/matches/1/steps/100000",
        "/api/matches/1/steps/1?seat=x",
        "/api/matches/1/steps/1?seat=9",
        "/agents/nobody",
        "/static/../app.py",
    ],
)
def test_malformed_or_unknown_ids_answer_404(client, url):
    response = client.get(url)
    assert response.status_code == 404, (url, response.text[:200])
    assert "Traceback" not in response.text


def test_no_endpoint_writes_and_the_store_is_untouched(client, db):
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    ladder = ladder_ids(client)["web-zapotec"]
    first = match_ids(client, ladder)[0]
    for url in (
        "/",
        f"/ladders/{ladder}",
        f"/api/ladders/{ladder}/leaderboard",
        f"/matches/{first}",
        "/agents/html-bot",
    ):
        for method in ("POST", "PUT", "DELETE", "PATCH"):
            assert client.request(method, url).status_code == 405, (method, url)
        assert client.get(url).status_code == 200
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before


def test_match_viewer_steps_draw_the_board_and_explain_the_move(client):
    ladder = ladder_ids(client)["web-zapotec"]
    first = match_ids(client, ladder)[0]
    meta = client.get(f"/api/matches/{first}").json()
    assert meta["replay_error"] is None and meta["steps"] > 10
    zero = client.get(f"/api/matches/{first}/steps/0").json()
    one = client.get(f"/api/matches/{first}/steps/1").json()
    assert zero["svg"].startswith("<svg") and one["svg"] != zero["svg"]
    info = one["info"]
    assert info["step"] == 1 and info["options"][info["choice"]]["label"] == info["label"]
    assert info["decision"]["prompt"] and isinstance(info["log"], list) and info["clock_ms"]
    last = client.get(f"/api/matches/{first}/steps/{meta['steps'] - 1}").json()
    assert "game over" in last["svg"]


def test_seat_view_is_that_seats_observation(client):
    ladder = ladder_ids(client)["web-zapotec"]
    first = match_ids(client, ladder)[0]
    referee = client.get(f"/api/matches/{first}/steps/2").json()
    seat0 = client.get(f"/api/matches/{first}/steps/2?seat=0").json()
    assert "observation" not in referee and seat0["observation"]["seat"] == 0
    assert "cards face down" in seat0["svg"] and "cards face down" not in referee["svg"]


def test_teotihuacan_match_draws_boards_workers_and_pyramid(client):
    ladder = ladder_ids(client)["web-teotihuacan"]
    first = match_ids(client, ladder)[0]
    step = client.get(f"/api/matches/{first}/steps/5").json()
    for needle in ("Palace", "Nobles", "blue temple", "avenue", "Pyramid", "worker, power"):
        assert needle in step["svg"]
    # The seats as the arena numbers them, with the agents' names (was P1, P2 on this board only).
    entrants = client.get(f"/api/matches/{first}").json()["match"]["entrants"]
    assert all(f"seat {seat} {name}" in step["svg"] for seat, name in enumerate(entrants))
    assert "P1" not in step["svg"]


def test_matches_filters_and_pages(client):
    ladder = ladder_ids(client)["web-zapotec"]
    everything = client.get(f"/api/ladders/{ladder}/matches").json()
    assert everything["count"] == 2 and everything["pages"] == 1
    seed = everything["matches"][0]["seed"]
    assert client.get(f"/api/ladders/{ladder}/matches?seed={seed}").json()["count"] == 2
    assert client.get(f"/api/ladders/{ladder}/matches?seed={seed + 1}").json()["count"] == 0
    assert client.get(f"/api/ladders/{ladder}/matches?agent=html-bot").json()["count"] == 2
    assert client.get(f"/api/ladders/{ladder}/matches?agent=nobody").json()["count"] == 0
    assert client.get(f"/api/ladders/{ladder}/matches?fault=any").json()["count"] == 0
    assert client.get(f"/api/ladders/{ladder}/matches?page=99&seed=zz").status_code == 200


def test_agent_page_gives_results_by_seat(client):
    data = client.get("/api/agents/html-bot").json()
    assert sorted(line["seat"] for line in data["by_seat"]) == [0, 1]
    assert sum(line["matches"] for line in data["by_seat"]) == len(data["matches"]) == 2


def test_agent_page_shows_the_options_its_agent_declares(client):
    """The entrant named like a script plays ``random``: its page shows random's declared options
    (escaped like the rest); ``html-bot``, an executable, declares none and shows no table."""
    name = quote("<script>alert(1)</script>", safe="")
    data = client.get(f"/api/agents/{name}").json()
    assert data["plays"] == ["random"]
    (declared,) = data["options"]
    assert declared["agent"] == "random" and declared["headers"][:3] == ["option", "type", "default"]
    assert [row[:2] for row in declared["rows"]] == [["seed", "int"]]
    page = client.get(f"/agents/{name}").text
    assert "Options of random" in page and "<code>seed</code>" in page and "<script>alert" not in page
    assert client.get("/api/agents/html-bot").json()["options"] == []
    assert "Options of" not in client.get("/agents/html-bot").text


def test_pages_follow_a_store_that_changes_under_them(db, tmp_path, monkeypatch):
    """The server reads beside a writer: a result taken back by another connection shows at once."""
    # Recomputed before answering however long it takes: under load this small ladder's view can
    # take longer than SLOW_VIEW_S and would be served stale (that path has its own test below).
    monkeypatch.setattr(web_app, "SLOW_VIEW_S", float("inf"))
    copy = tmp_path / "live.db"
    shutil.copy(db, copy)
    client = TestClient(create_app(copy))
    ladder = ladder_ids(client)["web-zapotec"]
    assert client.get(f"/api/ladders/{ladder}/progress").json()["done"] == 2
    table = client.get(f"/api/ladders/{ladder}/leaderboard").json()
    assert {row["matches"] for row in table} == {2}
    writer = sqlite3.connect(copy)
    writer.execute("PRAGMA journal_mode = WAL")
    last = writer.execute("SELECT MAX(id) FROM matches WHERE ladder_id = ?", (ladder,)).fetchone()[0]
    with writer:
        writer.execute("DELETE FROM seats WHERE match_id = ?", (last,))
        writer.execute("DELETE FROM records WHERE match_id = ?", (last,))
        writer.execute("UPDATE matches SET status = 'running', finished = NULL WHERE id = ?", (last,))
    try:
        live = client.get(f"/api/ladders/{ladder}/progress").json()
        assert (live["done"], live["counts"].get("running")) == (1, 1)
        assert {row["matches"] for row in client.get(f"/api/ladders/{ladder}/leaderboard").json()} == {1}
        assert "1 running" in client.get(f"/ladders/{ladder}/board").text
        # ... and links to it: the running match's page follows its moves
        key = writer.execute("SELECT key FROM matches WHERE id = ?", (last,)).fetchone()[0]
        assert live["running"] == [{"id": last, "key": key}]
        assert (
            f'1 running: <span id="running"><a href="/matches/{last}">'
            in client.get(f"/ladders/{ladder}").text
        )
        # Running, with no live file yet: the page says it waits for the first step (and follows it).
        assert "waiting for its first step" in client.get(f"/matches/{last}").text
        assert client.get(f"/api/matches/{last}/moves").json() | {"moves": []} == {
            "status": "running",
            "live": True,
            "steps": 0,
            "error": None,
            "moves": [],
        }
    finally:
        writer.close()
    shutil.copy(db, copy)  # the match is played again: its page shows it at once
    assert client.get(f"/api/matches/{last}").json()["steps"] > 10


def test_serve_command_answers_on_localhost_and_stops(db):
    port = free_port()
    server = start_server(db, port)
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as response:
            assert response.status == 200
            assert "content-security-policy" in {key.lower() for key in response.headers}
    finally:
        log = stop_server(server)
    assert f"http://127.0.0.1:{port}/" in log and "Traceback" not in log


def test_serve_refuses_a_missing_database_in_one_line(tmp_path):
    result = arena_in_process("serve", "--db", str(tmp_path / "none.db"))
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0 and "no database at" in result.stderr


def test_a_slow_ladder_answers_at_once_and_catches_up_in_the_background(db, tmp_path, monkeypatch):
    import time

    monkeypatch.setattr(web_app, "SLOW_VIEW_S", 0.0)  # treat every ladder as big
    copy = tmp_path / "slow.db"
    shutil.copy(db, copy)
    client = TestClient(create_app(copy))
    ladder = ladder_ids(client)["web-zapotec"]
    assert client.get(f"/api/ladders/{ladder}").json()["rated"] == 2
    writer = sqlite3.connect(copy)
    last = writer.execute("SELECT MAX(id) FROM matches WHERE ladder_id = ?", (ladder,)).fetchone()[0]
    with writer:
        writer.execute("DELETE FROM seats WHERE match_id = ?", (last,))
        writer.execute("DELETE FROM records WHERE match_id = ?", (last,))
        writer.execute("UPDATE matches SET status = 'pending', finished = NULL WHERE id = ?", (last,))
    writer.close()
    stale = client.get(f"/api/ladders/{ladder}/leaderboard")
    assert stale.headers["x-tlachtli-fresh"] == "0" and {row["matches"] for row in stale.json()} == {2}
    deadline = time.monotonic() + 120  # only to end a hang (a loaded machine is slow)
    while time.monotonic() < deadline:
        fresh = client.get(f"/api/ladders/{ladder}/leaderboard")
        if fresh.headers["x-tlachtli-fresh"] == "1":
            break
        time.sleep(0.05)
    assert {row["matches"] for row in fresh.json()} == {1}
    assert client.get(f"/api/ladders/{ladder}").json()["ladder"]["done"] == 1


def test_serve_on_a_busy_port_fails_in_one_line(db):
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = arena_in_process("serve", "--db", str(db), "--port", str(port))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr and f"error: cannot listen on 127.0.0.1:{port}" in result.stderr


@pytest.fixture(scope="module")
def contest(contest_store: Path) -> Path:
    """A Zapotec solo ladder and a goofspiel `arena compare` run (conftest.py)."""
    return contest_store


def test_solo_ladder_page_ranks_by_margin_without_ratings(contest):
    client = TestClient(create_app(contest), raise_server_exceptions=False)
    ladder = ladder_ids(client)["web-solo"]
    cli = json.loads(arena("leaderboard", "web-solo", "--db", str(contest), "--format", "json").stdout)
    assert client.get(f"/api/ladders/{ladder}/leaderboard").json() == cli
    assert [row["rank"] for row in cli] == [1, 2, 3] and "cocijobot" not in {row["agent"] for row in cli}
    means = [row["mean_margin"] for row in cli]
    assert means == sorted(means, reverse=True) and "mu" not in cli[0] and "mle" not in cli[0]
    view = client.get(f"/api/ladders/{ladder}").json()
    assert view["solo"] is True and view["history"] == {} and view["head_to_head"]["met"] == 0
    page = client.get(f"/ladders/{ladder}").text
    assert 'id="solo-note"' in page and "<th>mean margin</th>" in page and "<th>gap to above</th>" in page
    assert "Mean margin over the automaton" in page and 'class="h2h"' not in page
    chart = page[page.index('aria-label="mean margin over the automaton') :]
    assert all(f">{row['agent']}</text>" in chart for row in cli) and chart.count("<circle") == 3


def test_compare_page_shows_the_verdict_the_llr_path_and_the_interval(contest):
    client = TestClient(create_app(contest), raise_server_exceptions=False)
    name = "compare prize-bidder vs random (goofspiel)"
    ladder = ladder_ids(client)[name]
    # the same command again only reports the stored (decided) test
    # (in process: it plays nothing; the suite's plugins hold goofspiel and its bidder)
    cli = json.loads(arena_in_process(*COMPARE, "--db", str(contest), "--json").stdout)
    assert cli["verdict"] == "H1" and cli["played_now"] == 0
    test = client.get(f"/api/ladders/{ladder}").json()["compare"]
    for key in (
        "new",
        "old",
        "design",
        "deals",
        "counts",
        "llr",
        "lower",
        "upper",
        "elo",
        "elo_low",
        "elo_high",
    ):
        assert test[key] == cli[key], key
    assert test["verdict"] == "H1" and test["verdict_text"].startswith("H1 accepted")
    assert test["games"] == 2 * test["deals"] and test["matches_done"] >= test["games"]
    assert test["path"][0] == [0, 0.0] and test["path"][-1] == [test["deals"], test["llr"]]
    page = client.get(f"/ladders/{ladder}").text
    assert "H1 accepted: NEW is better than OLD" in page
    assert page.count('class="bound upper"') == page.count('class="bound lower"') == 1
    assert 'class="llr"' in page and f"LLR {test['llr']:+.2f}" in page
    assert f"[{test['elo_low']:+.1f}" in page and f"{test['deals']}</td>" in page
    # the title names the game once (the run's name already ends with it)
    assert (
        "compare prize-bidder vs random (goofspiel, compare)" in page and "(goofspiel) (goofspiel" not in page
    )
    header = arena("leaderboard", name, "--db", str(contest)).stdout.splitlines()[0]
    assert header.startswith("compare prize-bidder vs random (goofspiel, compare): ")
    # an ordinary ladder's page has no comparison
    assert client.get(f"/api/ladders/{ladder_ids(client)['web-solo']}").json()["compare"] is None


def test_compare_page_of_a_run_stored_without_its_settings(contest, tmp_path):
    """Runs stored before the settings were kept: read back from the defaults and the description's
    elo1 when the digest confirms them, else the page says it cannot show the verdict."""
    copy = tmp_path / "older.db"
    shutil.copy(contest, copy)
    writer = sqlite3.connect(copy)
    with writer:
        writer.execute("UPDATE ladders SET config = json_remove(config, '$.sprt') WHERE format = 'compare'")
    client = TestClient(create_app(copy), raise_server_exceptions=False)
    ladder = ladder_ids(client)["compare prize-bidder vs random (goofspiel)"]
    assert client.get(f"/api/ladders/{ladder}").json()["compare"]["elo1"] == 200
    with writer:
        writer.execute(
            "UPDATE ladders SET config = json_set(config, '$.description', '') WHERE format = 'compare'"
        )
    writer.close()
    client = TestClient(create_app(copy), raise_server_exceptions=False)
    assert client.get(f"/api/ladders/{ladder}").json()["compare"] is None
    page = client.get(f"/ladders/{ladder}")
    assert page.status_code == 200 and "test settings cannot be read back" in page.text
    assert 'id="leaderboard"' in page.text


def test_the_ladder_page_and_match_list_say_why_each_seat_forfeited_escaped(tmp_path):
    # A bot that cannot start: the pages give the first line of its fault's detail, not only "crash".
    bot = tmp_path / "crasher"
    bot.write_text("#!/bin/sh\necho '<b>no model file</b>' >&2\nexit 3\n")
    bot.chmod(0o755)
    tmp_path.chmod(0o755)  # a seat uid reads the script through it
    (tmp_path / "crash.toml").write_text(
        'name = "crash"\ngame = "goofspiel"\n[[agents]]\nagent = "./crasher"\n[[agents]]\nagent = "random"\n'
    )
    db = tmp_path / "crash.db"
    arena("run", str(tmp_path / "crash.toml"), "--db", str(db), "--quiet", "--jobs", "1")
    client = TestClient(create_app(db), raise_server_exceptions=False)
    ladder = ladder_ids(client)["crash"]
    line = "exited with status 3; stderr: <b>no model file</b>"
    faults = client.get(f"/api/ladders/{ladder}").json()["faults"]
    assert faults == [{"agent": "./crasher", "fault": "crash", "count": 2, "line": line}]
    escaped = "exited with status 3; stderr: &lt;b&gt;no model file&lt;/b&gt;"
    page = client.get(f"/ladders/{ladder}").text
    assert escaped in page and "<b>no model file" not in page
    listed = client.get(f"/ladders/{ladder}/matches?fault=any").text
    assert listed.count(f'<div class="fault-line">./crasher: {escaped}</div>') == 2
    assert "<b>no model file" not in listed


def _leaderboard_cells(page: str, table_id: str = "leaderboard") -> tuple[list[str], list[list[str]]]:
    """The headers and cell texts of a ladder page's table (tags dropped)."""
    import html
    import re

    body = page[page.index(f'id="{table_id}"') :]
    body = body[: body.index("</table>")]

    def text(cell: str) -> str:
        return html.unescape(re.sub(r"<[^>]+>", "", cell)).strip()

    headers = [text(th) for th in re.findall(r"<th>(.*?)</th>", body)]
    rows = [
        [text(td) for td in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body.split("<tbody>")[1], re.S)
    ]
    return headers, rows


@pytest.mark.parametrize("name", ["web-zapotec", "web-teotihuacan"])
def test_the_ladder_page_table_reads_as_the_cli_table(client, db, name):
    # one formatting module: the same headers and the same figures, never a raw key or "-0.00"
    headers, rows = _leaderboard_cells(client.get(f"/ladders/{ladder_ids(client)[name]}").text)
    assert headers[:3] == ["rank", "agent", "rating"] and "MLE Elo" in headers and "mle low" not in headers
    cli = arena("leaderboard", name, "--db", str(db), "--wide").stdout.splitlines()
    assert cli[1].split() == " ".join(headers).split()  # the CLI's header line, word for word
    for row, line in zip(rows, cli[3:], strict=True):
        assert " ".join(row).split() == line.split()
    assert all("-0.0" not in cell for row in rows for cell in row)


def test_the_solo_page_table_reads_as_the_cli_table_with_win_rates_in_per_cent(contest):
    client = TestClient(create_app(contest), raise_server_exceptions=False)
    headers, rows = _leaderboard_cells(client.get(f"/ladders/{ladder_ids(client)['web-solo']}").text)
    assert headers == [
        "rank", "agent", "mean margin", "95% interval", "gap to above", "95% interval", "mean score",
        "win rate", "95% interval (Wilson)", "deals", "faults",
    ]  # fmt: skip
    cli = arena("leaderboard", "web-solo", "--db", str(contest), "--wide").stdout.splitlines()
    for row, line in zip(rows, cli[3:], strict=True):
        assert " ".join(row).split() == line.split()
        assert row[7].endswith("%") and row[2][0] in "+-0"


def test_retired_agents_are_marked_by_leaderboard_all_and_listed_marked_on_the_page(tmp_path):
    ladder = tmp_path / "grow.toml"
    three = 'name = "grow"\ngame = "goofspiel"\nseed = 4\n' + "".join(
        f'[[agents]]\nname = "{name}"\nagent = "random"\noptions = {{ seed = {n} }}\n'
        for n, name in enumerate(["r1", "r2", "gone"], start=1)
    )
    ladder.write_text(three)
    db = tmp_path / "grow.db"
    arena("run", str(ladder), "--db", str(db), "--quiet", "--jobs", "1")
    ladder.write_text(
        three.replace('[[agents]]\nname = "gone"\nagent = "random"\noptions = { seed = 3 }\n', "")
    )
    arena("run", str(ladder), "--db", str(db), "--quiet", "--jobs", "1")
    default = arena("leaderboard", "grow", "--db", str(db)).stdout
    assert "gone" not in default.split("\n", 1)[1] and "1 retired (--all shows them)" in default
    shown = arena("leaderboard", "grow", "--db", str(db), "--all").stdout
    assert "gone (retired)" in shown and "r1 (retired)" not in shown
    rows = json.loads(arena("leaderboard", "grow", "--db", str(db), "--all", "-f", "json").stdout)
    assert {row["agent"]: row["retired"] for row in rows} == {"r1": False, "r2": False, "gone": True}
    client = TestClient(create_app(db), raise_server_exceptions=False)
    page = client.get(f"/ladders/{ladder_ids(client)['grow']}").text
    assert [row[1] for row in _leaderboard_cells(page)[1]] in (["r1", "r2"], ["r2", "r1"])
    assert [row[1] for row in _leaderboard_cells(page, "retired")[1]] == ["gone (retired)"]


def test_the_leaderboard_fits_100_columns_unless_wide(db, contest):
    for store, name in ((db, "web-teotihuacan"), (contest, "web-solo")):
        narrow = arena("leaderboard", "-l", name, "--db", str(store)).stdout.splitlines()
        wide = arena("leaderboard", "-l", name, "--db", str(store), "--wide").stdout.splitlines()
        assert max(map(len, narrow)) <= 100 < max(map(len, wide)), name
        assert len(narrow[1].split()) < len(wide[1].split())  # fewer columns, the same rows
        assert [line.split()[1] for line in narrow[3:]] == [line.split()[1] for line in wide[3:]]

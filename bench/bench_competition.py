"""A competition server (`arena serve --competition`): upload to active through the web, a bot's
page with 10,000 games, and 50 players browsing while a ladder plays.

1. upload: a real `arena serve --competition` process; a player signs up through its form, uploads
   a small Python bot (no build step) to a Zapotec 2-player ladder and polls the submission's
   JSON until it says active (checks and three validation games in the bwrap sandbox).
2. bot page: the store of bench_web.py shaped as 2 agents x 5,000 deals x 2 seatings, so that one
   agent, owned as a submitted bot, has 10,000 games; its page (public and its owner's), its
   JSON, page 150 of its games, a download page (100 games with their records) and one game's
   log, through Starlette's TestClient (in process), after the server's start-up warm-up.
3. load: the same server process over that store while `arena run` plays another ladder into it;
   50 threads, each a player browsing for LOAD_S seconds (ladders, a ladder page, the bot's page
   and its games, a match, the progress JSON, in turn, THINK_S between two pages): every
   latency (overall and the slowest page's), the errors.

``python bench/bench_competition.py`` (needs root and bubblewrap for 1). Figures: median
(min-max), and p50/p99/max for the load.
"""

from __future__ import annotations

import http.cookiejar
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from bench import bench_web  # noqa: E402

REPEATS = 7
USERS = 50
LOAD_S = 30.0
THINK_S = 1.0  # a player's pause between two pages (a person clicking quickly)
PASSWORD = "bench password 1"
BOT = """
from arena.bot import Agent


class Bot(Agent):
    def act(self, observation, decision):
        return 0
"""
LIVE_LADDER = """name = "live"
game = "zapotec"
players = 2
matches_per_pairing = 400
seed = 3
[[agents]]
name = "l0"
agent = "random"
[[agents]]
name = "l1"
agent = "random"
"""


def figure(values: list[float]) -> str:
    return f"{statistics.median(values):8.1f} ms ({min(values):.1f}-{max(values):.1f})"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_server(db: Path, ladder: Path, port: int) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "arena.cli", "serve", "--db", str(db), "--port", str(port)]
    process = subprocess.Popen(
        [*command, "--competition", str(ladder)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"arena serve exited: {process.communicate()[1]}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/ladders", timeout=2):
                return process
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise SystemExit("arena serve did not start")


class Player:
    """A browser's cookies and the forms' tokens, over urllib."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
        )

    def get(self, path: str) -> str:
        with self.opener.open(self.base + path, timeout=60) as response:
            return str(response.read().decode())

    def post(self, path: str, body: bytes, content_type: str) -> str:
        request = urllib.request.Request(
            self.base + path, data=body, headers={"Content-Type": content_type, "Origin": self.base}
        )
        with self.opener.open(request, timeout=60) as response:
            return str(response.read().decode())

    def sign_up(self, name: str) -> None:
        token = re.search(r'name="csrf" value="([^"]+)"', self.get("/signup")).group(1)  # type: ignore[union-attr]
        form = urllib.parse.urlencode({"name": name, "password": PASSWORD, "csrf": token}).encode()
        self.post("/signup", form, "application/x-www-form-urlencoded")

    def upload(self, data: bytes) -> int:
        token = re.search(r'name="csrf" value="([^"]+)"', self.get("/me")).group(1)  # type: ignore[union-attr]
        boundary = "benchboundary"
        body = (
            (
                f'--{boundary}\r\nContent-Disposition: form-data; name="csrf"\r\n\r\n{token}\r\n'
                f'--{boundary}\r\nContent-Disposition: form-data; name="package"; filename="bot.tar.gz"\r\n'
                "Content-Type: application/gzip\r\n\r\n"
            ).encode()
            + data
            + f"\r\n--{boundary}--\r\n".encode()
        )
        page = self.post("/me/upload", body, f"multipart/form-data; boundary={boundary}")
        return int(re.search(r"Submission (\d+)", page).group(1))  # type: ignore[union-attr]


def bot_archive(folder: Path, version: str) -> bytes:
    from arena.submissions.archive import pack_folder
    from arena.tournament.plan.submission_limits import SubmissionLimits

    package = folder / f"pkg-{version}"
    (package / "bot_code").mkdir(parents=True)
    (package / "tlachtli.toml").write_text(
        f'name = "benchbot"\nversion = "{version}"\ngames = ["zapotec"]\n[start]\npython = "bot_code:Bot"\n'
    )
    (package / "bot_code" / "__init__.py").write_text(BOT)
    return pack_folder(package, SubmissionLimits())


def upload_to_active(folder: Path) -> None:
    ladder = folder / "upload.toml"
    upload_ladder = LIVE_LADDER.replace('"live"', '"upload"').replace("400", "1")
    ladder.write_text(upload_ladder.replace("seed = 3\n", "seed = 3\n[submissions]\nper_day = 100\n"))
    db = folder / "upload" / "tlachtli.db"
    db.parent.mkdir()
    subprocess.run(
        [sys.executable, "-m", "arena.cli", "run", str(ladder), "--db", str(db), "-q"],
        check=True,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )
    port = free_port()
    server = start_server(db, ladder, port)
    try:
        player = Player(f"http://127.0.0.1:{port}")
        player.sign_up("bench")
        times = []
        for repeat in range(REPEATS):
            data = bot_archive(folder, f"1.{repeat}")
            start = time.perf_counter()
            number = player.upload(data)
            while True:
                state = re.search(r'"state":"([a-z]+)"', player.get(f"/api/submissions/{number}"))
                if state and state.group(1) in ("active", "rejected"):
                    break
                time.sleep(0.05)
            if state.group(1) != "active":
                raise SystemExit(
                    f"submission {number} was rejected: {player.get(f'/api/submissions/{number}')}"
                )
            times.append((time.perf_counter() - start) * 1000)
        print(f"upload to active through the web (real server, polled every 50 ms): {figure(times)}")
    finally:
        server.terminate()
        server.wait(30)


def bot_page(folder: Path) -> tuple[Path, Path, int]:
    """The 10,000-game store with agent-0 owned as a submitted bot; (db, ladder file, a match id)."""
    from starlette.testclient import TestClient

    from arena.submissions.store import Submission, SubmissionStore, submissions_folder
    from arena.web.app import create_app
    from arena.web.competition.config import CompetitionConfig

    bench_web.AGENTS, bench_web.DEALS = 2, 5000  # one pairing: agent-0 plays all 10,000 matches
    start = time.perf_counter()
    synthetic = bench_web.SyntheticRun(folder, hold_back=0)
    db = synthetic.db
    synthetic.store.close()
    print(f"store: {synthetic.stored} matches written in {time.perf_counter() - start:.1f} s")
    ladder = folder / "bench-web.toml"
    ladder.write_text(bench_web.big_ladder())
    submissions = SubmissionStore(submissions_folder(db))
    submissions.create()
    submissions.save(Submission(1, "bench-web", "owner", name="agent-0", version="1", state="active"))
    app = create_app(db, None, None, CompetitionConfig(ladder))
    start = time.perf_counter()
    app.state.arena.warm_up()  # as `arena serve` does at start, before anyone asks
    print(f"server start-up warm-up (the ladder's ratings from scratch): {time.perf_counter() - start:.2f} s")
    site = app.state.competition
    site.accounts.add_user("owner", PASSWORD)
    owner = TestClient(app, base_url="http://127.0.0.1")
    owner.cookies.set("tl_session", site.accounts.open_session("owner")[0])
    public = TestClient(app, base_url="http://127.0.0.1")
    match_id = synthetic.match_id
    cases = (
        ("bot page (public)", "/bots/agent-0", public),
        ("bot page (owner)", "/bots/agent-0", owner),
        ("bot JSON", "/api/bots/agent-0", public),
        ("bot page, page 150", "/bots/agent-0?page=150", owner),
        ("game log (owner)", f"/bots/agent-0/games/{match_id}", owner),
        ("download page", "/api/bots/agent-0/games?page=50", owner),
    )
    for label, url, client in cases:
        times: list[float] = []
        for _ in range(REPEATS):
            start = time.perf_counter()
            response = client.get(url)
            times.append((time.perf_counter() - start) * 1000)
            if response.status_code != 200:
                raise SystemExit(f"{url}: HTTP {response.status_code} {response.text[:200]}")
        print(f"{label:20} {figure(times)}")
    return db, ladder, match_id


def browsing(db: Path, ladder: Path, match_id: int, folder: Path) -> None:
    live = folder / "live.toml"
    live.write_text(LIVE_LADDER)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    port = free_port()
    server = start_server(db, ladder, port)
    runner = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "run", str(live), "--db", str(db), "-q", "--jobs", "1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    base = f"http://127.0.0.1:{port}"
    paths = [
        "/",
        "/ladders/1",
        "/bots/agent-0",
        "/bots/agent-0?page=7",
        f"/matches/{match_id}",
        "/api/ladders/1/progress",
    ]
    latencies: list[float] = []
    by_path: dict[str, list[float]] = {path: [] for path in paths}
    errors: list[str] = []
    lock = threading.Lock()
    stop = time.monotonic() + LOAD_S

    def user(index: int) -> None:
        turn = index
        while time.monotonic() < stop:
            path = paths[turn % len(paths)]
            turn += 1
            start = time.perf_counter()
            try:  # any status but 2xx raises (urllib's HTTPError)
                with urllib.request.urlopen(base + path, timeout=60) as response:
                    response.read()
            except OSError as error:
                with lock:
                    errors.append(f"{path}: {error}")
            with lock:
                latencies.append((time.perf_counter() - start) * 1000)
                by_path[path].append(latencies[-1])
            time.sleep(THINK_S)

    try:
        for path in paths:  # the server's start-up warm-up done (a first visitor waits for it)
            with urllib.request.urlopen(base + path, timeout=600) as response:
                response.read()
        threads = [threading.Thread(target=user, args=(i,)) for i in range(USERS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        runner.terminate()
        runner.wait(60)
        server.terminate()
        server.wait(60)
    ordered = sorted(latencies)
    print(
        f"{USERS} players browsing {LOAD_S:.0f} s ({THINK_S:.0f} s between pages) while `arena run` plays: "
        f"{len(ordered)} requests ({len(ordered) / LOAD_S:.0f}/s), {percentiles(ordered)}, "
        f"errors {len(errors)}" + (f" (first: {errors[0]})" if errors else "")
    )
    for path, times in by_path.items():
        print(f"  {path:28} {percentiles(sorted(times))}")


def percentiles(ordered: list[float]) -> str:
    """p50, p99 and max of sorted latencies (ms)."""
    if not ordered:
        return "no request"
    p50 = ordered[len(ordered) // 2]
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return f"p50 {p50:.0f} ms, p99 {p99:.0f} ms, max {ordered[-1]:.0f} ms"


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        upload_to_active(folder)
        db, ladder, match_id = bot_page(folder)
        browsing(db, ladder, match_id, folder)


if __name__ == "__main__":
    main()

"""A small real store for the web arena's tests: one Zapotec and one Teotihuacan ladder played by
`arena run`, with an agent named like a script tag and a bot that writes HTML to stderr."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import PLAYS_IN_WORKERS, arena_in_process

ROOT = Path(__file__).resolve().parents[2]
HOSTILE_NAME = "<script>alert(1)</script>"
# The modules that share the store or the Chromium (tests/arena/web/conftest.py) run on one worker
# under xdist: the store is played, and a browser launched (~2-3 s of CPU), once in a run.
WEB_STORE = pytest.mark.xdist_group("web-store")

ZAPOTEC = """\
name = "web-zapotec"
game = "zapotec"
players = 2
matches_per_pairing = 1
seed = 7

[[agents]]
name = "<script>alert(1)</script>"
agent = "random"
options = {{ seed = 1 }}

[[agents]]
name = "html-bot"
agent = "{bot}"
"""

TEOTIHUACAN = """\
name = "web-teotihuacan"
game = "teotihuacan"
players = 2
matches_per_pairing = 1
seed = 3

[[agents]]
name = "r1"
agent = "random"
options = { seed = 1 }

[[agents]]
name = "r2"
agent = "random"
options = { seed = 2 }
"""


SOLO = """\
name = "web-solo"
game = "zapotec"
format = "solo"
players = 1
matches_per_pairing = 2
seed = 5

[[agents]]
name = "random"
agent = "random"
options = {{ seed = 1 }}

[[agents]]
name = "first-option"
agent = "{first_option}"

[[agents]]
name = "greedy"
agent = "greedy"
"""

# The scripted goofspiel bidder (a test plugin) against random: H1 within a few deals, in seconds.
COMPARE = ("compare", "prize-bidder", "random", "-g", "goofspiel", "-o", "cards=5", "--elo1", "200")
COMPARE += ("--seed", "0")  # the deals of the first run, as the pages' tests expect
TEST_PLUGINS = "examples.games.goofspiel.game,examples.games.goofspiel.agents"


def arena(*args: str, **env_extra: str) -> subprocess.CompletedProcess:
    """Run the `arena` command (with ``env_extra`` in its environment); fail with its stderr when it
    fails. A command that only reads (no ``env_extra``, not one that plays) runs in this process
    (tests/support/cli.py: the same output, without starting a Python)."""
    if not env_extra and args[0] not in PLAYS_IN_WORKERS:
        result = arena_in_process(*args)
    else:
        env = dict(os.environ, PYTHONPATH=str(ROOT), **env_extra)
        result = subprocess.run(
            [sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, timeout=240, env=env
        )
    assert result.returncode == 0, result.stderr
    return result


def build_store(folder: Path) -> Path:
    """Play both ladders into ``folder``/web.db and return its path."""
    # A bot sees only its own folder in the sandbox: the HTML bot and the bot it hands over to
    # are laid side by side, as a bot author ships one.
    bots = folder / "bots"
    bots.mkdir()
    for source in (
        ROOT / "tests" / "support" / "html_stderr_bot.py",
        ROOT / "examples" / "bots" / "first_option.py",
    ):
        shutil.copy2(source, bots / source.name)
    bots.chmod(0o755)
    bot = bots / "html_stderr_bot.py"
    (folder / "zapotec.toml").write_text(ZAPOTEC.format(bot=bot))
    (folder / "teotihuacan.toml").write_text(TEOTIHUACAN)
    db = folder / "web.db"
    for ladder in ("zapotec.toml", "teotihuacan.toml"):
        arena("run", str(folder / ladder), "--db", str(db), "--quiet", "--jobs", "2")
    return db


def build_contest_store(folder: Path) -> Path:
    """Play a Zapotec solo ladder (random, first-option and greedy against Cocijobot, 2 deals:
    enough for distinct mean margins, greedy's the best, and a margin interval)
    and an `arena compare` on goofspiel (``COMPARE``) into ``folder``/contest.db."""
    (folder / "solo.toml").write_text(
        SOLO.format(first_option=ROOT / "examples" / "bots" / "first_option.py")
    )
    db = folder / "contest.db"
    arena("run", str(folder / "solo.toml"), "--db", str(db), "--quiet", "--jobs", "2")
    arena(*COMPARE, "--db", str(db), "--quiet", "--jobs", "2", TLACHTLI_PLUGINS=TEST_PLUGINS)
    return db


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_server(db: Path, port: int) -> subprocess.Popen:
    """`arena serve` on ``port``, answered once it is up; the caller must stop it (stop_server)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    process = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "serve", "--db", str(db), "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    deadline = time.monotonic() + 180  # only to end a hang: a loaded machine may take a minute to start it
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"arena serve exited: {process.communicate()[1]}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/ladders", timeout=2):
                return process
        except OSError:
            time.sleep(0.1)
    stop_server(process)
    raise AssertionError("arena serve did not answer within 180 s")


def stop_server(process: subprocess.Popen) -> str:
    """Stop the server (SIGINT, then kill) and return its stderr."""
    if process.poll() is None:
        process.send_signal(2)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
    return process.communicate()[1]


@contextmanager
def served(db: Path, app: Any = None) -> Iterator[str]:
    """The web arena over ``db`` as `arena serve` serves it (Hypercorn's trio worker, the same app
    and Host check), but in a thread of this process: its address, while inside.

    ``app``: another app to serve (a competition's) instead of ``create_app(db)``.
    For tests about the pages, not the server process (test_web.py keeps a real `arena serve`):
    no new Python to start, and nothing the leak guard could find left over.
    """
    import trio
    from hypercorn.config import Config
    from hypercorn.trio import serve

    from arena.web.app import create_app, served_hosts

    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        config = Config()
        config.bind = [f"fd://{os.dup(listener.fileno())}"]  # Hypercorn owns (and closes) the copy
    config.accesslog = None
    config.loglevel = "WARNING"  # not its start-up lines
    app = app if app is not None else create_app(db, None, served_hosts("127.0.0.1"))
    running: dict[str, Any] = {}
    ready = threading.Event()

    async def main() -> None:
        running["stop"], running["token"] = trio.Event(), trio.lowlevel.current_trio_token()
        ready.set()
        await serve(app, config, shutdown_trigger=running["stop"].wait)  # type: ignore[arg-type]

    def run() -> None:
        try:
            trio.run(main)
        except BaseException as error:  # shown by the test that waits for it below
            running["error"] = error
        finally:
            ready.set()

    thread = threading.Thread(target=run, name=f"web-arena-{port}", daemon=True)
    thread.start()
    ready.wait(60)
    try:
        if "error" in running:
            raise AssertionError(f"the web arena did not start: {running['error']!r}")
        yield f"http://127.0.0.1:{port}"
    finally:
        if "token" in running:
            try:
                trio.from_thread.run_sync(running["stop"].set, trio_token=running["token"])
            except trio.RunFinishedError:
                pass
        thread.join(30)
    if "error" in running:
        raise AssertionError(f"the web arena failed: {running['error']!r}")

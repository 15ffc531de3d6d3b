"""A ladder played slowly enough to be followed live: `arena run` in the background, the `talker`
test bot (tests/support/info_agents.py) taking ``delay_ms`` a move and explaining each one."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

from tests.support.web_store import ROOT

LADDER = """\
name = "live-zapotec"
game = "zapotec"
players = 2
matches_per_pairing = 1
{seed}

[[agents]]
name = "talker"
agent = "talker"
options = {{ delay_ms = {delay_ms}, info = "{info}" }}

[[agents]]
name = "random"
agent = "random"
options = {{ seed = 1 }}
"""
PLUGIN = "tests.support.info_agents"


def start_ladder(
    folder: Path, delay_ms: int = 120, secret: bool = False, info: str = "plain"
) -> tuple[subprocess.Popen, Path]:
    """`arena run` of the live ladder into ``folder``/live.db, one match at a time (the talker's
    ``info`` mode: tests/support/info_agents.py); the caller ends the process (``stop_ladder``).
    Returns it and the database's path."""
    ladder = folder / "live.toml"
    ladder.write_text(LADDER.format(seed="" if secret else "seed = 11", delay_ms=delay_ms, info=info))
    db = folder / "live.db"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env["TLACHTLI_PLUGINS"] = ",".join(filter(None, [os.environ.get("TLACHTLI_PLUGINS"), PLUGIN]))
    process = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "run", str(ladder), "--db", str(db), "--quiet", "--jobs", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    return process, db


def stop_ladder(process: subprocess.Popen) -> str:
    """End `arena run` (its matches go back to pending) and return its stderr."""
    if process.poll() is None:
        process.send_signal(2)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
    return process.communicate()[1]


def wait_for(what: str, check: Callable[[], Any], timeout: float = 120, every: float = 0.1) -> Any:
    """``check()``'s first true value, polled until ``timeout`` s; AssertionError naming ``what``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(every)
    raise AssertionError(f"timed out waiting for {what}")


def get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


def running_match(db: Path) -> int | None:
    """The id of the match `arena run` is playing in ``db``, if any."""
    if not db.exists():
        return None
    try:
        with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as connection:
            row = connection.execute("SELECT id FROM matches WHERE status = 'running'").fetchone()
    except sqlite3.Error:
        return None
    return row[0] if row else None

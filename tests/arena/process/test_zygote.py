"""Warm starts: agents forked from a sandboxed zygote keep every isolation of an exec'd one.

The attacker (tests/support/zygote_attackers.py) leaves a note for the next match through every
channel a forked model might offer (a module global, files, an abstract socket held by a process
of its own, SysV shared memory, the host name, signals and ptrace to whatever it sees, its
environment); the next match, forked from the same zygote, must find none. The control: in one
match, every note it left is found.
"""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
import time
import uuid

import pytest

from arena.match.referee import run_match
from arena.match.spec import MatchSpec
from arena.process import warm, zygote
from arena.process.sandbox import SEAT_UID_BASE
from arena.process.spawn import START_ENV
from arena.tournament.store.sqlite import decode_record
from tests.support.zygote_attackers import start_python_agents_from_a_zygote

pytestmark = pytest.mark.skipif(not zygote.zygote_supported(), reason="zygotes need root and bubblewrap")


@pytest.fixture(autouse=True)
def _zygote_start(monkeypatch):
    start_python_agents_from_a_zygote(monkeypatch)


@pytest.fixture
def spawned(monkeypatch) -> list[zygote.Zygote]:
    """The zygote of each agent forked in this test, in order."""
    used: list[zygote.Zygote] = []
    spawn = zygote.Zygote.spawn

    async def counting(self, *args, **kwargs):
        used.append(self)
        return await spawn(self, *args, **kwargs)

    monkeypatch.setattr(zygote.Zygote, "spawn", counting)
    return used


def match(*options: dict, agents: tuple[str, ...] = ("note", "random")) -> dict:
    """A goofspiel match of the note bot (seat 0) against random; its record."""
    agent_options = options + ({},) * (len(agents) - len(options))
    return run_match(MatchSpec(game="goofspiel", agents=agents, seed=3, agent_options=agent_options)).record


def lines(record: dict, prefix: str, seat: int = 0) -> list[str]:
    return re.findall(rf"^{prefix}: (.*)$", record["agents"][seat]["stderr"], re.MULTILINE)


def test_a_note_left_in_one_match_is_not_found_by_the_next_from_the_same_zygote(spawned):
    tag = uuid.uuid4().hex
    with warm.kept_warm():
        left = match({"phase": "leave", "tag": tag})
        looked = match({"phase": "look", "tag": tag})
    assert len(spawned) == 4 and len(set(map(id, spawned))) == 1, "one zygote forked all four agents"
    # the probes are real: these channels held within the match
    assert {"global", "files", "socket", "shm", "environment"} <= set(lines(left, "LEFT")), left["agents"][0]
    assert lines(looked, "LOOKED") == [""] or "LOOKED" in looked["agents"][0]["stderr"]
    assert lines(looked, "FOUND") == [], looked["agents"][0]["stderr"]
    assert left["faults"] == [] and looked["faults"] == []


def test_the_control_every_note_left_is_found_within_its_own_match():
    tag = uuid.uuid4().hex
    record = match({"phase": "both", "tag": tag})
    assert set(lines(record, "LEFT")) <= set(lines(record, "FOUND"))
    assert {"global", "files", "socket", "shm"} <= set(lines(record, "FOUND"))


def test_a_forked_agent_has_its_own_uid_pids_tmp_and_filter_and_nothing_else(spawned):
    record = match({"phase": "inspect"}, {"phase": "inspect"}, agents=("note", "note"))
    assert len(spawned) == 2
    facts = [
        dict(line.split("=", 1) for line in " ".join(lines(record, "FACT", seat)).split()) for seat in (0, 1)
    ]
    for fact in facts:
        assert int(fact["uid"]) >= SEAT_UID_BASE
        assert fact["pids"] == "1"  # alone in its PID namespace: not the zygote, not the other seat
        assert int(fact["cap_eff"], 16) == 0 and int(fact["cap_bnd"], 16) == 0
        assert fact["seccomp"] == "2" and fact["no_new_privs"] == "1"
        assert set(fact["fds"].split(",")) <= {"pipe", "/dev/null"}  # its pipes only
        assert fact["tmp"] == "" and fact["cwd"] == "/tmp"
        assert fact["net"] == "lo"
        allowed = {
            "HOME",
            "TMPDIR",
            "PATH",
            "PYTHONPATH",
            "LANG",
            "TLACHTLI_PLUGINS",
            "PWD",
        }  # PWD: bwrap's, as exec'd
        assert set(fact["env"].split(",")) <= allowed | {
            name for name in os.environ if name.startswith(("LC_", "PYTHON", "TLACHTLI_TEST"))
        }
    assert facts[0]["uid"] != facts[1]["uid"]


def test_the_zygote_ends_with_the_match_unless_kept_warm(spawned):
    match({"phase": "inspect"})
    assert zygote._zygotes == {} and not spawned[0].alive()
    with warm.kept_warm():
        match({"phase": "inspect"})
        assert list(zygote._zygotes.values()) == [spawned[-1]] and spawned[-1].alive()
    assert zygote._zygotes == {} and not spawned[-1].alive()


def test_a_zygote_that_cannot_start_is_one_oserror_and_leaves_nothing(monkeypatch):
    """Its interpreter exits at once (``false`` in its place): an OSError the referee turns into a
    spawn fault, its process gone. (With children started ahead, its clean-up once raised
    AttributeError here: their list did not exist yet.)"""
    monkeypatch.setattr(sys, "executable", "/bin/false")
    with pytest.raises(OSError, match="the zygote did not start"):
        zygote.Zygote()


def test_a_slow_zygote_start_is_not_charged_to_the_agents_handshake_clock(monkeypatch):
    # A worker's first match starts the zygote (a Python start and every plugin's import): on a
    # loaded machine that took longer than the handshake clock, and both seats forfeited.
    start = zygote.Zygote.__init__

    def slow_start(self):
        time.sleep(1.5)
        start(self)

    monkeypatch.setattr(zygote.Zygote, "__init__", slow_start)
    spec = MatchSpec(game="goofspiel", agents=("random", "random"), seed=3, handshake_ms=1000)
    record = run_match(spec).record
    assert record["faults"] == []
    assert all(agent["handshake_ms"] < 1000 for agent in record["agents"])


LADDER = """
name = "warm"
game = "goofspiel"
players = 2
format = "round-robin"
matches_per_pairing = 1
seed = 1
[[agents]]
name = "inspector"
agent = "note"
options = { phase = "inspect" }
[[agents]]
name = "other"
agent = "random"
"""


@pytest.mark.parametrize("start", [None, "exec"], ids=["default", "exec"])
def test_arena_run_forks_its_python_agents_from_a_zygote_unless_told_to_exec(tmp_path, monkeypatch, start):
    if start is None:
        monkeypatch.delenv(START_ENV)
    else:
        monkeypatch.setenv(START_ENV, start)
    (tmp_path / "warm.toml").write_text(LADDER)
    arena = [sys.executable, "-m", "arena.cli", "run", "warm.toml", "--db", "warm.db", "--jobs", "1", "-q"]
    subprocess.run(arena, check=True, cwd=tmp_path, capture_output=True)
    with sqlite3.connect(tmp_path / "warm.db") as db:
        records = [decode_record(data) for (data,) in db.execute("SELECT data FROM records")]
    assert len(records) == 2
    for record in records:
        seat = next(agent["seat"] for agent in record["agents"] if agent["agent"] == "note")
        alone = "FACT: pids=1\n" in record["agents"][seat]["stderr"]  # the first process of its namespace
        assert alone == (start is None), record["agents"][seat]["stderr"]


PLUGIN_IN_TEMP = """
from arena.bot import hookimpl


@hookimpl
def tlachtli_games():
    from tempgames.rules import GAME  # imported when asked, as the bundled game plugins do

    return [GAME]
"""

RULES_IN_TEMP = """
from engine.zapotec.game import ZapotecGame


class ZapotecInTemp(ZapotecGame):
    id = "zapotec-in-temp"


GAME = ZapotecInTemp()
"""

SEARCH_LADDER = """
name = "in-temp"
game = "zapotec-in-temp"
players = 2
format = "round-robin"
matches_per_pairing = 1
seed = 1
[[agents]]
name = "search"
agent = "flatmc"
options = { playouts = 1 }
[[agents]]
name = "other"
agent = "random"
"""


@pytest.mark.parametrize("start", ["zygote", "exec"])
def test_a_search_bot_finds_a_game_whose_plugin_lies_in_the_temp_directory(tmp_path, monkeypatch, start):
    # A checkout (or a plugin folder, or a venv) in the system temp directory: the forked agent's
    # fresh /tmp once hid it, and every search bot faulted with "unknown game" at its first move.
    assert str(tmp_path).startswith("/tmp/"), "this test needs the plugin under /tmp"
    package = tmp_path / "plugins" / "tempgames"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(PLUGIN_IN_TEMP)
    (package / "rules.py").write_text(RULES_IN_TEMP)
    monkeypatch.setenv("TLACHTLI_PLUGINS", os.environ["TLACHTLI_PLUGINS"] + ",tempgames")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([os.environ["PYTHONPATH"], str(package.parent)]))
    monkeypatch.setenv(START_ENV, start)
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "temp.toml").write_text(SEARCH_LADDER)
    arena = [sys.executable, "-m", "arena.cli", "run", "temp.toml", "--db", "temp.db", "--jobs", "1", "-q"]
    subprocess.run(arena, check=True, cwd=tmp_path / "run", capture_output=True)
    with sqlite3.connect(tmp_path / "run" / "temp.db") as db:
        records = [decode_record(data) for (data,) in db.execute("SELECT data FROM records")]
    assert len(records) == 2
    for record in records:
        assert record["faults"] == [], record["faults"]

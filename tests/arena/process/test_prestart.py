"""Agents started ahead: a worker's zygote forks the next match's agents while a match
plays, each into its own fresh seat uid, cgroup and namespaces, and tells each its bot only when
its match starts. Nothing started ahead outlives the worker's warmth, a dead one is replaced (no
forfeit), and one started under other limits is not used.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from arena.match.referee import run_match
from arena.match.spec import MatchSpec
from arena.process import warm, zygote
from arena.process.limits import _own_cgroup
from tests.support.zygote_attackers import start_python_agents_from_a_zygote

pytestmark = pytest.mark.skipif(not zygote.zygote_supported(), reason="zygotes need root and bubblewrap")


@pytest.fixture(autouse=True)
def _zygote_start(monkeypatch):
    start_python_agents_from_a_zygote(monkeypatch)


def inspected(memory_mb: int | None = None) -> dict:
    """A goofspiel match of two inspecting note bots; its record."""
    spec = MatchSpec(
        game="goofspiel",
        agents=("note", "note"),
        seed=3,
        agent_options=({"phase": "inspect"}, {"phase": "inspect"}),
        memory_mb=memory_mb,
    )
    record = run_match(spec).record
    assert record["faults"] == [], record["faults"]
    return record


def uids(record: dict) -> set[int]:
    """The seat uids the match's agents reported."""
    found = set()
    for agent in record["agents"]:
        found |= {int(uid) for uid in re.findall(r"^FACT: uid=(\d+)$", agent["stderr"], re.MULTILINE)}
    assert len(found) == len(record["agents"])
    return found


def ready() -> list:
    """The children this process's zygote holds started ahead."""
    (only,) = zygote._zygotes.values()
    return list(only._ready)


def processes_of(uid: int) -> list[int]:
    pids = []
    for name in os.listdir("/proc"):
        try:
            with open(f"/proc/{name}/status") as status:
                if any(line.split()[1:2] == [str(uid)] for line in status if line.startswith("Uid:")):
                    pids.append(int(name))
        except (OSError, ValueError):
            continue
    return pids


def wait_for_processes(uid: int) -> list[int]:
    """The processes of ``uid``, once there is one (a child started ahead forks meanwhile)."""
    for _ in range(500):
        if found := processes_of(uid):
            return found
        time.sleep(0.01)
    return []


def wait_until_gone(uid: int) -> None:
    """Until no process of ``uid`` is left (reaped by its zygote, so its pidfd reads as ended)."""
    for _ in range(500):
        if not processes_of(uid):
            return
        time.sleep(0.01)
    raise AssertionError(f"the processes of uid {uid} outlived SIGKILL")


def test_a_worker_plays_each_match_with_agents_started_ahead_for_it_each_fresh():
    with warm.kept_warm():
        first = inspected()
        ahead = ready()
        assert len(ahead) == 2, "one child started ahead per seat"
        ahead_uids = {slot.jail.uid for slot in ahead}
        assert not ahead_uids & uids(first), "no seat uid is used twice"
        for uid in ahead_uids:
            assert len(wait_for_processes(uid)) == 1, "it runs, alone, before its match"
        groups = [set(slot.cgroup.directories.values()) for slot in ahead]
        assert not groups[0] & groups[1]
        second = inspected()
        assert uids(second) == ahead_uids, "the second match's agents are the ones started ahead"
        for agent in second["agents"]:  # and they are sandboxed as any forked agent
            facts = agent["stderr"]
            assert "FACT: pids=1\n" in facts and "FACT: tmp= cwd=/tmp\n" in facts, facts
            assert "seccomp=2 no_new_privs=1" in facts and "cap_eff=0000000000000000" in facts
        again = {slot.jail.uid for slot in ready()}
        assert len(again) == 2 and not again & (ahead_uids | uids(first))
    assert zygote._zygotes == {}
    for uid in again:  # ended with the worker's warmth, their groups removed
        assert processes_of(uid) == []
    for group in groups:
        assert not any(os.path.exists(directory) for directory in group)


def test_each_agent_finds_its_zygote_by_its_environment_once_a_match(monkeypatch):
    # The key (the whole agent environment, sorted) was built 3 times per agent per match: for the
    # zygote's start, the spawn and the child started ahead (~0.1 ms each).
    import arena.process.launchers

    built = []

    def counted() -> zygote.ZygoteKey:
        built.append(1)
        return zygote.zygote_key()

    monkeypatch.setattr(arena.process.launchers, "zygote_key", counted)
    with warm.kept_warm():
        inspected()
        assert len(ready()) == 2  # its zygote started each seat's successor too
    assert len(built) == 2


def test_a_worker_kills_an_ended_agent_once_its_files_close_and_reaps_it_in_the_background(monkeypatch):
    # After `end` a worker's referee waits for the agent's stderr to close (so the record has all of
    # it), not for the kernel to tear the process down nor for its zygote's report: the agent is
    # killed then, and reaped (its cgroup and jail removed) by a background task of the run. An agent
    # that closed its files and stays (here: spinning) is killed at once, not after the grace.
    from arena.process import connection

    monkeypatch.setattr(connection, "EXIT_GRACE_S", 60.0)  # before: the whole grace, then a kill
    spec = MatchSpec(
        game="goofspiel",
        agents=("note", "note"),
        seed=3,
        agent_options=({"phase": "linger"}, {"phase": "linger"}),
    )
    with warm.kept_warm():
        record = run_match(spec).record
        assert record["faults"] == [], record["faults"]
        assert record["duration_ms"] < 30_000
        ended = [re.search(r"^ENDED uid=(\d+)$", agent["stderr"], re.MULTILINE) for agent in record["agents"]]
        assert all(ended), record["agents"]
        for found in ended:  # reaped before the run returned
            assert processes_of(int(found.group(1))) == []
        ours = f"tlachtli-{os.getpid()}-"
        groups = [name for name in os.listdir(_own_cgroup("pids") or "/") if name.startswith(ours)]
        assert len(groups) == 2, groups  # only the two started ahead for the next match remain


def test_a_lone_match_starts_no_agent_ahead(monkeypatch):
    asked = []
    monkeypatch.setattr(zygote.Zygote, "prestart", lambda self, limits: asked.append(limits))
    inspected()
    assert asked == []


def test_an_agent_started_ahead_that_died_is_replaced_and_the_seat_plays():
    with warm.kept_warm():
        inspected()
        ahead_uids = {slot.jail.uid for slot in ready()}
        for uid in ahead_uids:
            for pid in wait_for_processes(uid):
                os.kill(pid, signal.SIGKILL)
            # SIGKILL lands when the process is next scheduled: on a loaded machine it could still be
            # alive when the next match takes it (then it dies in the handshake, a crash the
            # referee cannot tell from the bot's own). The case under test is one already dead.
            wait_until_gone(uid)
        second = inspected()  # no fault (checked there)
        assert not uids(second) & ahead_uids


def test_agents_started_ahead_under_other_limits_are_not_used():
    with warm.kept_warm():
        inspected()
        ahead_uids = {slot.jail.uid for slot in ready()}
        small = inspected(memory_mb=512)
        assert not uids(small) & ahead_uids, "started under the default memory limit: not for this match"
        kept = ready()
        assert len(kept) <= zygote.PRESTARTED
        latest = [slot for slot in kept if slot.jail.uid not in ahead_uids]
        assert len(latest) == 2
        parent = _own_cgroup("memory")
        for slot in latest:
            directory = slot.cgroup.directories["memory"]
            assert os.path.dirname(directory) == parent
            with open(os.path.join(directory, "memory.limit_in_bytes")) as limit:
                assert int(limit.read()) == 512 << 20


LADDER = """
name = "ahead"
game = "goofspiel"
players = 2
format = "round-robin"
matches_per_pairing = 2
seed = 1
[[agents]]
name = "one"
agent = "random"
[[agents]]
name = "two"
agent = "random"
"""


SWISS = (
    LADDER.replace('format = "round-robin"', 'format = "swiss"\nmax_matches = 40').replace(
        "matches_per_pairing = 2", "matches_per_pairing = 1"
    )
    + '[[agents]]\nname = "three"\nagent = "random"\n'
)


@contextlib.contextmanager
def own_cgroup(folder: Path) -> Iterator[Callable[[], None]]:
    """A cpuacct group of this test's own, under which every agent's group nests (the ``preexec_fn``
    that enters it is yielded); afterwards none may be left in it, nor a folder in ``folder``
    (the run's TMPDIR): what a worker's zygotes and their agents started ahead leave."""
    parent = _own_cgroup("cpuacct")
    if parent is None:
        pytest.skip("no cpuacct cgroup")
    own = os.path.join(parent, f"test-prestart-{os.getpid()}-{time.monotonic_ns()}")
    os.mkdir(own)

    def enter() -> None:
        with open(os.path.join(own, "cgroup.procs"), "w") as procs:
            procs.write("0")

    try:
        yield enter
        for _ in range(200):  # its last processes (the zygotes' sandboxes) leave
            with open(os.path.join(own, "cgroup.procs")) as procs:
                if not procs.read().strip():
                    break
            time.sleep(0.01)
        left = [name for name in os.listdir(own) if name.startswith("tlachtli-")]
        assert left == [], "a worker left the cgroups of the agents it started ahead"
        assert [path.name for path in folder.iterdir()] == [], "a run left folders in its TMPDIR"
    finally:
        for name in os.listdir(own):
            if name.startswith("tlachtli-"):
                os.rmdir(os.path.join(own, name))
        os.rmdir(own)


@pytest.mark.parametrize("ladder", [LADDER, SWISS], ids=["round-robin", "swiss"])
def test_arena_run_leaves_no_agent_started_ahead_nor_its_cgroup(tmp_path, ladder):
    # Its workers end with SIGTERM once the ladder is played: between matches, holding the next
    # match's agents. A swiss run's workers are kept from one round to the next.
    temp = tmp_path / "tmp"
    temp.mkdir()
    with own_cgroup(temp) as enter:
        (tmp_path / "ahead.toml").write_text(ladder)
        arena = [sys.executable, "-m", "arena.cli", "run", "ahead.toml", "--db", "a.db", "--jobs", "2", "-q"]
        env = dict(os.environ, TMPDIR=str(temp))
        subprocess.run(arena, check=True, cwd=tmp_path, capture_output=True, preexec_fn=enter, env=env)


@pytest.mark.parametrize("ladder", [LADDER, SWISS], ids=["round-robin", "swiss"])
def test_a_ctrl_c_run_leaves_no_agent_started_ahead_nor_its_cgroup(tmp_path, popen, ladder):
    temp = tmp_path / "tmp"
    temp.mkdir()
    slow = ladder.replace("seed = 1", "seed = 1\n[clock]\nmove_ms = 5000").replace(
        'agent = "random"', 'agent = "note"\noptions = { phase = "slow" }', 1
    )
    with own_cgroup(temp) as enter:
        (tmp_path / "ahead.toml").write_text(slow)
        arena = [sys.executable, "-m", "arena.cli", "run", "ahead.toml", "--db", "a.db", "--jobs", "2", "-q"]
        env = dict(os.environ, TMPDIR=str(temp))
        run = popen(
            arena, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=enter, env=env
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not played(tmp_path / "a.db"):
            time.sleep(0.1)
        run.send_signal(signal.SIGINT)
        _, err = run.communicate(timeout=60)
        assert run.returncode == 130, err


def played(db: Path) -> bool:
    """Whether a match of the run at ``db`` is done (its workers are warm, agents started ahead)."""
    try:
        with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as connection:
            return connection.execute("SELECT COUNT(*) FROM matches WHERE status = 'done'").fetchone()[0] > 0
    except sqlite3.Error:
        return False

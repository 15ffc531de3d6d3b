"""`arena run --cluster`: matches as Dask tasks, with the local runner's results and guarantees."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.match import MatchSpec
from arena.tournament import cluster, runner
from tests.support.ladder_runs import attack_ladder

pytest.importorskip("distributed", reason="the cluster extra: pip install 'tlachtli[cluster]'")

LADDER = """\
name = "eq"
game = "goofspiel"
players = 2
matches_per_pairing = 2
seed = 3
[options]
cards = 6
[[agents]]
name = "r0"
agent = "random"
options = { seed = 0 }
[[agents]]
name = "bidder"
agent = "prize-bidder"
[[agents]]
name = "r2"
agent = "random"
options = { seed = 2 }
"""



def arena(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, timeout=240, env=env
    )


def stored(db: Path) -> dict:
    """Every stored match: status, seats and record (timings left out), by schedule index."""
    connection = sqlite3.connect(db)
    try:
        matches = {
            idx: {"status": status, "seats": [], "records": []}
            for idx, status in connection.execute("SELECT idx, status FROM matches")
        }
        for idx, *seat in connection.execute(
            "SELECT idx, seat, agent, plugin, score, rank, fault FROM seats JOIN matches ON id = match_id"
        ):
            matches[idx]["seats"].append(tuple(seat))
        from arena.tournament.store import decode_record

        for idx, data in connection.execute("SELECT idx, data FROM records JOIN matches ON id = match_id"):
            matches[idx]["records"].append(_untimed(decode_record(data)))
    finally:
        connection.close()
    for match in matches.values():
        match["seats"].sort()
    return matches


TIMES = ("ms", "handshake_ms", "duration_ms", "started")  # record fields measured, not played


def _untimed(value):
    """A record without its measured times (which differ from run to run)."""
    if isinstance(value, dict):
        return {key: _untimed(item) for key, item in value.items() if key not in TIMES}
    if isinstance(value, list):
        return [_untimed(item) for item in value]
    return value


def test_a_cluster_run_stores_the_same_matches_and_leaderboard_as_a_local_run(tmp_path):
    ladder = tmp_path / "eq.toml"
    ladder.write_text(LADDER)
    local, dask = tmp_path / "local.db", tmp_path / "dask.db"
    assert arena("run", str(ladder), "--db", str(local), "--jobs", "2", "-q").returncode == 0
    run = arena("run", str(ladder), "--db", str(dask), "--cluster", "local:2", "-q")
    assert run.returncode == 0, run.stderr
    assert "eq: 12/12 matches done, 12 played now" in run.stdout and "with cluster local:2" in run.stdout
    expected = stored(local)
    assert len(expected) == 12 and all(len(m["records"]) == 1 for m in expected.values())
    assert stored(dask) == expected
    boards = [arena("leaderboard", "--db", str(db), "--format", "json").stdout for db in (local, dask)]
    assert json.loads(boards[0]) == json.loads(boards[1])
    # a rerun resumes: nothing left to play
    again = arena("run", str(ladder), "--db", str(dask), "--cluster", "local:1", "-q")
    assert again.returncode == 0 and "0 played now" in again.stdout


def test_a_worker_killed_mid_match_is_replaced_and_every_match_is_stored_once(tmp_path):
    """The attacker kills its referee, i.e. the Dask worker process, once: Dask plays the match again."""
    ladder = tmp_path / "attack.toml"
    ladder.write_text(attack_ladder(attacker="referee-killer", options=f"{{ once_in = {json.dumps(str(tmp_path))} }}"))
    db = tmp_path / "t.db"
    run = arena("run", str(ladder), "--db", str(db), "--cluster", "local:2", "-q")
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "attacked").exists()  # a worker was killed
    assert "attack: 2/2 matches done, 2 played now" in run.stdout
    matches = stored(db)
    assert [m["status"] for m in matches.values()] == ["done", "done"]
    assert all(len(m["records"]) == 1 and len(m["seats"]) == 2 for m in matches.values())


def test_a_match_that_keeps_killing_its_workers_is_aborted_not_retried_forever(tmp_path):
    ladder = tmp_path / "attack.toml"
    ladder.write_text(attack_ladder(attacker="referee-killer", options="{}"))
    db = tmp_path / "t.db"
    run = arena("run", str(ladder), "--db", str(db), "--cluster", "local:2", "-q")
    assert run.returncode == 0, run.stderr
    assert "attack: 0/2 matches done, 2 aborted, 0 played now" in run.stdout
    listed = arena("matches", "--db", str(db), "--status", "aborted").stdout
    lost = f"its worker process was lost {runner.MAX_FAILURES} times; last: {runner.MAX_FAILURES} Dask workers died"
    assert listed.count(lost) == 2


@pytest.fixture
def dask_cluster(tmp_path, popen):
    """A real `dask scheduler` and one `dask worker` (no nanny) on this machine, without the
    test plugin `goofspiel_agents`; yields the scheduler's address."""
    bin_dir = Path(sys.executable).parent
    info = tmp_path / "scheduler.json"
    env = dict(os.environ, TLACHTLI_PLUGINS="examples.games.goofspiel.game,tests.support.faulty_agents")
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    popen([bin_dir / "dask", "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
           "--scheduler-file", str(info)], **quiet)  # fmt: skip
    deadline = time.monotonic() + 60
    while not info.exists():
        assert time.monotonic() < deadline, "the dask scheduler did not start"
        time.sleep(0.1)
    time.sleep(0.2)  # the file is written in one go, but give it a moment
    address = json.loads(info.read_text())["address"]
    popen([bin_dir / "dask", "worker", address, "--no-nanny", "--nthreads", "1", "--no-dashboard",
           "--name", "w-other"], env=env, **quiet)  # fmt: skip
    yield address


def test_a_worker_with_other_plugins_is_refused_naming_it_and_the_difference(tmp_path, dask_cluster):
    ladder = tmp_path / "eq.toml"
    ladder.write_text(LADDER)
    db = tmp_path / "t.db"
    run = arena("run", str(ladder), "--db", str(db), "--cluster", dask_cluster, "-q")
    assert run.returncode == 2, run.stderr
    line = run.stderr.strip()
    assert "\n" not in line
    assert line.startswith("error: Dask worker tcp://127.0.0.1:")
    assert "has other plugins than this machine: agent 'prize-bidder' is missing there" in line
    # a worker that joins later is refused by the task itself, before it plays anything
    from distributed import Client

    with Client(dask_cluster, timeout=30) as client:
        spec = MatchSpec(game="goofspiel", agents=("random", "random"), seed=1, options={"cards": 3})
        here = cluster.plugin_versions(cluster._registry())
        reply = client.submit(cluster.play_on_worker, spec, here, pure=False).result(timeout=60)
        assert reply[0] == "refused" and "agent 'prize-bidder' is missing there" in reply[1]
        there = next(iter(client.run(cluster._local_versions).values()))
        outcome = client.submit(cluster.play_on_worker, spec, there, pure=False).result(timeout=60)
        assert outcome[0] == "done" and len(outcome[1].seats) == 2  # same plugins: it plays


def test_an_unreachable_scheduler_is_one_clear_line_and_loses_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT_S", 1.0)
    ladder = tmp_path / "eq.toml"
    ladder.write_text(LADDER)
    db = tmp_path / "t.db"
    result = CliRunner().invoke(app, ["run", str(ladder), "--db", str(db), "--cluster", "tcp://127.0.0.1:9", "-q"])
    assert result.exit_code == 2
    assert result.output.startswith("error: cannot reach the Dask scheduler at tcp://127.0.0.1:9")
    assert "is `dask scheduler` running there?" in result.output
    assert result.output.count("\n") == 1
    # the ladder waits, whole, for a rerun
    connection = sqlite3.connect(db)
    assert connection.execute("SELECT status, COUNT(*) FROM matches GROUP BY status").fetchall() == [("pending", 12)]
    connection.close()

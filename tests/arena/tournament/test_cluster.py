"""`arena run --cluster`: matches as Dask tasks, with the local runner's results and guarantees."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

import psutil
import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.match import MatchSpec
from arena.plugins import discover
from arena.tournament import cluster, runner
from arena.tournament.ladder import parse_ladder
from arena.tournament.store import Store, StoredMatch
from tests.support.ladder_runs import (
    SLOW,
    attack_ladder,
    start,
    statuses,
    tagged_env,
    wait_for_done,
    wait_no_processes,
    write_ladder,
)
from tests.support.processes import TAG_ENV, eventually_empty, processes_tagged

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


def failures(db: Path) -> list[int]:
    connection = sqlite3.connect(db)
    try:
        return [row[0] for row in connection.execute("SELECT failures FROM matches ORDER BY idx")]
    finally:
        connection.close()


def test_a_referee_killed_mid_match_is_replaced_and_the_match_played_again(tmp_path):
    """The attacker kills its referee once: as locally, the task's watchdog reports the lost worker,
    the match is played again from its seed, stored once, and the loss counted in ``failures``."""
    ladder = tmp_path / "attack.toml"
    ladder.write_text(
        attack_ladder(attacker="referee-killer", options=f"{{ once_in = {json.dumps(str(tmp_path))} }}")
    )
    db = tmp_path / "t.db"
    run = arena("run", str(ladder), "--db", str(db), "--cluster", "local:2", "-q")
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "attacked").exists()  # a referee was killed
    assert "attack: 2/2 matches done, 2 played now" in run.stdout
    matches = stored(db)
    assert [m["status"] for m in matches.values()] == ["done", "done"]
    assert all(len(m["records"]) == 1 and len(m["seats"]) == 2 for m in matches.values())
    assert sorted(failures(db)) == [0, 1]


@pytest.mark.parametrize(("attacker", "how"), [("referee-killer", "SIGKILL"), ("referee-stopper", "SIGSTOP")])
def test_a_bot_that_kills_or_stops_its_referee_is_aborted_as_by_the_local_watchdog(tmp_path, attacker, how):
    ladder = tmp_path / "attack.toml"
    ladder.write_text(attack_ladder(attacker=attacker, options="{}"))
    db = tmp_path / "t.db"
    run = arena("run", str(ladder), "--db", str(db), "--cluster", "local:2", "-q")
    assert run.returncode == 0, run.stderr
    assert "attack: 0/2 matches done, 2 aborted, 0 played now" in run.stdout
    listed = arena("matches", "--db", str(db), "--status", "aborted").stdout
    assert listed.count(f"aborted: its worker process was lost {runner.MAX_FAILURES} times") == 2
    assert how in listed
    assert failures(db) == [runner.MAX_FAILURES] * 2
    assert eventually_empty(lambda: processes_tagged(os.environ[TAG_ENV])) == []  # a stopped referee included


def test_a_match_past_its_wall_clock_bound_is_ended_by_the_task_and_finally_aborted(tmp_path, monkeypatch):
    monkeypatch.setattr(runner, "watchdog_seconds", lambda spec: 1.0)  # a match takes ~4 s
    ladder = parse_ladder(SLOW, discover(), source="slow.toml")
    with Store(tmp_path / "t.db") as store:
        run = store.open_run(ladder)
        pool = cluster.connect("local:2")  # its workers are threads of this process: the patch holds there
        report = runner.run_pending(store, store.pending(run.id), 2, pool=pool, show_progress=False)
        found = store.matches(run.id)
    assert report.aborted == 2 and report.played == 0
    assert report.lost_workers == 2 * runner.MAX_FAILURES
    assert all(
        m.status == "aborted" and "no result within the watchdog's 1 s" in (m.reason or "") for m in found
    )


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_ctrl_c_or_sigterm_stops_a_cluster_run_cleanly_and_the_rerun_completes(tmp_path, popen, signum, code):
    ladder = write_ladder(tmp_path, repeats=6, pace_ms=20)  # 36 matches: still running when interrupted
    tag = uuid.uuid4().hex
    db = tmp_path / "t.db"
    process = start(
        popen, "run", str(ladder), "--db", str(db), "--cluster", "local:2", "-q", env=tagged_env(tag)
    )
    wait_for_done(db, 3, process)
    process.send_signal(signum)
    out, err = process.communicate(timeout=60)
    assert process.returncode == code, err
    assert "Traceback" not in err
    assert (
        err.strip().splitlines()[-1]
        == "interrupted: finished matches are stored; run the same command again to resume"
    )
    assert wait_no_processes(tag) == []  # the local cluster, its match processes and their agents
    counts = statuses(db)
    assert "running" not in counts and counts["done"] >= 3
    before = stored(db)
    resumed = arena("run", str(ladder), "--db", str(db), "--cluster", "local:2", "-q")
    assert resumed.returncode == 0 and "36/36 matches done" in resumed.stdout
    after = stored(db)
    assert {idx: after[idx] for idx in before if before[idx]["status"] == "done"} == {
        idx: match for idx, match in before.items() if match["status"] == "done"
    }  # finished matches were kept, not played again


@pytest.fixture
def dask_scheduler(tmp_path, popen):
    """A real `dask scheduler` on this machine; yields its address and ``add_worker(env, nanny)``,
    which starts a `dask worker` (one thread) for it. Workers are stopped first, gracefully."""
    bin_dir = Path(sys.executable).parent
    info = tmp_path / "scheduler.json"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    popen([bin_dir / "dask", "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
           "--scheduler-file", str(info)], **quiet)  # fmt: skip
    deadline = time.monotonic() + 60
    while not info.exists():
        assert time.monotonic() < deadline, "the dask scheduler did not start"
        time.sleep(0.1)
    time.sleep(0.2)  # the file is written in one go, but give it a moment
    address = json.loads(info.read_text())["address"]
    workers = []

    def add_worker(env: dict | None = None, nanny: bool = False) -> subprocess.Popen:
        flags = [] if nanny else ["--no-nanny"]
        worker = popen([bin_dir / "dask", "worker", address, *flags, "--nthreads", "1", "--no-dashboard"],
                       env=env, **quiet)  # fmt: skip
        workers.append(worker)
        return worker

    yield address, add_worker
    for worker in workers:  # a nanny killed outright would leave its worker process behind
        worker.terminate()
    for worker in workers:
        try:
            worker.wait(30)
        except subprocess.TimeoutExpired:
            pass  # the popen fixture kills it


@pytest.fixture
def dask_cluster(dask_scheduler):
    """A real `dask scheduler` and one `dask worker` (no nanny) without the test plugin
    `goofspiel_agents`; yields the scheduler's address."""
    address, add_worker = dask_scheduler
    add_worker(dict(os.environ, TLACHTLI_PLUGINS="examples.games.goofspiel.game,tests.support.faulty_agents"))
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
        match = StoredMatch(1, 1, 0, "k", 1, "running", 1, None, spec, ("a", "b"), ())
        here = cluster.plugin_versions(cluster._registry())
        reply = client.submit(cluster.play_on_worker, match, here, pure=False).result(timeout=60)
        assert reply[0] == "refused" and "agent 'prize-bidder' is missing there" in reply[1]
        there = next(iter(client.run(cluster._local_versions).values()))
        outcome = client.submit(cluster.play_on_worker, match, there, pure=False).result(timeout=60)
        assert outcome[0] == "done" and len(outcome[1].seats) == 2  # same plugins: it plays


def match_processes(worker_pid: int) -> list[psutil.Process]:
    """The processes a Dask worker plays matches with (its match process, their agents)."""
    try:
        family = psutil.Process(worker_pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []
    found = []
    for process in family:
        try:
            if "resource_tracker" not in " ".join(process.cmdline()):  # multiprocessing's, idle
                found.append(process)
        except psutil.Error:
            pass
    return found


def worker_pid(address: str) -> int:
    from distributed import Client

    with Client(address, timeout=30) as client:
        client.wait_for_workers(1, timeout=60)
        return next(iter(client.run(os.getpid).values()))


def wait_for_a_match(pid: int, process: subprocess.Popen) -> None:
    """Until the Dask worker ``pid`` plays a match: its match process and both agents are there."""
    deadline = time.monotonic() + 60
    while len(match_processes(pid)) < 3:
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "no match started on the Dask worker"
        time.sleep(0.05)


def test_ctrl_c_cancels_the_matches_running_on_remote_workers(tmp_path, popen, dask_scheduler):
    address, add_worker = dask_scheduler
    worker = add_worker()
    pid = worker_pid(address)
    ladder = tmp_path / "slow.toml"
    ladder.write_text(SLOW.replace("pace_ms = 400", "pace_ms = 3000"))  # a match takes 30 s
    db = tmp_path / "t.db"
    run = start(popen, "run", str(ladder), "--db", str(db), "--cluster", address, "-q", env=dict(os.environ))
    wait_for_a_match(pid, run)
    run.send_signal(signal.SIGINT)
    out, err = run.communicate(timeout=60)
    assert run.returncode == 130 and "Traceback" not in err, err
    # the task saw its cancellation and stopped its match, long before the match could end
    assert eventually_empty(lambda: match_processes(pid), seconds=15) == []
    assert worker.poll() is None  # the Dask worker itself goes on
    counts = statuses(db)
    assert counts == {"pending": 2}


def test_a_dask_worker_lost_mid_match_is_counted_in_failures_and_the_match_stored_once(
    tmp_path, popen, dask_scheduler
):
    address, add_worker = dask_scheduler
    add_worker(nanny=True)  # the nanny starts a new worker process when this one dies
    pid = worker_pid(address)
    ladder = tmp_path / "slow.toml"
    ladder.write_text(SLOW)
    db = tmp_path / "t.db"
    run = start(popen, "run", str(ladder), "--db", str(db), "--cluster", address, "-q", env=dict(os.environ))
    wait_for_a_match(pid, run)
    os.kill(pid, signal.SIGKILL)
    out, err = run.communicate(timeout=180)
    assert run.returncode == 0, err
    assert "slow: 2/2 matches done, 2 played now" in out
    matches = stored(db)
    assert all(m["status"] == "done" and len(m["records"]) == 1 for m in matches.values())
    # the match it was playing counts one lost worker (Dask counts it against the task queued behind, too)
    assert sorted(failures(db)) in ([0, 1], [1, 1])


def test_an_unreachable_scheduler_is_one_clear_line_and_loses_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT_S", 1.0)
    ladder = tmp_path / "eq.toml"
    ladder.write_text(LADDER)
    db = tmp_path / "t.db"
    result = CliRunner().invoke(
        app, ["run", str(ladder), "--db", str(db), "--cluster", "tcp://127.0.0.1:9", "-q"]
    )
    assert result.exit_code == 2
    assert result.output.startswith("error: cannot reach the Dask scheduler at tcp://127.0.0.1:9")
    assert "is `dask scheduler` running there?" in result.output
    assert result.output.count("\n") == 1
    # the ladder waits, whole, for a rerun
    connection = sqlite3.connect(db)
    assert connection.execute("SELECT status, COUNT(*) FROM matches GROUP BY status").fetchall() == [
        ("pending", 12)
    ]
    connection.close()

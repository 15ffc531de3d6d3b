"""The runner's watchdog: a bot that kills or stops its referee costs at most its own match."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import sqlite3
import subprocess
import tempfile
import threading
import time
import uuid
from pathlib import Path

import psutil
import pytest

from arena.registry.plugins import discover
from arena.tournament.plan.ladder import parse_ladder
from arena.tournament.plan.runs import open_run
from arena.tournament.run import runner
from arena.tournament.store.sqlite import Store
from tests.support import cli
from tests.support.ladder_runs import (
    SLOW,
    attack_ladder,
    killable_env,
    start,
    statuses,
    wait_no_processes,
)
from tests.support.processes import TAG_ENV, eventually_empty, processes_tagged
from tests.support.referee_attackers import first_to_claim


def arena(*args: str) -> subprocess.CompletedProcess:
    return cli.arena(*args)  # the read commands in this process: tests/support/cli.py


@pytest.mark.parametrize(("attacker", "how"), [("referee-killer", "SIGKILL"), ("referee-stopper", "SIGSTOP")])
def test_a_bot_that_kills_or_stops_its_referee_is_aborted_and_the_ladder_finishes(tmp_path, attacker, how):
    ladder = tmp_path / "attack.toml"
    ladder.write_text(attack_ladder(attacker=attacker, options="{}"))
    db = tmp_path / "t.db"
    run = arena("run", str(ladder), "--db", str(db), "--jobs", "2", "--quiet")
    assert run.returncode == 0, run.stderr
    assert "attack: 0/2 matches done, 2 aborted, 0 played now" in run.stdout
    assert "2 match(es) aborted" in run.stderr
    assert statuses(db) == {"aborted": 2}
    listed = arena("matches", "--db", str(db), "--status", "aborted").stdout
    assert listed.count(f"aborted: its worker process was lost {runner.MAX_FAILURES} times") == 2
    assert how in listed
    assert "0/2 matches (2 aborted)" in arena("leaderboard", "--db", str(db)).stdout
    # nothing of the run is left: no worker, no agent (a stopped one included)
    assert eventually_empty(lambda: processes_tagged(os.environ[TAG_ENV])) == []
    # a rerun has nothing left to play: aborted matches are not retried forever
    again = arena("run", str(ladder), "--db", str(db), "--quiet")
    assert again.returncode == 0 and "0 played now" in again.stdout


def test_only_one_attacker_of_matches_played_side_by_side_attacks_once(tmp_path):
    """The ``once_in`` marker is claimed atomically: attackers released together, as in two matches
    started at once (``--cluster local:2``), attack once in all. The check-then-create it replaced let
    two of them attack (seen in a full run: ``failures`` [1, 1] instead of [0, 1])."""
    for trial in range(20):
        marker = tmp_path / f"attacked-{trial}"
        gate, claims = threading.Barrier(8), []

        def attacker(marker=marker, gate=gate, claims=claims):
            gate.wait()
            claims.append(first_to_claim(marker))

        threads = [threading.Thread(target=attacker) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(claims) == [False] * 7 + [True]
    assert not first_to_claim(tmp_path / "attacked-0")  # a replay of the attacked match plays normally


def test_a_worker_lost_once_is_replaced_and_the_match_played_again(tmp_path):
    ladder = tmp_path / "attack.toml"
    ladder.write_text(
        attack_ladder(attacker="referee-killer", options=f"{{ once_in = {json.dumps(str(tmp_path))} }}")
    )
    db = tmp_path / "t.db"
    run = arena("run", str(ladder), "--db", str(db), "--jobs", "1", "--quiet")
    assert run.returncode == 0, run.stderr
    assert "attack: 2/2 matches done, 2 played now" in run.stdout
    connection = sqlite3.connect(db)
    failures = [row[0] for row in connection.execute("SELECT failures FROM matches ORDER BY idx")]
    connection.close()
    assert sorted(failures) == [0, 1]  # the attacked match was played again by a fresh worker


def test_a_match_past_its_wall_clock_bound_is_ended_and_finally_aborted(tmp_path, monkeypatch):
    """A referee that neither stops nor answers (here: a match far slower than the bound allows)."""
    monkeypatch.setattr(runner, "watchdog_seconds", lambda spec: 1.0)  # a match takes ~4 s
    ladder = parse_ladder(SLOW, discover(), source="slow.toml")
    with Store(tmp_path / "t.db") as store:
        run = open_run(store, ladder)
        report = runner.run_pending(store, store.pending(run.id), 2, show_progress=False)
        found = store.matches(run.id)
    assert report.aborted == 2 and report.played == 0
    assert report.lost_workers == 2 * runner.MAX_FAILURES
    assert [m.status for m in found] == ["aborted", "aborted"]
    assert all("no result within the watchdog's 1 s" in (m.reason or "") for m in found)


def test_workers_that_cannot_start_stop_the_run_without_aborting_any_match(tmp_path, monkeypatch):
    ladder = parse_ladder(SLOW.replace("pace_ms = 400", "pace_ms = 0"), discover(), source="slow.toml")
    monkeypatch.setenv("TLACHTLI_PLUGINS", "tests.support.exiting_plugin")  # every worker fails to start
    with Store(tmp_path / "t.db") as store:
        run = open_run(store, ladder)
        report = runner.run_pending(store, store.pending(run.id), 1, show_progress=False)
        counts = store.counts(run.id)
    assert report.played == 0 and report.aborted == 0
    assert "died before starting a match (last: its worker process exited with status 1)" in report.errors[0]
    assert counts == {"pending": 2, "running": 0, "done": 0, "aborted": 0}


def _close_then_exit_slowly(conn, seconds: float) -> None:
    conn.close()  # the parent reads end-of-file now ...
    time.sleep(seconds)  # ... and the exit status only later: interpreter teardown on a loaded machine
    os._exit(1)


def test_a_worker_that_closed_its_pipe_is_waited_for_to_name_its_exit_status():
    """A worker that dies at start (an exiting plugin) closes its pipe before its exit: on a loaded
    machine (load 11, a full run) a second later, and the run's error said "stopped answering"."""
    context = multiprocessing.get_context("spawn")
    ours, theirs = context.Pipe()
    process = context.Process(target=_close_then_exit_slowly, args=(theirs, 1.5), daemon=True)
    process.start()
    theirs.close()
    try:
        with pytest.raises(EOFError):
            assert ours.poll(30)
            ours.recv()
        assert runner._death(runner._Worker(process, ours)) == "its worker process exited with status 1"
    finally:
        process.kill()
        process.join()


class CtrlCTwicePool:
    """A pool whose match never answers: Ctrl-C comes once mid-match and again during the cleanup."""

    size = 1

    def __init__(self) -> None:
        self.handed: list = []
        self.closed = 0

    def has_room(self) -> bool:
        return not self.handed

    def hand(self, match) -> None:
        self.handed.append(match)
        os.kill(os.getpid(), signal.SIGINT)

    def in_flight(self) -> int:
        return len(self.handed)

    def events(self, timeout: float) -> list:
        time.sleep(min(timeout, 0.01))
        return []

    def stop(self, stop, collect) -> None:
        pass  # its workers left at once

    def close(self) -> None:
        self.closed += 1
        if self.closed == 1:
            os.kill(os.getpid(), signal.SIGINT)


def test_a_second_ctrl_c_during_the_cleanup_still_puts_unfinished_matches_back_to_pending(tmp_path):
    # Seen in the stress test: the handlers were restored before the cleanup, so a repeat Ctrl-C
    # landing there raised KeyboardInterrupt and left the matches in flight marked running.
    ladder = parse_ladder(SLOW, discover(), source="slow.toml")
    with Store(tmp_path / "t.db") as store:
        run = open_run(store, ladder)
        try:
            report = runner.run_pending(
                store, store.pending(run.id), 1, pool=CtrlCTwicePool(), show_progress=False
            )
        except KeyboardInterrupt:
            pytest.fail("the repeat Ctrl-C escaped run_pending's cleanup")
        counts = store.counts(run.id)
    assert report.interrupted and report.signal == signal.SIGINT
    assert counts == {"pending": 2, "running": 0, "done": 0, "aborted": 0}


def test_a_runs_workers_are_forked_from_a_server_and_end_with_the_run_even_by_kill_9(
    tmp_path, popen, request
):
    """Workers are forked from a fork server that imported what they need (arena/tournament/run/fork_server.py),
    not spawned by the run: their parent is the server, and kill -9 of the run must still end them at
    once, mid-match (a match here takes ~50 s: a worker that noticed its run's end only after its match
    would outlive the wait below)."""
    ladder = tmp_path / "slow.toml"
    slow = SLOW.replace("move_ms = 5000", "move_ms = 8000").replace("pace_ms = 400", "pace_ms = 5000")
    ladder.write_text(slow)
    tag = uuid.uuid4().hex
    db = tmp_path / "t.db"
    env = killable_env(tag, request)
    run = start(popen, "run", str(ladder), "--db", str(db), "--quiet", env=env)

    def worker_playing() -> psutil.Process | None:
        try:
            children = psutil.Process(run.pid).children()
            servers = [child for child in children if "forkserver" in child.cmdline()[-1]]
            workers = [worker for server in servers for worker in server.children() if worker.children()]
        except (psutil.Error, IndexError):  # one just started or ended: look again
            return None
        return workers[0] if len(servers) == 1 and len(workers) == 1 else None

    deadline = time.monotonic() + 120
    while (worker := worker_playing()) is None or statuses(db).get("running") != 1:
        assert run.poll() is None, run.communicate()
        assert time.monotonic() < deadline, "no match started"
        time.sleep(0.1)
    assert worker.ppid() != run.pid
    run.send_signal(signal.SIGKILL)
    run.wait()
    assert wait_no_processes(tag) == [], "the fork server, workers or agents outlived the killed run"
    assert statuses(db) == {"running": 1, "pending": 1}  # nothing was finished: the next run plays both
    assert any(path.name.startswith("pymp-") for path in Path(env["TMPDIR"]).iterdir())  # left there


def test_a_worker_forked_from_a_server_started_earlier_has_the_runs_environment(tmp_path, monkeypatch):
    """Pools in one process share the fork server, started with the environment of the first; a worker
    must still see the environment of the run that starts it (here: plugins that cannot load)."""
    holder = runner._Pool(1)
    holder.start_worker()  # starts the server, with the suite's plugins
    try:
        ladder = parse_ladder(SLOW.replace("pace_ms = 400", "pace_ms = 0"), discover(), source="slow.toml")
        monkeypatch.setenv("TLACHTLI_PLUGINS", "tests.support.exiting_plugin")  # every worker fails to start
        with Store(tmp_path / "t.db") as store:
            run = open_run(store, ladder)
            report = runner.run_pending(store, store.pending(run.id), 1, show_progress=False)
        assert report.played == 0
        assert "(last: its worker process exited with status 1)" in report.errors[0]
    finally:
        holder.close()


def test_workers_are_spawned_where_the_fork_server_cannot_start(tmp_path, monkeypatch):
    """The server listens on a socket under TMPDIR, whose path may be too long for one (108 bytes at
    most: a TMPDIR under pytest's tmp_path was, and `arena run` failed with a traceback): the run
    goes on with spawned workers."""
    deep = tmp_path / ("d" * 100)
    deep.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(deep))  # both cache the folder they chose
    monkeypatch.delitem(multiprocessing.current_process()._config, "tempdir", raising=False)
    ladder = parse_ladder(SLOW.replace("pace_ms = 400", "pace_ms = 0"), discover(), source="slow.toml")
    with Store(tmp_path / "t.db") as store:
        run = open_run(store, ladder)
        report = runner.run_pending(store, store.pending(run.id), 2, show_progress=False)
    assert report.played == 2 and report.errors == []

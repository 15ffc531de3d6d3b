"""Several `arena run` processes on one PostgreSQL store: each match is claimed by one runner, a
killed runner's matches go back to the others once its lease runs out, none is lost or doubled.
SQLite keeps one writer (tests/arena/tournament/run/test_tournament.py: the second is refused)."""

from __future__ import annotations

import re
import signal
import time
import uuid

from tests.support.ladder_runs import (
    _rows,
    count,
    killable_env,
    start,
    stored,
    tagged_env,
    wait_for_done,
    write_ladder,
)

RUNNERS = 4
MATCHES = 24  # 3 pairings x 4 deals x 2 seatings


def test_four_runners_and_a_killed_one_play_every_match_exactly_once(
    tmp_path, popen, request, postgres_server
):
    db = postgres_server.fresh()
    # matches of a few hundred ms, so that the killed runner has one in flight
    ladder = write_ladder(tmp_path, repeats=4, pace_ms=30, handshake_ms=60_000)
    tag = uuid.uuid4().hex
    env = {**killable_env(tag, request), "TLACHTLI_LEASE_S": "2"}
    runners = [
        start(popen, "run", str(ladder), "--db", db, "--jobs", "1", "--quiet", env=env)
        for _ in range(RUNNERS)
    ]
    killed = runners[0]
    wait_for_done(db, 1, killed)
    mine = f"%:{killed.pid}:%"
    deadline = time.monotonic() + 120
    while True:  # killed with two matches stored and one in flight
        held = _rows(db, f"SELECT id, status FROM matches WHERE owner LIKE '{mine}' ORDER BY id")
        running = [match_id for match_id, status in held if status == "running"]
        if len(held) - len(running) >= 2 and running:
            break
        assert killed.poll() is None and time.monotonic() < deadline, "the runner made no progress"
        time.sleep(0.02)
    killed.send_signal(signal.SIGKILL)
    killed.wait()
    played = {}
    for runner in runners[1:]:
        out, err = runner.communicate(timeout=240)
        assert runner.returncode == 0, err
        assert f"{MATCHES}/{MATCHES} matches done" in out, out
        played[runner.pid] = int(re.search(r"(\d+) played now", out).group(1))

    done = stored(db)
    assert sorted(done) == list(range(MATCHES))  # every scheduled match, once
    assert count(db, "SELECT COUNT(*) FROM seats") == (2 * MATCHES,)
    assert count(db, "SELECT COUNT(DISTINCT idx), COUNT(*) FROM matches") == (MATCHES, MATCHES)
    assert count(db, "SELECT COUNT(*) FROM ladders") == (1,)  # four runners started at once share one run
    # each done match names the runner that stored it: the survivors stored what they say they
    # played, the killed runner the rest; nothing was stored twice (a second outcome is refused)
    by_pid: dict[int, int] = {}
    for (owner,) in _rows(db, "SELECT owner FROM matches WHERE status = 'done'"):
        pid = int(owner.split(":")[1])
        by_pid[pid] = by_pid.get(pid, 0) + 1
    assert {pid: by_pid.get(pid, 0) for pid in played} == played
    assert by_pid.get(killed.pid, 0) + sum(played.values()) == MATCHES
    assert by_pid.get(killed.pid, 0) >= 2
    # the match it had in flight (unless it stored it just before the kill) was taken back once
    # its lease ran out, and played by another runner
    for match_id in running:
        owner, attempts = _rows(db, f"SELECT owner, attempts FROM matches WHERE id = {match_id}")[0]
        if int(owner.split(":")[1]) != killed.pid:
            assert int(owner.split(":")[1]) in played and attempts >= 2
    assert set(by_pid) <= {runner.pid for runner in runners}


def _runners(popen, count: int, *args: str, env: dict) -> list[str]:
    """``count`` `arena ARGS` started at once; the stdout of each, all of them having succeeded."""
    started = [start(popen, *args, env=env) for _ in range(count)]
    outs = []
    for runner in started:
        out, err = runner.communicate(timeout=240)
        assert runner.returncode == 0, err
        outs.append(out)
    return outs


def _played_once(db: str, run_id: int) -> int:
    """The run's matches, each of them done with its seats and record, every index once."""
    total, done, indexes = count(
        db,
        f"SELECT COUNT(*), SUM(CASE WHEN status = 'done' THEN 1 ELSE 0 END), COUNT(DISTINCT idx) FROM matches WHERE ladder_id = {run_id}",
    )
    assert total == done == indexes
    assert count(
        db, f"SELECT COUNT(*) FROM seats s JOIN matches m ON m.id = s.match_id WHERE m.ladder_id = {run_id}"
    ) == (2 * total,)
    assert count(
        db, f"SELECT COUNT(*) FROM records r JOIN matches m ON m.id = r.match_id WHERE m.ladder_id = {run_id}"
    ) == (total,)
    return total


def test_runners_started_with_new_share_the_one_new_run(tmp_path, popen, postgres_server):
    db = postgres_server.fresh()
    ladder = write_ladder(tmp_path, repeats=2)  # 12 matches
    env = {**tagged_env(uuid.uuid4().hex)}
    _runners(popen, 1, "run", str(ladder), "--db", db, "--jobs", "1", "--quiet", env=env)  # a finished run
    outs = _runners(popen, 3, "run", str(ladder), "--db", db, "--jobs", "1", "--quiet", "--new", env=env)
    runs = _rows(db, "SELECT id FROM ladders ORDER BY id")
    assert len(runs) == 2  # the finished one, and one new run the three runners shared
    assert _played_once(db, runs[0][0]) == _played_once(db, runs[1][0]) == 12
    assert sum(int(re.search(r"(\d+) played now", out).group(1)) for out in outs) == 12


SWISS = """\
format = "swiss"
max_matches = 30
"""


def test_runners_of_a_swiss_ladder_plan_each_round_once(tmp_path, popen, postgres_server):
    db = postgres_server.fresh()
    path = write_ladder(tmp_path, repeats=1)
    path.write_text(path.read_text().replace("players = 2\n", "players = 2\n" + SWISS))
    env = {**tagged_env(uuid.uuid4().hex)}
    alone = str(tmp_path / "alone.db")  # the same ladder played by one runner on SQLite
    _runners(popen, 1, "run", str(path), "--db", alone, "--jobs", "2", "--quiet", env=env)
    outs = _runners(popen, 3, "run", str(path), "--db", db, "--jobs", "1", "--quiet", "--new", env=env)
    assert count(db, "SELECT COUNT(*) FROM ladders") == (1,)
    total = _played_once(db, 1)
    assert 6 <= total <= 30
    played = [int(re.search(r"(\d+) played now", out).group(1)) for out in outs]
    assert sum(played) == total
    # swiss plans each round from the results so far, and each match's result follows from its
    # seed: one runner and three sharing the run play the same matches, no round planned twice
    keys = "SELECT idx, key, seed FROM matches ORDER BY idx"
    assert _rows(db, keys) == _rows(alone, keys)
    assert {idx: seats for idx, (seats, _) in stored(db).items()} == {
        idx: seats for idx, (seats, _) in stored(alone).items()
    }

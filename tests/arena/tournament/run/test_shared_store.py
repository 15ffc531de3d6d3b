"""Several `arena run` processes on one PostgreSQL store: each match is claimed by one runner, a
killed runner's matches go back to the others once its lease runs out, none is lost or doubled.
SQLite keeps one writer (tests/arena/tournament/run/test_tournament.py: the second is refused)."""

from __future__ import annotations

import re
import signal
import time
import uuid

from tests.support.ladder_runs import _rows, count, killable_env, start, stored, wait_for_done, write_ladder

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

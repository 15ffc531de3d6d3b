"""`arena run` end to end on goofspiel: parallel runs, resume after kill -9, Ctrl-C, leaderboard."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.support.cli import arena_in_process
from tests.support.ladder_runs import (
    arena,
    count,
    faults,
    killable_env,
    start,
    stored,
    table,
    tagged_env,
    wait_for_done,
    wait_no_processes,
    write_ladder,
)

ROOT = Path(__file__).resolve().parents[4]


def test_stronger_scripted_agent_is_rated_first_and_reports_work(tmp_path, store_db):
    ladder = write_ladder(tmp_path, repeats=2)  # 3 pairings x 2 deals x 2 seatings = 12 matches
    db = store_db  # a SQLite file, or a PostgreSQL database
    ran = arena("run", str(ladder), "--db", str(db), "--jobs", "2", "--quiet", "--fail-on-faults")
    assert "12/12 matches done, 12 played now" in ran.stdout
    assert "warning" not in ran.stderr  # no seat forfeited: nothing to warn of
    rows = table(db, ladder)
    assert rows[0]["agent"] == "bidder" and rows[0]["rank"] == 1
    assert set(rows[0]) == {
        "rank",
        "agent",
        "rating",
        "mu",
        "sigma",
        "matches",
        "wins",
        "mean_score",
        "faults",
        "mle",
        "mle_low",
        "mle_high",
    }
    assert rows[0]["rating"] > max(row["rating"] for row in rows[1:])
    assert rows[0]["mle_low"] < rows[0]["mle"] < rows[0]["mle_high"]
    by_mle = json.loads(arena("leaderboard", "--db", str(db), "-f", "json", "--method", "mle").stdout)
    assert [row["mle"] for row in by_mle] == sorted((row["mle"] for row in rows), reverse=True)
    assert by_mle[0]["agent"] == "bidder" and [row["rank"] for row in by_mle] == [1, 2, 3]
    assert all(row["matches"] == 8 for row in rows)
    assert faults(db) == []

    text = arena("leaderboard", "--db", str(db)).stdout
    assert text.splitlines()[0].startswith("goof-t (goofspiel, round-robin): 12/12 matches")
    csv_text = arena("leaderboard", "--db", str(db), "--format", "csv").stdout
    assert (
        csv_text.splitlines()[0]
        == "rank,agent,rating,mu,sigma,matches,wins,mean_score,faults,mle,mle_low,mle_high"
    )

    h2h = arena("head-to-head", "bidder", "rand-1", "--db", str(db)).stdout
    assert "in 4 match(es)" in h2h and "95% interval (Wilson)" in h2h
    listed = arena("matches", "--db", str(db), "--agent", "bidder").stdout
    lines = listed.splitlines()[2:]  # below the header
    assert len(lines) == 8 and all("bidder" in line for line in lines)
    exported = json.loads(arena("export", "--db", str(db), "--format", "json").stdout)
    assert len(exported) == 24 and {row["agent"] for row in exported} == {"rand-1", "rand-2", "bidder"}
    csv_file = tmp_path / "out.csv"
    arena("export", "--db", str(db), "--ladder", "goof-t", "-o", str(csv_file))
    lines = csv_file.read_text().splitlines()
    assert lines[0] == "ladder,run,match,key,game,seed,seat,agent,plugin,score,rank,fault,seconds"
    assert len(lines) == 25 and all(line.startswith("goof-t,1,") for line in lines[1:])

    # a stored record replays on the engine to the stored result
    record_file = tmp_path / "match-5.json"
    arena("record", "5", "--db", str(db), "-o", str(record_file))
    assert json.loads(record_file.read_text())["seed"] > 0
    assert "replay OK" in arena("replay", str(record_file), "--final").stdout

    # rerunning a finished ladder plays nothing
    again = arena("run", str(ladder), "--db", str(db), "--quiet").stdout
    assert "0 played now" in again


def test_kill_9_mid_tournament_then_rerun_matches_an_uninterrupted_run(tmp_path, popen, request, store_db):
    # 12 matches (8 of 1 s): running when killed. A fault in either run makes the tables differ
    # (once on a loaded CI machine, a bidder's in the reference run, its kind not stored in the
    # log): a start-up clock a load cannot break (an agent's start once took over the default
    # 10 s there: tests/support/ladder_runs.py), and the faults shown if the tables differ.
    ladder = write_ladder(tmp_path, repeats=2, pace_ms=100, handshake_ms=60_000)
    reference = tmp_path / "reference.db"
    arena("run", str(ladder), "--db", str(reference), "--jobs", "2", "--quiet")

    tag = uuid.uuid4().hex
    db = store_db
    # PostgreSQL: the killed runner's matches are another's until its lease runs out (a short one here)
    env = {**killable_env(tag, request), "TLACHTLI_LEASE_S": "2"}
    process = start(popen, "run", str(ladder), "--db", str(db), "--jobs", "2", "--quiet", env=env)
    wait_for_done(db, 5, process)
    process.send_signal(signal.SIGKILL)
    process.wait()
    before = stored(db)
    assert 5 <= len(before) < 12
    assert wait_no_processes(tag) == [], "workers or agents outlived the killed run"

    out = arena("run", str(ladder), "--db", str(db), "--jobs", "2", "--quiet", env=env).stdout
    assert f"12/12 matches done, {12 - len(before)} played now" in out
    after = stored(db)
    assert sorted(after) == list(range(12))  # every scheduled match once
    assert {idx: after[idx] for idx in before} == before  # finished matches were never replayed
    assert count(db, "SELECT COUNT(*) FROM seats") == (24,)
    assert count(db, "SELECT COUNT(DISTINCT idx), COUNT(*) FROM matches") == (12, 12)
    assert table(db, ladder) == table(reference, ladder), (faults(db), faults(reference))


def test_ctrl_c_stops_cleanly_and_the_rerun_completes(tmp_path, popen):
    ladder = write_ladder(tmp_path, repeats=2, pace_ms=300)  # 12 matches (8 of 3 s): running when interrupted
    tag = uuid.uuid4().hex
    db = tmp_path / "t.db"
    process = start(popen, "run", str(ladder), "--db", str(db), "--jobs", "2", "--quiet", env=tagged_env(tag))
    wait_for_done(db, 3, process)
    # in this process: refused before any worker, and quick (a second `arena run` process could take
    # longer to start on a loaded machine than the first one takes to finish: this test's old flake)
    second = arena_in_process("run", str(ladder), "--db", str(db), "--quiet")
    assert second.returncode == 2 and "another `arena run` is writing" in second.stderr
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert "run the same command again to resume" in err
    assert wait_no_processes(tag) == []
    connection = sqlite3.connect(db)
    statuses = dict(connection.execute("SELECT status, COUNT(*) FROM matches GROUP BY status").fetchall())
    connection.close()
    assert "running" not in statuses and statuses["done"] >= 3
    if statuses["done"] < 12:
        resumed = arena("run", str(ladder), "--db", str(db), "--quiet")
        assert "resuming" in resumed.stderr and "12/12 matches done" in resumed.stdout


def test_ctrl_c_twice_still_stops_cleanly(tmp_path, popen):
    """A repeated Ctrl-C (an impatient user; `timeout` signals twice) must not hang or leak."""
    ladder = write_ladder(tmp_path, repeats=6, pace_ms=20)
    tag = uuid.uuid4().hex
    db = tmp_path / "t.db"
    process = start(popen, "run", str(ladder), "--db", str(db), "--jobs", "2", "--quiet", env=tagged_env(tag))
    wait_for_done(db, 2, process)
    process.send_signal(signal.SIGINT)
    time.sleep(0.01)
    process.send_signal(signal.SIGINT)
    try:
        process.communicate(timeout=60)
    except subprocess.TimeoutExpired:  # the popen fixture kills it; its workers follow it
        pytest.fail("`arena run` hung after a repeated Ctrl-C")
    assert process.returncode in (130, -signal.SIGINT)  # the second one may end the final message
    assert wait_no_processes(tag) == []
    connection = sqlite3.connect(db)
    statuses = dict(connection.execute("SELECT status, COUNT(*) FROM matches GROUP BY status").fetchall())
    connection.close()
    assert "running" not in statuses and statuses["done"] >= 2


def test_edited_ladder_is_refused_unless_new(tmp_path):
    ladder = write_ladder(tmp_path, repeats=1)
    db = tmp_path / "t.db"
    arena("run", str(ladder), "--db", str(db), "--quiet")
    ladder.write_text(ladder.read_text().replace("seed = 11", "seed = 12"))
    refused = arena("run", str(ladder), "--db", str(db), "--quiet", check=False)
    assert refused.returncode == 2
    assert refused.stderr.count("\n") == 1 and "seed was 11 and is now 12" in refused.stderr
    assert "pass --new" in refused.stderr
    fresh = arena("run", str(ladder), "--db", str(db), "--quiet", "--new")
    assert "6/6 matches done, 6 played now" in fresh.stdout


def test_crashing_executable_agent_forfeits_and_is_listed_with_faults(tmp_path):
    bot = tmp_path / "crasher"
    bot.write_text("#!/bin/sh\necho cannot start >&2\nexit 3\n")
    bot.chmod(0o755)
    tmp_path.chmod(0o755)  # pytest's 0700: a seat uid could not even read the script
    ladder = tmp_path / "crash.toml"
    ladder.write_text(
        'name = "crash"\ngame = "goofspiel"\n[[agents]]\nagent = "./crasher"\n'
        '[[agents]]\nname = "rand"\nagent = "random"\n'
    )
    db = tmp_path / "t.db"
    ran = arena("run", str(ladder), "--db", str(db), "--quiet")
    rows = {row["agent"]: row for row in table(db, ladder)}
    assert rows["./crasher"]["faults"] == 2 and rows["./crasher"]["wins"] == 0
    assert rows["rand"]["rank"] == 1
    # not silent: one warning line for the agent, with its fault, its detail and where to read more
    warnings = [line for line in ran.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1, ran.stderr
    assert warnings[0].startswith("warning: ./crasher forfeited 2 of its 2 seat(s), crash at its start: ")
    assert ": exited with status 3; stderr: cannot start; see " in warnings[0], warnings[0]
    assert f"arena matches crash --db {db} --faults --agent ./crasher" in warnings[0]
    assert f"arena record 0 -l crash --db {db}" in warnings[0]
    listed = arena("matches", "--db", str(db), "--faults").stdout
    assert listed.count("crash") >= 2
    why = listed.split("why, the first line of each fault's detail")[1].splitlines()[1:]
    assert why == [f"  #{n} ./crasher: exited with status 3; stderr: cannot start" for n in (0, 1)]
    assert max(len(line) for line in listed.splitlines()) <= 100  # the table fits; the lines say it whole
    strict = arena("run", str(ladder), "--db", str(db), "--quiet", "--fail-on-faults", check=False)
    assert strict.returncode == 1 and strict.stderr.splitlines()[-1].startswith("error: 1 agent(s) forfeited")


@pytest.fixture(scope="module")
def played_db(tmp_path_factory) -> Path:
    """One small played store, for the tests that only read one (never written to after)."""
    folder = tmp_path_factory.mktemp("played")
    db = folder / "t.db"
    with pytest.MonkeyPatch.context() as patch:  # conftest's plugin setting is per test
        patch.setenv("TLACHTLI_PLUGINS", "examples.games.goofspiel.game,examples.games.goofspiel.agents")
        patch.setenv("PYTHONPATH", str(ROOT))
        arena("run", str(write_ladder(folder, repeats=1)), "--db", str(db), "--quiet")
    return db


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("run", "missing.toml"), "cannot read ladder file"),
        (("leaderboard", "--db", "nowhere.db"), "no database at nowhere.db"),
        (("matches", "--db", "{db}", "--ladder", "nope"), "no ladder named 'nope'"),
        (("head-to-head", "x", "y", "--db", "{db}"), "agent 'x' has no finished match"),
        (("matches", "--db", "{db}", "--status", "lost"), "unknown status 'lost'"),
    ],
)
@pytest.mark.xdist_group("tests/arena/tournament/run/test_tournament.py")  # played_db, asked for by name
def test_errors_are_one_line_with_status_2(tmp_path, request, args, message):
    # What the command says is the subject: in this process (tests/support/cli.py). `run` here fails
    # on its argument, before any worker, so it runs in process too.
    db = request.getfixturevalue("played_db") if "{db}" in args else None
    result = arena_in_process(*[a.format(db=db) for a in args], cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.stderr
    assert message in result.stderr


@pytest.mark.parametrize("command", ["leaderboard", "matches", "export"])
def test_read_commands_refuse_a_database_tlachtli_never_wrote_and_leave_it_as_it_was(tmp_path, command):
    db = tmp_path / "theirs.db"
    with sqlite3.connect(db) as connection:
        connection.execute("CREATE TABLE notes (text)")
    connection.close()
    before = db.read_bytes()
    result = arena_in_process(command, "--db", str(db))
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "is not a Tlachtli database" in result.stderr
    assert db.read_bytes() == before  # no table of ours was added to it


def test_secret_seed_is_drawn_kept_in_the_database_only_and_resumes_exactly(tmp_path, popen):
    ladder = write_ladder(tmp_path, repeats=2, tag="s", pace_ms=100)  # 12 matches (8 of 1 s)
    ladder.write_text(ladder.read_text().replace("seed = 11", 'seed = "secret"'))
    db = tmp_path / "t.db"
    process = popen(
        [sys.executable, "-m", "arena.cli", "run", str(ladder), "--db", str(db), "--jobs", "2"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    wait_for_done(db, 3, process)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    connection = sqlite3.connect(db)
    base_seed, secret = connection.execute("SELECT base_seed, secret FROM ladders").fetchone()
    seeds = {row[0] for row in connection.execute("SELECT seed FROM matches")}
    connection.close()
    assert secret == 1 and base_seed not in (None, 0, 11)
    # while matches are left, no command shows the base seed or a match seed (a deal)
    shown = [out, err, arena("matches", "--db", str(db)).stdout]
    shown.append(arena("export", "--db", str(db), "--format", "json").stdout)
    shown.append(arena("leaderboard", "--db", str(db), "--format", "json").stdout)
    refused = arena("record", "0", "--db", str(db), check=False)
    assert refused.returncode == 2 and "secret seed" in refused.stderr
    shown.append(refused.stderr)
    resumed = arena("run", str(ladder), "--db", str(db), "--jobs", "2")
    assert "12/12 matches done" in resumed.stdout
    shown += [resumed.stdout, resumed.stderr]
    for text in shown:
        assert str(base_seed) not in text
        assert not any(str(seed) in text for seed in seeds), text
    # the resumed run kept the drawn seed: its matches use the same deals as the first ones
    connection = sqlite3.connect(db)
    assert connection.execute("SELECT base_seed FROM ladders").fetchone()[0] == base_seed
    connection.close()
    # a fresh run draws a new seed; both replay exactly from their records once complete
    arena("run", str(ladder), "--db", str(db), "--new", "--quiet")
    connection = sqlite3.connect(db)
    assert len({row[0] for row in connection.execute("SELECT base_seed FROM ladders")}) == 2
    connection.close()
    record = tmp_path / "m.json"
    arena("record", "4", "--db", str(db), "-o", str(record))
    assert "replay OK" in arena("replay", str(record), "--final").stdout

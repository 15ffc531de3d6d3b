"""`arena season` end to end on goofspiel: a season that bots join, upgrade and leave while it plays,
killed -9 twice and resumed with nothing lost or doubled; hostile bots voided and suspended."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from collections import Counter
from pathlib import Path

import pytest

from arena.process.sandbox import bwrap_works
from arena.submissions.pipeline import withdraw
from arena.submissions.store import SubmissionStore
from arena.tournament.plan.season import group_of, replay
from arena.tournament.plan.season_table import season_table
from arena.tournament.store.opening import DATA_ENV, is_url, open_store
from arena.tournament.store.sqlite import Store
from tests.support.bot_packages import submit_package, write_package
from tests.support.cli import arena_in_process
from tests.support.ladder_runs import killable_env, tagged_env, wait_no_processes

SEASON = """\
name = "season"
game = "goofspiel"
players = 2
format = "season"
seed = 5
{extra}
[options]
cards = 6

[season]
{knobs}

[[agents]]
name = "rand-1"
agent = "random"
options = {{ seed = 1 }}

[[agents]]
name = "rand-2"
agent = "random"
options = {{ seed = 2 }}
{agents}
"""
BIDDER = '\n[[agents]]\nname = "bidder"\nagent = "prize-bidder"\n'


def write(path: Path, knobs: str, agents: str = BIDDER, extra: str = "") -> Path:
    path.write_text(SEASON.format(knobs=knobs, agents=agents, extra=extra))
    return path


def start(popen, ladder: Path, db: Path | str, env: dict, log: Path) -> subprocess.Popen:
    """`arena season start` in the background; its lines go to ``log`` (a pipe nobody reads
    would fill and stop it)."""
    out = log.open("a")
    try:
        return popen(
            [sys.executable, "-m", "arena.cli", "season", "start", str(ladder), "--db", str(db), "-j", "2"],
            stdout=out,
            stderr=out,
            env=env,
        )
    finally:
        out.close()


def query(db: Path, sql: str, *params) -> list[tuple]:
    connection = sqlite3.connect(db, timeout=10)
    try:
        return connection.execute(sql, params).fetchall()
    except sqlite3.OperationalError:  # not created yet
        return []
    finally:
        connection.close()


def state(db: Path | str) -> dict:
    """The service's live state as it last saved it ({} before it has)."""
    if not is_url(db):
        rows = query(Path(db), "SELECT data FROM season_state")
        return json.loads(rows[0][0]) if rows else {}
    with open_store(db, read_only=True) as store:  # the same table, read through the server store
        run = store.latest_run("season")
        return (store.season_state(run.id) or {}) if run else {}


def games_of(db: Path, agent: str) -> int:
    return query(db, "SELECT COUNT(*) FROM seats WHERE agent = ?", agent)[0][0] if db.exists() else 0


def wait_until(check, process: subprocess.Popen, log: Path, what: str, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert process.poll() is None, log.read_text()
        assert time.monotonic() < deadline, f"{what} never happened:\n{log.read_text()}"
        time.sleep(0.1)


def kill9(process: subprocess.Popen, tag: str) -> None:
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert wait_no_processes(tag) == [], "workers or agents outlived the killed season"


@pytest.mark.skipif(not bwrap_works(), reason="submitted bots run only under bubblewrap")
def test_a_season_takes_joins_upgrades_and_withdrawals_and_survives_two_kills(tmp_path, popen, request):
    knobs = "seats = [2, 3]\nplacement_games = 3\nnearest = 4\ncheckpoint_every = 7"
    ladder = write(tmp_path / "season.toml", knobs)
    db, log = tmp_path / "season.db", tmp_path / "season.log"
    tag = uuid.uuid4().hex
    env = killable_env(tag, request)
    process = start(popen, ladder, db, env, log)
    wait_until(lambda: state(db).get("counts", {}).get("done", 0) >= 10, process, log, "10 matches")

    submit_package(write_package(tmp_path / "v1", version="1.0"), ladder)
    wait_until(lambda: games_of(db, "pkgbot") >= 3, process, log, "the submitted bot's games")
    kill9(process, tag)

    process = start(popen, ladder, db, env, log)
    submit_package(write_package(tmp_path / "v2", version="2.0"), ladder)
    wait_until(lambda: games_of(db, "pkgbot@2.0") >= 3, process, log, "the new version's games")
    kill9(process, tag)

    process = start(popen, ladder, db, env, log)
    write(ladder, knobs, agents="")  # the bidder leaves
    submissions = SubmissionStore(tmp_path / "submissions")
    withdraw(submissions, next(r for r in submissions.all() if r.version == "2.0"))
    wait_until(
        lambda: {"bidder", "pkgbot@2.0"}.isdisjoint(state(db).get("playing", ["bidder"])),
        process,
        log,
        "leaving",
    )
    left_at = state(db)["scheduled"]
    wait_until(lambda: state(db).get("scheduled", 0) >= left_at + 6, process, log, "matches after they left")
    asked = arena_in_process("season", "final", str(ladder), "--db", str(db))
    assert asked.returncode == 0 and "the final phase begins within seconds" in asked.stdout
    wait_until(lambda: state(db).get("phase") == "final", process, log, "the final phase")
    final_at = state(db)["scheduled"]
    wait_until(lambda: state(db).get("scheduled", 0) >= final_at + 4, process, log, "final games")
    stopped = arena_in_process("season", "stop", "season", "--db", str(db))
    assert stopped.returncode == 0, (stopped.stderr, log.read_text())
    assert process.wait(60) == 0, log.read_text()
    assert wait_no_processes(tag) == []

    with Store(db) as store:
        run = store.latest_run("season")
        events, matches = store.season_events(run.id), store.matches(run.id)
        saved = store.season_state(run.id)
        assert saved is not None
        # nothing lost, nothing doubled: every scheduled match stored once, each result logged once
        assert [match.idx for match in matches] == list(range(len(matches)))
        assert {match.status for match in matches} <= {"done", "pending"}
        logged = Counter(event.data["idx"] for event in events if event.kind == "record")
        assert set(logged.values()) == {1}
        assert set(logged) == {match.idx for match in matches if match.status == "done"}
        # the state the service ended with is what an uninterrupted replay of its log gives
        assert replay(events, matches).fingerprint() == saved["fingerprint"]
        assert (saved["starts"], saved["restarts"], saved["status"]) == (3, 2, "stopped")
        assert sum(event.kind == "checkpoint" for event in events) >= 3  # the restarts replayed from one
        joins = {event.data["name"]: event.data["inherits"] for event in events if event.kind == "join"}
        assert joins["pkgbot@2.0"] == "pkgbot" and joins["pkgbot"] is None
        withdrawals = {event.data["name"]: event.at for event in events if event.kind == "withdraw"}
        assert set(withdrawals) == {"pkgbot", "pkgbot@2.0", "bidder"}
        for name, at in withdrawals.items():  # scheduled no more once gone
            assert all(name not in group_of(match.key) for match in matches if match.idx >= at)
        rows = {row.agent: row for row in season_table(matches, saved)}
        assert rows["bidder"].status == "withdrawn" and rows["rand-1"].status == "active"
        final = next(event for event in events if event.kind == "final")
        assert set(final.data["top"]) == {"rand-1", "rand-2"}  # the top K of those still playing
        assert all(
            set(group_of(match.key)) <= {"rand-1", "rand-2"} for match in matches if match.idx >= final.at
        )
    shown = arena_in_process("season", "status", "season", "--db", str(db))
    assert shown.returncode == 0, shown.stderr
    assert "season: stopped, final phase" in shown.stdout and "2 restart(s) after a crash" in shown.stdout
    assert "withdrawn" in shown.stdout and "separated" in shown.stdout


def test_hostile_bots_are_voided_then_suspended_with_one_line_why(tmp_path, popen, store_db, monkeypatch):
    """On either store: a PostgreSQL one keeps its control files in its data folder."""
    knobs = "placement_games = 2\nsuspend_errors = 2\nsuspend_window = 4"
    hostile = (
        '\n[[agents]]\nname = "crasher"\nagent = "fault-crash"\n'
        '\n[[agents]]\nname = "sleeper"\nagent = "fault-sleep"\n'
    )
    ladder = write(
        tmp_path / "hostile.toml",
        knobs,
        agents=hostile,
        extra='sandbox = "none"\n[clock]\nmove_ms = 300\nbank_ms = 1\n',
    )
    db, log = store_db, tmp_path / "hostile.log"
    tag = uuid.uuid4().hex
    monkeypatch.setenv(DATA_ENV, str(tmp_path / "data"))  # `season stop` below reads it too
    env = tagged_env(tag)
    process = start(popen, ladder, db, env, log)
    wait_until(lambda: len(state(db).get("suspended", {})) == 2, process, log, "both suspensions")
    wait_until(lambda: state(db).get("counts", {}).get("done", 0) >= 12, process, log, "honest games after")
    if is_url(db):  # stopped by its control file, which lives in the data folder
        stopped = arena_in_process("season", "stop", "season", "--db", db)
        assert stopped.returncode == 0, (stopped.stderr, log.read_text())
        assert process.wait(60) == 0, log.read_text()
    else:
        process.send_signal(signal.SIGTERM)
        assert process.wait(60) == 128 + signal.SIGTERM
    assert wait_no_processes(tag) == []

    lines = log.read_text()
    assert "suspended: crasher: 2 errors in its last 2 games" in lines
    assert "suspended: sleeper: 2 errors in its last 2 games" in lines
    with open_store(db) as store:
        run = store.latest_run("season")
        assert run is not None
        matches = store.matches(run.id, ("done",))
        saved = store.season_state(run.id)
        assert saved is not None
    rows = {row.agent: row for row in season_table(matches, saved)}
    for name in ("crasher", "sleeper"):
        assert rows[name].status == "suspended" and rows[name].why == "2 errors in its last 2 games"
        assert rows[name].elo is None and rows[name].voided >= 2  # no game of its counts
        # scheduled no more once suspended: at most the games in flight when it was
        assert sum(name in group_of(match.key) for match in matches) <= 2 + 2
    voided = [match for match in matches if any(seat.fault for seat in match.seats)]
    honest = [match for match in matches if match not in voided]
    # an innocent seat of a voided game gains nothing: only the games without a fault count
    for name in ("rand-1", "rand-2"):
        assert rows[name].games == sum(name in match.entrants for match in honest)
    assert saved["voided"] == len(voided) >= 4
    assert rows["rand-1"].elo is not None and rows["rand-1"].voided == 0


def test_season_commands_refuse_what_they_cannot_do_in_one_line(tmp_path, monkeypatch):
    ladder = write(tmp_path / "s.toml", "placement_games = 2")
    db = tmp_path / "s.db"
    monkeypatch.delenv(DATA_ENV, raising=False)  # refused before any server is reached
    nowhere = arena_in_process("season", "start", str(ladder), "--db", "postgresql://u@/x?host=/nonexistent")
    assert nowhere.returncode == 2 and f"set {DATA_ENV}=DIR" in nowhere.stderr
    assert "Traceback" not in nowhere.stderr
    ran = arena_in_process("run", str(ladder), "--db", str(db), cwd=tmp_path)
    assert ran.returncode == 2 and "is a season: run it with `arena season start" in ran.stderr
    plain = tmp_path / "plain.toml"
    plain.write_text(
        ladder.read_text().replace('format = "season"', 'format = "round-robin"').split("[season]")[0]
        + ladder.read_text().split("placement_games = 2")[1]
    )
    started = arena_in_process("season", "start", str(plain), "--db", str(db), cwd=tmp_path)
    assert started.returncode == 2 and "is not a season; play it with `arena run" in started.stderr
    assert arena_in_process("run", str(plain), "--db", str(db), "--quiet", cwd=tmp_path).returncode == 0
    status = arena_in_process("season", "status", "nope", "--db", str(db), cwd=tmp_path)
    assert status.returncode == 2 and "no season named 'nope'" in status.stderr
    stop = arena_in_process("season", "stop", "season", "--db", str(db), cwd=tmp_path)
    assert stop.returncode == 2 and "is not a season (format 'round-robin')" in stop.stderr


def test_in_the_final_phase_the_field_is_locked_but_a_bot_may_still_leave(tmp_path):
    from dataclasses import replace

    from arena.registry.plugins import discover
    from arena.tournament.plan.growth import RosterEntry
    from arena.tournament.plan.ladder import load_ladder
    from arena.tournament.run.season import SeasonService

    ladder = write(tmp_path / "s.toml", "final_top = 2", extra='sandbox = "none"\n')
    said: list[str] = []
    with Store(tmp_path / "s.db") as store:
        service = SeasonService(store, lambda: load_ladder(ladder, discover()), 1, said.append)
        service.open()
        assert service.book.playing() == ["rand-1", "rand-2", "bidder"]
        service.book.apply(service.book_event("final", {"top": ["bidder", "rand-1"]}), lambda i: None)
        roster = list(service.roster.values())
        old = next(entry for entry in roster if entry.name == "bidder")
        upgraded = [
            *(replace(entry, active=entry.name != "bidder") for entry in roster),
            RosterEntry("bidder@2", "bidder", "prize-bidder", version="2", inherits="bidder"),
            RosterEntry("late", "late", "random"),
        ]
        service.sync(upgraded)  # a new version and a newcomer wait; the old version plays on
        assert service.book.playing() == ["rand-1", "rand-2", "bidder"] and old.active
        assert "warning: the final phase has begun: late does not join (submissions are locked)" in said
        service.sync([replace(entry, active=entry.name == "rand-1") for entry in roster])
        assert service.book.playing() == ["rand-1"]  # withdrawn ones leave, final or not
        assert [event.kind for event in store.season_events(service.run.id)].count("withdraw") == 2

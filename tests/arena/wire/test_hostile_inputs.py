"""Every `arena` command fed hostile files: each is refused with one line, never a traceback.

The files: not UTF-8, truncated, empty, the right syntax with wrong types, a folder, a missing
path. Each command gets each of them wherever it takes a file (ladder, record, database, agent,
output). Run in process with typer's runner, which catches any exception that escapes.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import main as cli
from arena.match.referee import run_match
from arena.match.spec import MatchSpec

SUFFIXES = {"ladder": ".toml", "record": ".json", "db": ".db"}
KINDS = ("not-utf8", "truncated", "empty", "wrong-types", "folder", "missing")

GOOD_LADDER = 'name = "g"\ngame = "goofspiel"\n[[agents]]\nagent = "random"\n[[agents]]\nname = "r2"\nagent = "random"\n'


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


@pytest.fixture
def hostile(tmp_path: Path):
    """``make(role, kind)``: a hostile file of ``kind`` standing where a ``role`` file is expected."""
    record = run_match(MatchSpec(game="goofspiel", agents=("random", "random"), seed=1)).record
    good = {
        "ladder": GOOD_LADDER.encode(),
        "record": json.dumps(record).encode(),
        "agent": b"#!/bin/sh\nexec python3 examples/bots/first_option.py\n",
    }
    wrong = {
        "ladder": b'name = 5\ngame = ["goofspiel"]\nplayers = "two"\n[[agents]]\nagent = 3\n',
        "record": json.dumps(dict(record, moves="all of them", seed="one")).encode(),
        "agent": b"a text file, not a program",
    }

    def make(role: str, kind: str) -> Path:
        path = tmp_path / f"{role}-{kind}{SUFFIXES.get(role, '')}"
        if kind == "not-utf8":
            return _write(path, b"\xff\xfe\x80 caf\xe9 \x00\x01" * 10)
        if kind == "empty":
            return _write(path, b"")
        if kind == "folder":
            path.mkdir(exist_ok=True)
            return path
        if kind == "missing":
            return path
        if role == "db":
            return _db(path, kind)
        if kind == "truncated":
            _write(path, good[role][: len(good[role]) // 2])
            path.chmod(0o755)  # an agent that starts, and dies at once
            return path
        return _write(path, wrong[role])

    return make


def _db(path: Path, kind: str) -> Path:
    if kind == "wrong-types":  # a SQLite file of the current schema version with other tables
        with sqlite3.connect(path) as db:
            db.execute("CREATE TABLE ladders (x)")
            db.execute("CREATE TABLE matches (y)")
            db.execute("PRAGMA user_version = 1")
        db.close()
        return path
    full = path.with_suffix(".full")
    with sqlite3.connect(full) as db:
        db.execute("PRAGMA page_size = 1024")
        db.execute("CREATE TABLE t (x)")
        db.executemany("INSERT INTO t VALUES (?)", [("x" * 500,)] * 50)
    db.close()
    return _write(path, full.read_bytes()[:3000])  # truncated mid-page


def invocations(make, ok_ladder: Path, ok_db: Path) -> list[list[str]]:
    """Every command with the hostile file in each place it takes one (the others sound)."""
    out = []
    for kind in KINDS:
        ladder, record, db = make("ladder", kind), make("record", kind), make("db", kind)
        agent = make("agent", kind)
        out += [
            ["run", str(ladder), "--db", str(db.parent / f"fresh-{kind}.db"), "--quiet"],
            ["run", str(ok_ladder), "--db", str(db), "--quiet"],
            ["replay", str(record)],
            ["replay", str(record), "--final"],
            ["doctor", str(db)],
            ["leaderboard", "--db", str(db)],
            ["leaderboard", str(ladder), "--db", str(ok_db)],
            ["matches", "--db", str(db)],
            ["matches", "--ladder", str(ladder), "--db", str(ok_db)],
            ["export", "--ladder", str(ladder), "--db", str(ok_db)],
            ["head-to-head", "a", "b", "--db", str(db)],
            ["export", "--db", str(db), "-o", str(make("out", "folder") if kind == "folder" else record)],
            ["record", "0", "--db", str(db)],
            ["play", "-g", "goofspiel", "-a", str(agent), "-a", "random"],
            [
                "play",
                "-g",
                "goofspiel",
                "-a",
                "random",
                "-a",
                "random",
                "--record",
                str(make("out", "folder")),
            ],
            ["check", str(agent), "--game", "goofspiel"],
        ]
    return out


def test_no_command_shows_a_traceback_for_hostile_files(hostile, tmp_path):
    ok_ladder, ok_db = tmp_path / "ok.toml", tmp_path / "ok.db"
    ok_ladder.write_text(GOOD_LADDER)
    runner = CliRunner()
    played = runner.invoke(cli.app, ["run", str(ok_ladder), "--db", str(ok_db), "--quiet"])
    assert played.exit_code == 0, played.stderr
    seen = set()
    for args in invocations(hostile, ok_ladder, ok_db):
        key = tuple(args)
        if key in seen:
            continue
        seen.add(key)
        result = runner.invoke(cli.app, args)
        shown = result.stdout + result.stderr
        where = f"arena {' '.join(args)}"
        assert result.exception is None or isinstance(result.exception, SystemExit), (where, result.exception)
        assert "Traceback" not in shown, (where, shown)
        if result.exit_code != 0:  # refused with one line saying why, or a report that says FAIL
            lines = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
            report = {"doctor": "problem: ", "check": "FAIL: "}.get(args[0])
            reported = result.exit_code == 1 and report is not None and report in result.stdout
            assert len(lines) == 1 or reported, (where, shown)


@pytest.mark.parametrize(
    "args",
    [
        ["play", "-g", "goofspiel", "-a", "random", "-a", "random", "--seed", "x"],
        ["play", "-g", "goofspiel", "-a", "random", "-a", "random", "--option", "cards=many"],
        ["play", "-g", "goofspiel", "-a", "random", "-a", "random", "--option", "novalue"],
        ["play", "-g", "nogame", "-a", "random"],
        ["play", "-g", "goofspiel", "-a", "random", "-a", "random", "--players", "1"],
        ["record", "x"],
        ["matches", "--status", "lost", "--db", "nowhere.db"],
        ["leaderboard", "--format", "xml"],
        ["run", "--jobs", "0", "ladders/demo.toml"],
    ],
)
def test_wrong_types_on_the_command_line_are_one_line(args):
    result = CliRunner().invoke(cli.app, args)
    assert result.exit_code == 2 and (result.exception is None or isinstance(result.exception, SystemExit))
    assert "Traceback" not in result.stdout + result.stderr

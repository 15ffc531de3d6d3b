"""A full disk under the store: reported as such, nothing left running, and the rerun finishes.

Before: `arena run` said the database was damaged, left matches 'running' and private
directories behind. The store lives on a tiny tmpfs mounted for the test (root only), and a bot
(no sandbox, so that it sees that tmpfs) fills it at its first decision, in the middle of the run.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys

import psutil
import pytest

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="mounting a small tmpfs for the store needs root")
LADDER = """\
name = "full"
game = "goofspiel"
matches_per_pairing = 3
[[agents]]
name = "filler"
agent = "hostile"
options = {{ attack = "fill-disk", dir = "{dir}" }}
[[agents]]
name = "random"
agent = "random"
"""


@pytest.fixture
def small_disk(tmp_path):
    """A 4 MiB tmpfs at tmp_path/disk, unmounted at the end whatever happens."""
    disk = tmp_path / "disk"
    disk.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(disk)], check=True)
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=True)


def statuses(db) -> dict[str, int]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
        return dict(connection.execute("SELECT status, COUNT(*) FROM matches GROUP BY status").fetchall())


def test_a_full_disk_is_reported_as_such_and_the_rerun_finishes(small_disk, tmp_path, monkeypatch):
    monkeypatch.setenv("TLACHTLI_PLUGINS", os.environ["TLACHTLI_PLUGINS"] + ",tests.support.hostile_agents")
    private = tmp_path / "private"  # where the referees make the agents' private directories
    private.mkdir()
    monkeypatch.setenv("TMPDIR", str(private))
    ladder = tmp_path / "full.toml"
    ladder.write_text(LADDER.format(dir=small_disk))
    db = small_disk / "full.db"
    (small_disk / "please-fill").touch()

    def arena_run() -> subprocess.CompletedProcess:
        command = [sys.executable, "-m", "arena.cli", "run", str(ladder), "--db", str(db), "--quiet"]
        command += ["--sandbox", "none", "--jobs", "2"]
        return subprocess.run(command, capture_output=True, text=True, timeout=300)

    full = arena_run()
    errors = [line for line in full.stderr.splitlines() if line.startswith("error:")]
    assert full.returncode == 1 and "Traceback" not in full.stderr, full.stderr
    assert len(errors) == 1 and "is full" in errors[0] and "free some space" in errors[0], full.stderr
    assert "damaged" not in full.stderr
    assert "running" not in statuses(db)  # the matches in flight went back to pending
    assert statuses(db).get("pending", 0) > 0
    # Every agent's private directory is removed by its referee, unless the machine is so loaded
    # that the referee outlived the runner's stop grace (5 s) and was killed: then only directories
    # of referees that are gone may remain, and the next run sweeps them (asserted below).
    for name in os.listdir(private):
        assert not psutil.pid_exists(int(name.split("-")[2])), name

    os.remove(small_disk / "filler")  # space again: the same command finishes the ladder
    again = arena_run()
    assert again.returncode == 0, again.stderr
    assert statuses(db) == {"done": 6}
    assert os.listdir(private) == []

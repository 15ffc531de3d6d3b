"""`arena check PACKAGE --ladder LADDER` runs a submission's own steps on the author's machine:
the same states, limits and line as the server's, and nothing kept."""

from __future__ import annotations

import os

import pytest

from arena.process.sandbox import bwrap_works
from tests.support.bot_packages import write_ladder, write_package
from tests.support.cli import arena_in_process

pytestmark = pytest.mark.skipif(not bwrap_works(), reason="submitted bots run only under bubblewrap")

CRASHER = """
from arena.bot import Agent


class Bot(Agent):
    def act(self, observation, decision):
        raise SystemExit(3)
"""


def test_a_good_package_passes_with_every_state_and_nothing_is_kept(tmp_path):
    ladder = write_ladder(tmp_path)
    package = write_package(tmp_path / "pkg", name="goodbot")
    done = arena_in_process("check", str(package), "--ladder", str(ladder), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "PASS: goodbot 1.0 would be active on 'open'" in done.stdout
    for state in ("received", "checked (goodbot 1.0)", "built", "validated", "active"):
        assert f": {state}" in done.stderr
    assert "python: CPython" in done.stderr
    assert not (tmp_path / "submissions").exists()


def test_a_package_the_server_would_reject_fails_with_the_servers_line(tmp_path):
    ladder = write_ladder(tmp_path, extra="[submissions]\narchive_mb = 1\n")
    package = write_package(tmp_path / "pkg", name="crashbot", agent=CRASHER)
    checked = arena_in_process("check", str(package), "--ladder", str(ladder), cwd=tmp_path)
    assert checked.returncode == 1 and "FAIL: it would be rejected:" in checked.stderr
    submitted = arena_in_process(
        "submit", str(package), "--ladder", str(ladder), "--submitter", "ana", cwd=tmp_path
    )
    assert submitted.returncode == 1
    line = checked.stderr.split("FAIL: it would be rejected: ")[1].strip()
    assert f"rejected: {line}" in " ".join(submitted.stderr.split())
    # a limit of the ladder holds locally too
    big = write_package(tmp_path / "big", name="bigbot")
    (big / "blob.bin").write_bytes(os.urandom(2 << 20))
    too_big = arena_in_process("check", str(big), "--ladder", str(ladder), cwd=tmp_path)
    assert too_big.returncode == 1 and "archive_mb" in too_big.stderr

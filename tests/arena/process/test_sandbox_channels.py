"""Hostile bots in the bubblewrap sandbox: no channel between agents.

Each attack (tests/support/hostile_agents.py, tests/support/faulty_bot.py) worked before its defence:
fcntl locks read across sandboxes, a kernel key left for a later agent, the referee's environment,
the store seen through a ``PYTHONPATH=.`` bind, a closed stdout noticed only when the bank ran out,
a 1 MiB ``ready`` name copied into the record. Each must now gain nothing.
"""

from __future__ import annotations

import ctypes
import os
import struct
import uuid
from pathlib import Path

import pytest

from arena.match.referee import run_match
from arena.match.spec import MatchSpec
from arena.process import seccomp
from arena.process.sandbox import SANDBOX_ENV, bwrap_works
from arena.tournament.store.sqlite import Store
from tests.support.agent_processes import ROUNDS
from tests.support.hostile_agents import key_syscall

KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING = 0, -3

pytestmark = pytest.mark.skipif(not bwrap_works(), reason="bubblewrap (bwrap) cannot run on this machine")
ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(autouse=True)
def _hostile_plugin(monkeypatch):
    monkeypatch.setenv("TLACHTLI_PLUGINS", os.environ["TLACHTLI_PLUGINS"] + ",tests.support.hostile_agents")
    monkeypatch.delenv(SANDBOX_ENV, raising=False)


def match(agents: tuple[str, ...], options: tuple[dict, ...], **spec):
    """A goofspiel match of ``agents`` in the default sandbox; its outcome."""
    return run_match(MatchSpec(game="goofspiel", agents=agents, seed=5, agent_options=options, **spec))


def stderr_of(outcome, seat: int = 0) -> str:
    return outcome.record["agents"][seat]["stderr"]


def test_fcntl_locks_carry_nothing_between_agents_running_at_the_same_time():
    # Two sandboxes under two uids at once, as the two rotations of a deal were: seat 0 reads
    # the lock seat 1 holds on a file both see (and the reverse).
    outcome = match(("hostile", "hostile"), ({"attack": "locks"}, {"attack": "locks"}))
    both = stderr_of(outcome, 0) + stderr_of(outcome, 1)
    assert "FOUND" not in both, both
    assert both.count("RESULT: lock refused: Operation not permitted") == 2
    assert len(outcome.record["moves"]) == 2 * ROUNDS and outcome.record["faults"] == []


def test_a_kernel_key_left_by_one_agent_is_not_found_by_the_next():
    tag = uuid.uuid4().hex
    stored = match(("hostile", "random"), ({"attack": "key-store", "tag": tag}, {}))
    assert "RESULT: add_key refused: Operation not permitted" in stderr_of(stored), stderr_of(stored)
    found = match(("hostile", "random"), ({"attack": "key-find", "tag": tag}, {}))
    assert "RESULT: key search done" in stderr_of(found) and "FOUND" not in stderr_of(found), stderr_of(found)
    # nor does it hold the referee's session keyring (bwrap would pass it on): it has a new one
    referee = key_syscall(
        "keyctl", ctypes.c_long(KEYCTL_GET_KEYRING_ID), ctypes.c_long(KEY_SPEC_SESSION_KEYRING), 0
    )
    assert referee > 0, referee
    view = stderr_of(found).split("RESULT: keys in view ")[1].split("\n")[0].split()
    assert len(view) == 1 and f"{referee:08x}" not in view, view  # its own session keyring only


def test_no_new_namespace_nor_ptrace_inside_the_sandbox():
    outcome = match(("hostile", "random"), ({"attack": "namespaces"}, {}))
    for what in ("unshare user", "unshare mount", "ptrace"):
        assert f"RESULT: {what} refused: Operation not permitted" in stderr_of(outcome), stderr_of(outcome)
    assert outcome.seats[0].fault is None


def test_the_filter_is_built_for_both_machines_and_refuses_foreign_calls():
    for machine in ("x86_64", "aarch64"):
        program = seccomp.program(machine)
        assert program is not None and len(program) % 8 == 0 and len(program) // 8 < 4096
    assert seccomp.program("riscv64") is None
    # the first instructions: load the arch, kill on any other
    code, _, false, arch = struct.unpack_from("=HBBI", seccomp.program("x86_64"), 8)
    assert arch == seccomp.MACHINES["x86_64"].arch and false > 0


def test_the_referees_environment_does_not_reach_the_bot(monkeypatch):
    secret = f"REFEREE_SECRET_{uuid.uuid4().hex[:8]}"
    monkeypatch.setenv(secret, "hunter2")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "hunter3")
    outcome = match(("hostile", "random"), ({"attack": "env"}, {}))
    line = next(line for line in stderr_of(outcome).splitlines() if line.startswith("RESULT: env "))
    names = set(line.removeprefix("RESULT: env ").split(","))
    assert secret not in names and "AWS_SECRET_ACCESS_KEY" not in names
    assert {"PATH", "HOME", "TMPDIR", "PYTHONPATH", "TLACHTLI_PLUGINS"} <= names


def test_pythonpath_dot_in_a_tournament_folder_does_not_show_the_store(tmp_path, monkeypatch):
    # The README's recipe run where the store lives: `PYTHONPATH=.` from the tournament folder.
    tmp_path.chmod(0o755)  # a folder as in a home directory: every user may enter it
    store = Store(tmp_path / "tlachtli.db")
    store.close()
    (tmp_path / "notes.txt").write_text("the base seed, say")  # world-readable, beside the store
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([".", str(ROOT)]))
    private = [str(tmp_path / "tlachtli.db"), str(tmp_path / "notes.txt")]
    outcome = match(("hostile", "random"), ({"attack": "spy", "private": private}, {}))
    assert "RESULT: spy done" in stderr_of(outcome) and "FOUND" not in stderr_of(outcome), stderr_of(outcome)
    assert (tmp_path / "tlachtli.db").stat().st_mode & 0o077 == 0  # and other users may not open it


def test_a_bot_that_closes_its_stdout_forfeits_at_once_not_when_its_bank_runs_out():
    outcome = match(("hostile", "random"), ({"attack": "close-stdout"}, {}), move_ms=1000, bank_ms=60_000)
    assert "RESULT: stdout closed" in stderr_of(outcome)
    assert outcome.seats[0].fault == "exit", outcome.record["faults"]
    assert "closed its stdout" in outcome.record["faults"][0]["detail"]
    assert outcome.record["duration_ms"] < 20_000  # structural: the bank alone is 60 s
    assert len(outcome.record["moves"]) == 2 * ROUNDS


def test_a_huge_ready_name_is_refused_and_never_copied_into_the_record():
    outcome = match(("fault-huge-ready", "random"), ({}, {}))
    assert outcome.seats[0].fault == "bad-frame", outcome.record["faults"]
    assert "64" in outcome.record["faults"][0]["detail"]
    assert (
        len(outcome.record["agents"][0]["name"]) <= 64 and len(outcome.record["agents"][0]["version"]) <= 64
    )
    assert len(str(outcome.record)) < 20_000

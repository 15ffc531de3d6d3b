"""`arena run` interrupted at random moments, many times: it always stops within seconds, keeps
what finished, leaves nothing running, and the resumed ladder ends exactly as an uninterrupted one.

The suite runs a few rounds; `make stress` runs many (TLACHTLI_STRESS_ROUNDS). The random
choices come from TLACHTLI_STRESS_SEED when set, else a fresh seed that a failure names.
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from tests.support.ladder_runs import statuses, stored, table, write_ladder
from tests.support.processes import TAG_ENV, eventually_empty, processes_tagged

ROUNDS = int(os.environ.get("TLACHTLI_STRESS_ROUNDS", "4"))
STOP_WITHIN_S = 20  # STOP_GRACE_S (5 s) plus a loaded machine's slack
# What interrupts a run: a signal to `arena run` itself, or a SIGKILL of one of its workers.
ATTACKS = ("SIGINT", "SIGINT twice", "SIGTERM", "SIGKILL", "kill a worker")


def _running(db: Path) -> set[int]:
    """The ids of the matches marked running."""
    if not statuses(db):
        return set()
    connection = sqlite3.connect(db, timeout=10)
    try:
        return {row[0] for row in connection.execute("SELECT id FROM matches WHERE status = 'running'")}
    finally:
        connection.close()


def _stored(db: Path) -> dict[int, tuple]:
    """What `stored` gives, or nothing for a database interrupted before its tables existed."""
    return stored(db) if statuses(db) else {}


def _interrupt(run: subprocess.Popen, attack: str, chance: random.Random) -> None:
    if attack == "kill a worker":
        workers = psutil.Process(run.pid).children()
        if workers:
            chance.choice(workers).kill()
        return
    run.send_signal(signal.SIGKILL if attack == "SIGKILL" else getattr(signal, attack.split()[0]))
    if attack == "SIGINT twice":
        time.sleep(chance.uniform(0, 0.2))
        run.send_signal(signal.SIGINT)


@pytest.mark.slow  # `make stress` runs its 40 rounds; `make test-all` its 4
def test_random_interrupts_never_hang_leak_or_lose_a_result(tmp_path, popen):
    seed = int(os.environ.get("TLACHTLI_STRESS_SEED", random.randrange(2**32)))
    chance = random.Random(seed)
    say = f"(TLACHTLI_STRESS_SEED={seed})"
    ladder = write_ladder(tmp_path, repeats=3, pace_ms=10)  # 18 matches
    reference = tmp_path / "reference.db"
    subprocess.run(
        [sys.executable, "-m", "arena.cli", "run", str(ladder), "--db", str(reference), "-j", "2", "-q"],
        check=True, capture_output=True, timeout=240,
    )  # fmt: skip
    db = tmp_path / "t.db"
    tag = os.environ[TAG_ENV]
    for round_ in range(ROUNDS):
        before = _stored(db)
        left_running = _running(db)  # by an earlier round's kill -9: the next run that starts resets them
        run = popen(
            [sys.executable, "-m", "arena.cli", "run", str(ladder), "--db", str(db), "-j", "2", "-q"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        time.sleep(chance.uniform(0.2, 3.0))  # anywhere: start-up, mid-match, between matches, the end
        attack = chance.choice(ATTACKS)
        where = f"round {round_}, {attack} {say}"
        if run.poll() is None:
            _interrupt(run, attack, chance)
        try:
            _, err = run.communicate(timeout=STOP_WITHIN_S if attack != "kill a worker" else 240)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"`arena run` still running {STOP_WITHIN_S} s after {where}") from None
        # 1, -SIGINT, -SIGTERM: a signal before the run installed its handlers (Python starting,
        # the ladder being read) or after it restored them: nothing had started or all had ended
        assert run.returncode in (0, 1, 130, 143, -signal.SIGKILL, -signal.SIGINT, -signal.SIGTERM), where
        # kill -9 of `arena run` while it spawns a worker: the orphan, reading its start-up data
        # from the dead parent, dies inside multiprocessing's spawn_main (before any of our code
        # runs) and prints that to the stderr it shares. Not the run's own output.
        orphaned_start = (
            attack == "SIGKILL"
            and "spawn_main" in err
            and err.rstrip().endswith("EOFError: Ran out of input")
        )
        assert "Traceback" not in err or err.rstrip().endswith("KeyboardInterrupt") or orphaned_start, (
            f"{where}: {err}"
        )
        if run.returncode == 1:  # click's answer to a KeyboardInterrupt outside the runner, no error
            assert err.rstrip().endswith(("Aborted!", "KeyboardInterrupt")), f"{where}: {err}"
        assert eventually_empty(lambda: [p for p in processes_tagged(tag) if p != os.getpid()]) == [], where
        after = _stored(db)
        assert {idx: after[idx] for idx in before} == before, f"{where}: a finished match changed"
        if run.returncode != -signal.SIGKILL:  # a killed run leaves 'running' rows for the next to reset
            # and one stopped before it got to reset them leaves those as they were
            assert _running(db) <= left_running, where
    finish = subprocess.run(
        [sys.executable, "-m", "arena.cli", "run", str(ladder), "--db", str(db), "-j", "2", "-q"],
        capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert finish.returncode == 0 and "18/18 matches done" in finish.stdout, f"{say}: {finish.stderr}"
    results = {idx: seats for idx, (seats, _) in stored(db).items()}
    expected = {idx: seats for idx, (seats, _) in stored(reference).items()}
    assert results == expected, f"{say}: the resumed ladder differs from an uninterrupted one"
    assert table(db, ladder) == table(reference, ladder), say

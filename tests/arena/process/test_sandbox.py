"""Hostile bots in the bubblewrap sandbox: each attack harms nothing.

The ``hostile`` agent (tests/support/hostile_agents.py) attacks at its first decision and reports
on stderr; every match must finish with the right verdict, the opponent untouched, and nothing of
the bot left: no process under a seat uid, no cgroup, no private directory.
"""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys
import tempfile

import psutil
import pytest

from arena.match.referee import run_match
from arena.match.spec import MatchSpec
from arena.process import limits
from arena.process.limits import MAX_FILE_MB, MAX_OPEN_FILES, MAX_PROCESSES, BotCgroup
from arena.process.sandbox import (
    SANDBOX_ENV,
    SandboxError,
    _sweep_stale_directories,
    bwrap_works,
    check_sandbox,
    seat_referee,
)
from arena.process.spawn import START_ENV
from engine.zapotec import GAME as ZAPOTEC
from tests.support.agent_processes import ROUNDS, eventually_empty, processes_marked
from tests.support.cli import arena_in_process

pytestmark = pytest.mark.skipif(not bwrap_works(), reason="bubblewrap (bwrap) cannot run on this machine")
AS_ROOT = os.geteuid() == 0
CGROUPS = BotCgroup.create(None)
if CGROUPS is not None:
    CGROUPS.remove()
needs_cgroups = pytest.mark.skipif(CGROUPS is None, reason="cgroups cannot be created here (not root?)")


@pytest.fixture(autouse=True)
def _hostile_plugin(monkeypatch):
    monkeypatch.setenv("TLACHTLI_PLUGINS", os.environ["TLACHTLI_PLUGINS"] + ",tests.support.hostile_agents")
    monkeypatch.delenv(SANDBOX_ENV, raising=False)


def seat_processes() -> list[int]:
    """Live processes under a seat uid of this test's referees: this process, one it started, or
    one that is gone. (Other suites running on the machine at the same time have their own.)"""
    found = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/status") as handle:
                fields = dict(line.split(":", 1) for line in handle if ":" in line)
        except OSError:
            continue
        referee = seat_referee(int(fields["Uid"].split()[0]))
        if referee is not None and fields["State"].split()[0] not in "ZX" and ours(referee):
            found.append(int(entry))
    return found


def ours(referee: int) -> bool:
    """Whether ``referee`` is this process, a descendant of it, or no longer alive."""
    try:
        return referee == os.getpid() or os.getpid() in (p.pid for p in psutil.Process(referee).parents())
    except psutil.NoSuchProcess:
        return True


def agent_dirs() -> set[str]:
    return set(glob.glob(os.path.join(tempfile.gettempdir(), f"tlachtli-agent-{os.getpid()}-*")))


@pytest.fixture
def nothing_left():
    before = agent_dirs()
    yield
    assert eventually_empty(seat_processes) == []
    assert agent_dirs() - before == set()


def play(attack: str, game: str = "goofspiel", seed: int = 3, **spec) -> tuple:
    """Play ``hostile`` (seat 0) against random; (outcome, the hostile seat's stderr)."""
    options = {"attack": attack, **spec.pop("extra", {})}
    outcome = run_match(
        MatchSpec(game=game, agents=("hostile", "random"), seed=seed, agent_options=(options, {}), **spec)
    )
    assert outcome.seats[1].fault is None  # the opponent is never harmed
    return outcome, outcome.record["agents"][0]["stderr"]


def played_to_the_end(outcome) -> bool:
    return len(outcome.record["moves"]) == 2 * ROUNDS


def test_the_default_sandbox_is_bwrap_and_an_unknown_one_is_refused():
    assert check_sandbox(None) == "bwrap"
    with pytest.raises(SandboxError, match="unknown sandbox 'docker'"):
        check_sandbox("docker")


def test_killing_every_visible_process_harms_only_itself(nothing_left):
    outcome, stderr = play("kill-others")
    assert played_to_the_end(outcome)
    # it sees nothing but its own sandbox: at most its own init, which ends it
    assert outcome.seats[0].fault in (None, "crash", "exit")
    assert outcome.seats[1].rank == 1 or outcome.seats[0].fault is None


def test_stopping_or_killing_the_parent_does_not_reach_the_referee(nothing_left):
    outcome, stderr = play("stop-parent")
    assert played_to_the_end(outcome)


def test_setsid_grandchildren_die_with_the_match(nothing_left):
    outcome, stderr = play("setsid-children")
    assert "RESULT: children started" in stderr
    assert played_to_the_end(outcome) and outcome.seats[0].fault is None


@pytest.mark.parametrize("game", ["zapotec", "teotihuacan"])
def test_a_spying_bot_finds_nothing_of_the_referee(game, tmp_path, nothing_left):
    store = tmp_path / "ladder.db"
    store.write_text("the store")
    outcome, stderr = play("spy", game=game, seed=424242, extra={"seed": 424242, "private": [str(store)]})
    assert "RESULT: spy done" in stderr and "FOUND" not in stderr
    assert outcome.seats[0].fault is None


def test_the_spy_does_find_the_match_in_a_bot_forked_from_the_referee(monkeypatch, nothing_left):
    # The trusted fork start method (no sandbox) shows that the spy looks in the right places.
    monkeypatch.setenv(START_ENV, "fork")
    # The forked bot inherits all this process holds: an xdist worker's heap full of states from
    # earlier tests once overflowed the spy's stderr tail (a line per object) and hid its findings.
    held = [ZAPOTEC.setup(2, seed, {}) for seed in range(300)]
    outcome, stderr = play("spy", game="zapotec", sandbox="none")
    assert "FOUND: frame local self: Match" in stderr and "FOUND: object Match (x" in stderr
    assert "FOUND: object ZapotecState (x" in stderr and len(held) == 300


def test_the_seed_on_the_referees_command_line_is_out_of_sight(tmp_path, nothing_left):
    # The referee runs with --seed on its command line, as `arena play --seed` does.
    code = (
        "import json, sys; from arena.match.referee import run_match; from arena.match.spec import MatchSpec; "
        "o = run_match(MatchSpec(game='goofspiel', agents=('hostile', 'random'), seed=777, "
        "agent_options=({'attack': 'spy', 'seed': 777}, {}))); print(json.dumps(o.record['agents'][0]['stderr']))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, "--seed", "777"], capture_output=True, text=True, timeout=120
    )
    stderr = json.loads(done.stdout)
    assert "RESULT: spy done" in stderr and "FOUND" not in stderr


def test_a_file_left_behind_is_gone_for_the_next_match(nothing_left):
    outcome, _ = play("leave-file")
    assert outcome.seats[0].fault is None
    outcome, stderr = play("find-file")
    assert "FOUND" not in stderr


@needs_cgroups
def test_memory_limit_holds_for_all_its_processes(nothing_left):
    outcome, stderr = play("memory-spread", memory_mb=150)
    assert "RESULT: holding 100 MB" in stderr  # the limit lets one through ...
    assert "RESULT: holding at once 1" in stderr, stderr  # ... never two (an earlier holder is killed)
    assert played_to_the_end(outcome)


@needs_cgroups
def test_cpu_limit_holds_for_all_its_processes(nothing_left):
    outcome, stderr = play("cpu-spread", cpu_seconds=1, move_ms=20_000)
    assert outcome.seats[0].fault == "crash" and "CPU limit" in outcome.record["faults"][0]["detail"]
    assert played_to_the_end(outcome)


def test_a_fork_bomb_is_capped(nothing_left):
    outcome, stderr = play("fork-bomb", move_ms=20_000)
    count = int(stderr.split("RESULT: processes ")[1].split()[0])
    assert count < MAX_PROCESSES
    assert played_to_the_end(outcome) and outcome.seats[0].fault is None


def test_open_files_are_capped(nothing_left):
    outcome, stderr = play("open-files")
    assert int(stderr.split("RESULT: open files ")[1].split()[0]) < MAX_OPEN_FILES
    assert outcome.seats[0].fault is None


def test_a_huge_file_is_cut_at_the_file_size_limit(nothing_left):
    outcome, stderr = play("huge-file", move_ms=20_000)
    assert f"RESULT: stopped at {MAX_FILE_MB} MB: File too large" in stderr
    assert outcome.seats[0].fault is None


def test_a_stderr_flood_is_drained_and_cut(nothing_left):
    outcome, stderr = play("stderr-flood", move_ms=20_000)
    assert outcome.seats[0].fault is None and played_to_the_end(outcome)
    assert "earlier bytes dropped" in stderr and len(stderr) < 20_000


def test_junk_on_the_protocol_pipe_is_a_fault(nothing_left):
    outcome, _ = play("stdout-flood")
    assert outcome.seats[0].fault in ("bad-frame", "oversized-frame")
    assert played_to_the_end(outcome)


@pytest.mark.parametrize("sandbox", ["none", "bwrap"])
def test_an_execd_agent_spinning_past_eof_dies_with_a_referee_killed_outright(sandbox, tmp_path):
    tmp_path.chmod(0o755)  # a seat uid must be able to read the bot
    bot = tmp_path / "spinner.py"
    bot.write_text("import signal\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nwhile True:\n    pass\n")
    bot.chmod(0o755)
    mark = f"tlachtli-spinner-{os.getpid()}-{sandbox}"  # in the spinner's environment only
    code = (
        "from arena.match.referee import run_match; from arena.match.spec import MatchSpec; "
        f"run_match(MatchSpec(game='goofspiel', agents=({sys.executable!r}, 'random'), seed=1, "
        f"sandbox={sandbox!r}, handshake_ms=600_000))"
    )
    (tmp_path / "go").write_text(f"#!/bin/sh\nexport SPINNER={mark}\nexec {sys.executable} {bot}\n")
    code = code.replace(repr(sys.executable), repr(str(tmp_path / "go")), 1)
    (tmp_path / "go").chmod(0o755)
    referee = subprocess.Popen([sys.executable, "-c", code])
    try:
        assert eventually_empty(lambda: [] if processes_marked(mark) else [0], 30) == []  # it runs
    finally:
        referee.kill()
        referee.wait()
    assert eventually_empty(lambda: processes_marked(mark)) == []
    # what its referee could not clean up is swept by the next referee on the machine
    _sweep_stale_directories.__wrapped__()
    limits._sweep_stale()
    left = glob.glob(os.path.join(tempfile.gettempdir(), f"tlachtli-agent-{referee.pid}-*"))
    left += glob.glob(f"{limits.CGROUP_ROOT}/pids/**/tlachtli-{referee.pid}-*", recursive=True)
    assert left == []


def test_arena_run_says_which_sandbox_is_in_force(tmp_path):
    ladder = tmp_path / "l.toml"
    ladder.write_text(
        'name = "l"\ngame = "goofspiel"\n'
        '[[agents]]\nname = "a"\nagent = "random"\n[[agents]]\nname = "b"\nagent = "random"\n'
    )
    db = str(tmp_path / "l.db")

    def arena(*args):
        command = [sys.executable, "-m", "arena.cli", "run", str(ladder), "--db", db, "--quiet", *args]
        return subprocess.run(command, capture_output=True, text=True, timeout=120)

    # refused before any worker: in this process (tests/support/cli.py)
    refused = arena_in_process("run", str(ladder), "--db", db, "--quiet", "--sandbox", "docker")
    assert (
        refused.returncode == 2
        and refused.stderr == "error: unknown sandbox 'docker': use 'bwrap' or 'none'\n"
    )
    done = arena()
    assert done.returncode == 0 and "sandbox: bwrap" in done.stderr

"""Python plugin agents forked from the warm referee: same guarantees as exec'd ones.

``no_leftovers`` (tests/conftest.py) records every forked agent: they must have been reaped,
and nothing may be left alive in their sessions (their process groups and descendants).
"""

from __future__ import annotations

import contextlib
import errno
import gc
import os
import signal
import sys
import time

import pytest
import trio

from arena.match.lineup import MatchSetupError
from arena.match.referee import play_match, run_match
from arena.match.spec import MatchSpec
from arena.process.sandbox import SANDBOX_ENV
from arena.process.spawn import START_ENV, exec_agent, fork_supported
from arena.registry.plugins import discover
from tests.support.agent_processes import ROUNDS, alive, check_replays, eventually_empty, processes_marked

pytestmark = pytest.mark.skipif(not fork_supported(), reason="forking agents needs Linux 5.3+")


@pytest.fixture(autouse=True)
def _fork_without_sandbox(monkeypatch):
    """Forking is opt-in (trusted bots) and runs without a sandbox."""
    monkeypatch.setenv(START_ENV, "fork")
    monkeypatch.setenv(SANDBOX_ENV, "none")


def hosted(mode: str, at: int = 2, **options) -> dict:
    """Agent options of ``hosted-fault`` (tests/support/faulty_agents.py)."""
    return {"mode": mode, "at": at, **options}


def test_forked_agents_play_a_full_match(monkeypatch, no_leftovers):  # noqa: F811
    spec = MatchSpec(game="goofspiel", agents=("random", "random"), seed=11)
    outcome = run_match(spec)
    assert len(no_leftovers) == 2  # both seats were forked, not exec'd
    assert [s.fault for s in outcome.seats] == [None, None]
    assert [a["kind"] for a in outcome.record["agents"]] == ["python", "python"]
    assert len(outcome.record["moves"]) == 2 * ROUNDS
    check_replays(outcome)
    # the same match as with exec'd agents: the start method changes nothing in the game
    monkeypatch.setenv(START_ENV, "exec")
    execd = run_match(spec)
    assert len(no_leftovers) == 2

    def choices(record):
        return [(m["seat"], m["choice"], m["by"]) for m in record["moves"]]

    assert choices(execd.record) == choices(outcome.record) and execd.seats == outcome.seats


def test_prints_go_to_the_captured_stderr_not_the_protocol(no_leftovers):  # noqa: F811
    spec = MatchSpec(
        game="goofspiel", agents=("hosted-fault", "random"), seed=3, agent_options=(hosted("none"), {})
    )
    outcome = run_match(spec)
    assert len(no_leftovers) == 2 and [s.fault for s in outcome.seats] == [None, None]
    stderr = outcome.record["agents"][0]["stderr"]
    for count in range(1, ROUNDS + 1):
        assert f"stray print {count} on stdout" in stderr and f"stderr line {count}" in stderr
    assert outcome.record["agents"][0]["name"] == "hosted-fault"


def test_forked_agent_holds_only_its_own_pipes(no_leftovers):  # noqa: F811
    # Three seats: the other agents' pipes (and the referee's files) must not leak into this one.
    agents = ("random", "hosted-fault", "random")
    spec = MatchSpec(game="goofspiel", agents=agents, seed=3, agent_options=({}, hosted("fds"), {}))
    outcome = run_match(spec)
    line = next(x for x in outcome.record["agents"][1]["stderr"].splitlines() if x.startswith("fds"))
    # 0-2: /dev/null, stderr, stderr; 3-4: the protocol pipes; 5: the listing's own directory
    assert [int(fd) for fd in line.split()[1:]] == [0, 1, 2, 3, 4, 5]


def test_exception_in_act_is_a_fault_naming_the_agent(no_leftovers):  # noqa: F811
    spec = MatchSpec(
        game="goofspiel", agents=("hosted-fault", "random"), seed=3, agent_options=(hosted("crash"), {})
    )
    outcome = run_match(spec)
    assert [(s.fault, s.rank) for s in outcome.seats] == [("error", 2), (None, 1)]
    (fault,) = outcome.record["faults"]
    assert (
        fault["phase"] == "move"
        and fault["detail"] == "hosted-fault raised RuntimeError: act broke on purpose"
    )
    assert "Traceback" in outcome.record["agents"][0]["stderr"]
    assert [m["by"] for m in outcome.record["moves"] if m["seat"] == 0] == ["agent"] + ["random"] * (
        ROUNDS - 1
    )
    check_replays(outcome)


@pytest.mark.parametrize("code, fault", [(5, "crash"), (0, "exit")])
def test_sys_exit_in_act_is_told_apart_by_its_status(code, fault, no_leftovers):  # noqa: F811
    spec = MatchSpec(
        game="goofspiel",
        agents=("hosted-fault", "random"),
        seed=3,
        agent_options=(hosted("exit", code=code), {}),
    )
    outcome = run_match(spec)
    assert outcome.seats[0].fault == fault
    assert outcome.record["faults"][0]["detail"].startswith(f"exited with status {code}")


def test_memory_limit_counts_on_top_of_what_the_fork_inherits(no_leftovers):  # noqa: F811
    # 40 MB: less than this (referee) process's address space, which the agents inherit; yet a
    # forked agent may allocate 20 MB more, while the 1 GiB allocation fails.
    assert address_space_mb() > 40
    spec = MatchSpec(
        game="goofspiel",
        agents=("hosted-fault", "hosted-fault"),
        seed=3,
        memory_mb=40,
        agent_options=(hosted("hog"), hosted("alloc", mb=20)),
    )
    outcome = run_match(spec)
    assert len(no_leftovers) == 2 and [s.fault for s in outcome.seats] == ["error", None]
    assert "MemoryError" in outcome.record["faults"][0]["detail"]
    assert f"allocated {20 << 20} bytes" in outcome.record["agents"][1]["stderr"]


def address_space_mb() -> float:
    """This process's address space (VmSize) in MB."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def test_cpu_limit_applies_to_a_forked_agent(no_leftovers):  # noqa: F811
    spec = MatchSpec(
        game="goofspiel",
        agents=("hosted-fault", "random"),
        seed=3,
        cpu_seconds=1,
        move_ms=20_000,
        agent_options=(hosted("spin"), {}),
    )
    outcome = run_match(spec)
    assert outcome.seats[0].fault == "crash" and "SIGXCPU" in outcome.record["faults"][0]["detail"]


def test_cancelled_referee_kills_the_forked_agent_with_its_group(tmp_path, no_leftovers):  # noqa: F811
    spec = MatchSpec(
        game="goofspiel",
        agents=("hosted-fault", "random"),
        seed=1,
        move_ms=600_000,
        agent_options=(hosted("family", at=1, dir=str(tmp_path)), {}),
    )
    registry = discover()
    pids_file = tmp_path / "pids"

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(play_match, spec, registry)
            while not pids_file.exists():  # the agent and its two children are running
                await trio.sleep(0.01)
            nursery.cancel_scope.cancel()

    trio.run(main)
    pids = [int(pid) for pid in pids_file.read_text().split()]
    assert pids[0] in no_leftovers
    assert eventually_empty(lambda: [pid for pid in pids if alive(pid)]) == []


def test_exec_start_method_still_works(monkeypatch, no_leftovers):  # noqa: F811
    monkeypatch.setenv(START_ENV, "exec")
    mark = os.environ["TLACHTLI_TEST_MARK"]
    spec = MatchSpec(
        game="goofspiel", agents=("random", "hosted-fault"), seed=3, agent_options=({}, hosted("crash"))
    )
    outcome = run_match(spec)
    assert no_leftovers == []  # nothing was forked
    assert [s.fault for s in outcome.seats] == [None, "error"]
    assert "act broke on purpose" in outcome.record["faults"][0]["detail"]
    assert processes_marked(mark) == []


def test_an_unknown_start_method_is_refused(monkeypatch):
    monkeypatch.setenv(START_ENV, "spawn")
    with pytest.raises(
        MatchSetupError, match=r"TLACHTLI_AGENT_START='spawn': use 'exec' \(the default\) or 'fork'"
    ):
        run_match(MatchSpec(game="goofspiel", agents=("random", "random"), seed=1))


@pytest.mark.parametrize("referee_sigint", ["handled", "ignored"])
def test_forked_agent_does_not_inherit_the_referees_signal_handlers(referee_sigint, no_leftovers):  # noqa: F811
    # The referee (trio) turns SIGINT into KeyboardInterrupt, or ignores it when started from a
    # background shell job (trio then leaves it ignored); in the agent SIGINT must kill either way.
    spec = MatchSpec(
        game="goofspiel", agents=("hosted-fault", "hosted-fault"), seed=1, move_ms=600_000,
        agent_options=(hosted("spin", at=1), hosted("spin", at=1)),
    )  # fmt: skip
    outcomes = []

    async def main() -> None:
        async with trio.open_nursery() as nursery:

            async def play() -> None:
                outcomes.append(await play_match(spec, discover()))

            nursery.start_soon(play)
            while len(no_leftovers) < 2:
                await trio.sleep(0.01)
            for pid in no_leftovers:
                os.kill(pid, signal.SIGINT)

    previous = signal.signal(
        signal.SIGINT, signal.SIG_IGN if referee_sigint == "ignored" else signal.default_int_handler
    )
    try:
        trio.run(main)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert [s.fault for s in outcomes[0].seats] == ["crash", "crash"]
    assert all(f["detail"].startswith("killed by SIGINT") for f in outcomes[0].record["faults"])


def test_a_forked_agent_dies_with_a_referee_killed_outright(no_leftovers, popen):  # noqa: F811
    """kill -9 of the referee runs none of its clean-up: the kernel must stop its agents."""
    mark = os.environ["TLACHTLI_TEST_MARK"]
    script = (
        "from arena.match.spec import MatchSpec; from arena.match.referee import run_match; "
        "run_match(MatchSpec(game='goofspiel', agents=('hosted-fault', 'random'), seed=1, move_ms=600000,"
        " agent_options=({'mode': 'spin', 'at': 1}, {})))"
    )
    referee = popen([sys.executable, "-c", script])
    # The referee and both agents carry the mark (the forked agent inherits the referee's
    # environment); wait until the spinning agent has been asked, then kill the referee.
    while len(processes_marked(mark)) < 3 and referee.poll() is None:
        time.sleep(0.05)
    time.sleep(0.3)
    agents = [pid for pid in processes_marked(mark) if pid != referee.pid]
    assert agents, "the agents never started"
    referee.kill()
    referee.wait()
    assert eventually_empty(lambda: [pid for pid in processes_marked(mark) if pid in agents]) == []


def test_reaping_is_idempotent_when_a_poll_reaps_between_wake_up_and_reap(monkeypatch):
    # The race behind a flaky "ChildProcessError: No child processes": wait() wakes on the
    # pidfd, then another task's `returncode` poll reaps the child before wait() reaps it.
    # Forced here: the poll runs right after every wake-up.
    from arena.process import spawn

    spec = discover().agent("random")
    process = spawn.fork_agent(spec, None, None)
    real_wait_readable = trio.lowlevel.wait_readable

    async def wake_then_poll(fd):
        await real_wait_readable(fd)
        assert process.returncode is not None  # another task reaps it first

    monkeypatch.setattr(trio.lowlevel, "wait_readable", wake_then_poll)

    async def main():
        await process.stdin.aclose()  # end of input: the agent exits
        assert await process.wait() == 0
        assert await process.wait() == 0 and process.returncode == 0  # and again: idempotent
        for stream in (process.stdout, process.stderr):
            await stream.aclose()

    try:
        trio.run(main)
    finally:
        if process.returncode is None:
            os.kill(process.pid, signal.SIGKILL)
            os.waitpid(process.pid, 0)


def test_a_program_that_cannot_start_leaves_no_descriptor_closed_twice():
    """A failed exec closes its three pipes once: numbers reused while its error is still held stay open."""
    reused: list[int] = []

    async def start() -> None:  # as the referee starts agents: inside trio
        with pytest.raises(OSError) as failed:
            exec_agent(["/nonexistent/agent"], prepare=lambda: None)
        assert failed.value.errno == errno.ENOENT
        # The error's traceback holds the failed process; meanwhile its pipes' numbers are reused.
        reused.extend(os.open(os.devnull, os.O_RDONLY) for _ in range(8))
        del failed

    try:
        trio.run(start)
        gc.collect()  # the failed process's streams, had they kept the numbers, would close them now
        for fd in reused:
            os.fstat(fd)  # OSError (EBADF) where one was closed behind its owner's back
    finally:
        for fd in reused:
            with contextlib.suppress(OSError):  # already closed: the failure above says so
                os.close(fd)

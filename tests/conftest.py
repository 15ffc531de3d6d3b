"""Shared fixtures: the test game goofspiel and the fault-injecting agents load as plugins via TLACHTLI_PLUGINS.

Every test also runs under a leak guard: a process it started that is still alive when it ends
(after its own fixtures' finalizers) is killed, and the test fails, naming it.
"""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from arena.process import launchers, spawn
from tests.support.agent_processes import eventually_empty as agents_gone
from tests.support.agent_processes import processes_in_sessions, processes_marked
from tests.support.processes import (
    TAG_ENV,
    clock_ticks,
    describe,
    end,
    eventually_empty,
    kept_for_the_session,
    kill_all,
    leftovers,
)

ROOT = Path(__file__).resolve().parent.parent
pytest_plugins = ["tests.support.xdist_groups"]  # refuses a run whose xdist groups would not hold


def pytest_configure(config: pytest.Config) -> None:
    """Ctrl-C as at a terminal, even when the suite was started from a background job.

    A shell starts background jobs with SIGINT ignored, and that reaches every `arena` the tests
    start: the tests that interrupt one would then wait forever. (The agents themselves always
    start with default signals: arena/process/spawn.py.)
    """
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


# Modules whose tests must not all run at once under pytest-xdist (`make test`): each of their tests
# starts a whole Dask cluster (a scheduler and worker processes), and several at once overload a
# 2-core machine. Each lane (an xdist group) runs on one worker, a test at a time, beside the rest:
# at most two clusters at once. One lane held all of test_cluster (~300 s of a ~400 s quiet run, the
# suite's critical path once the rest got cheaper): now the tests on a `dask scheduler` of their own
# (TLS, as a remote cluster) and the `--cluster local:N` ones each have a lane.
def _cluster_lane(item: pytest.Item) -> str:
    return "dask-tls" if "dask_scheduler" in getattr(item, "fixturenames", ()) else "dask-local"


ONE_TEST_AT_A_TIME = {"tests/arena/tournament/run/test_cluster.py": _cluster_lane}


def uses_a_module_fixture(item: pytest.Item) -> bool:
    """Whether ``item`` uses a module-scoped fixture (directly or through another fixture)."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return False
    return any(
        definitions[-1].scope == "module"
        for name in info.names_closure
        if (definitions := info.name2fixturedefs.get(name))
    )


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Put the tests of ``ONE_TEST_AT_A_TIME``'s modules in their lane's xdist group, and the tests
    of a module that use its module-scoped fixtures (a played store, say) in the module's group:
    a module fixture is built once per worker that runs a test using it, so on one worker it is
    built once (docs/testing.md, "Sharing costly set-up"). A test with a group of its own keeps it."""
    for item in items:
        module = item.nodeid.split("::")[0]
        lane = ONE_TEST_AT_A_TIME.get(module)
        if lane:
            item.add_marker(pytest.mark.xdist_group(lane(item)))
        elif item.get_closest_marker("xdist_group") is None and uses_a_module_fixture(item):
            item.add_marker(pytest.mark.xdist_group(module))


# Per process (each xdist worker has its own): tags never collide between workers.
_SESSION = uuid.uuid4().hex[:12]
_COUNTER = itertools.count()


@pytest.fixture(autouse=True)
def _test_plugins(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the test game discoverable in this process and in any subprocess it starts, and hide
    the bots a user installed in this environment (only Tlachtli's own entry points are loaded):
    the suite must not depend on them, nor collide with them."""
    monkeypatch.setenv("TLACHTLI_ENTRY_POINTS_ONLY", "tlachtli")
    monkeypatch.setenv(
        "TLACHTLI_PLUGINS",
        "examples.games.goofspiel.game,tests.support.faulty_agents,examples.games.goofspiel.agents,"
        "tests.support.referee_attackers",
    )
    path = os.environ.get("PYTHONPATH", "")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), path])))
    # The leak guards find exec'd agents by these marks: pass them on (agents get no other variable).
    monkeypatch.setenv("TLACHTLI_AGENT_ENV", "TLACHTLI_TEST_PROC,TLACHTLI_TEST_MARK,TLACHTLI_TEST_RUN")


@pytest.fixture(autouse=True)
def _no_process_left(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Fail a test that leaves a process running (and kill what it left)."""
    tag = f"{_SESSION}-{next(_COUNTER)}"
    since = clock_ticks()  # before the tag exists: whatever carries it started later
    monkeypatch.setenv(TAG_ENV, tag)
    yield
    left = eventually_empty(lambda: leftovers(tag, since), seconds=5)
    if left:
        text = describe(left)
        kill_all(left)
        pytest.fail(f"the test left {len(left)} process(es) running (now killed):\n{text}", pytrace=False)


@pytest.fixture
def popen() -> Iterator[Callable[..., subprocess.Popen]]:
    """``subprocess.Popen`` whose processes are killed and reaped when the test ends, however it ends."""
    started: list[subprocess.Popen] = []

    def start(*args, **kwargs) -> subprocess.Popen:
        process = subprocess.Popen(*args, **kwargs)
        started.append(process)
        return process

    yield start
    for process in started:
        end(process)


@pytest.fixture
def no_leftovers(monkeypatch: pytest.MonkeyPatch):
    """Tag every agent process this test starts; afterwards none may be alive. Yields the forked pids.

    Exec'd agents carry the mark in their environment; forked agents are recorded as they
    start, must have been reaped, and nothing may be left in their sessions.
    """
    mark = f"tlachtli-test-{uuid.uuid4().hex}"
    monkeypatch.setenv("TLACHTLI_TEST_MARK", mark)
    forked: list[int] = []

    def recording_fork(*args, **kwargs):
        process = spawn.fork_agent(*args, **kwargs)
        forked.append(process.pid)
        return process

    monkeypatch.setattr(launchers, "fork_agent", recording_fork)
    yield forked
    assert agents_gone(lambda: processes_marked(mark) + processes_in_sessions(forked)) == []
    for pid in forked:  # reaped by the referee: not our child any more
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[object]:
    """A real PostgreSQL server for this pytest process (tests/support/postgres.py), stopped at the end."""
    from tests.support import postgres

    why = postgres.available()
    if why is not None:
        pytest.skip(why)
    server = postgres.start()
    try:
        with kept_for_the_session([server.pid()]):
            yield server
    finally:
        server.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def store_db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A new tournament store's --db, once per backend: a SQLite file, or a fresh database on the
    session's PostgreSQL server (already at the latest schema)."""
    if request.param == "sqlite":
        return str(tmp_path / "store.db")
    return request.getfixturevalue("postgres_server").fresh()

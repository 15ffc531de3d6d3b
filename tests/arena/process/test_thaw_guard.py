"""A referee killed outright (kill -9) leaves no frozen agent behind (arena/process/cgroups.py, the thaw guard).

Under cgroup v1 a frozen process cannot die, not even of SIGKILL, until thawed: without a guard
that thaws its groups, a bot frozen while its opponent decides outlives a referee killed outright
for good, parent-death signal pending. One guard per referee process watches all its groups
(not one per agent, which would start on the match's critical path).
"""

from __future__ import annotations

import glob
import os
import subprocess
import sys
import time
import uuid

import pytest

from arena.process.limits import BotCgroup, _own_cgroup, _sweep_stale
from arena.process.sandbox import bwrap_works
from arena.process.zygote import zygote_supported
from tests.support.agent_processes import eventually_empty, processes_marked

_PROBE = BotCgroup.create(None)
FREEZER = _PROBE is not None and _PROBE.freezer is not None
if _PROBE is not None:
    _PROBE.remove()
pytestmark = pytest.mark.skipif(
    not FREEZER or not bwrap_works(), reason="needs root, bubblewrap and the cgroup v1 freezer"
)

# Goofspiel's seats bid at once: seat 1 answers and is frozen while seat 0 spins for 30 s. The
# handshake clock is long: a CI run saw an agent forfeit at the default 10 s start on a loaded
# machine, the match end before anything froze, and this test fail without having attacked.
REFEREE = (
    "from arena.match.spec import MatchSpec; from arena.match.referee import run_match; "
    "print(run_match(MatchSpec(game='goofspiel', agents=('hosted-fault', 'random'), seed=1, move_ms=600000,"
    " handshake_ms=120000, agent_options=({'mode': 'spin', 'at': 2}, {}))).seats)"
)


def frozen_groups(referee: int) -> list[str]:
    """The v1 freezer groups of ``referee``'s agents that are frozen now."""
    found = []
    for state in glob.glob(
        os.path.join(_own_cgroup("freezer") or "/nonexistent", f"tlachtli-{referee}-*/freezer.state")
    ):
        try:
            with open(state) as handle:
                if handle.read().strip() == "FROZEN":
                    found.append(state)
        except OSError:
            continue
    return found


@pytest.mark.parametrize(
    "start",
    [
        "exec",
        pytest.param("zygote", marks=pytest.mark.skipif(not zygote_supported(), reason="no zygote here")),
    ],
)
def test_a_frozen_agent_dies_with_a_referee_killed_outright(popen, monkeypatch, tmp_path, start):
    mark = f"tlachtli-test-{uuid.uuid4().hex}"
    monkeypatch.setenv("TLACHTLI_TEST_MARK", mark)  # passed on to the agents (tests/conftest.py)
    monkeypatch.setenv("TLACHTLI_AGENT_START", start)
    monkeypatch.setenv("TLACHTLI_SANDBOX", "bwrap")
    output = tmp_path / "referee.txt"
    with output.open("w") as sink:
        referee = popen([sys.executable, "-c", REFEREE], stdout=sink, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 150
        while not frozen_groups(referee.pid) and referee.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert frozen_groups(referee.pid), (
            f"no agent was ever frozen: the attack did not take place (referee exit {referee.poll()},"
            f" printed: {output.read_text()[-2000:]!r})"
        )
        agents = [pid for pid in processes_marked(mark) if pid != referee.pid]
        assert agents, "the agents never started"
        referee.kill()
        referee.wait()
        assert eventually_empty(lambda: [pid for pid in processes_marked(mark) if pid in agents]) == []
        assert eventually_empty(lambda: frozen_groups(referee.pid)) == []
    finally:
        referee.kill()
        referee.wait()
        _sweep_stale()  # the groups of the dead referee: thawed, their processes killed, removed

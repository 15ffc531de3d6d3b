"""The bots' memory against the machine's (arena/process/memory.py).

The attack: in a container of ~1.46 GiB, a hog filling an unmapped memfd to 1,440 MiB (under its
own 2,048 MiB cap) got both bots OOM-killed, and the innocent seat's fault said "over its 2048
MiB limit" though it held 8 MiB. The kernel ranks OOM victims by resident memory and
``oom_score_adj`` (1000 for every agent): a memfd nobody maps is in neither. A real OOM of this
shared machine is never provoked here: the ranking is checked on the kernel's own ``oom_score``
of two real processes in cgroups, the fault text and the caps' plan on their inputs.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from arena.process import memory
from arena.process.limits import BotCgroup
from arena.process.memory import MemoryPlan, memory_plan, oom_note, rank_for_oom
from tests.support.cli import arena_in_process

HOG_MB = 200
HOG = f"""
import os, sys
fd = os.memfd_create("hog")
os.write(fd, b"x" * ({HOG_MB} << 20))  # held, never mapped: in no resident set
print("full", flush=True)
sys.stdin.read()
"""
SMALL = "import sys; print('full', flush=True); sys.stdin.read()"


def in_cgroup(code: str, cgroup: BotCgroup) -> subprocess.Popen:
    def enter() -> None:
        cgroup.enter()
        with open("/proc/self/oom_score_adj", "w") as adj:
            adj.write("1000")  # as every agent starts (limits.oom_killer_first)

    process = subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, preexec_fn=enter
    )
    assert process.stdout is not None and process.stdout.readline() == b"full\n"
    return process


def oom_score(pid: int) -> int:
    with open(f"/proc/{pid}/oom_score") as score:
        return int(score.read())


@pytest.mark.skipif(os.geteuid() != 0, reason="cgroups need root")
def test_the_bot_holding_the_most_memory_is_the_kernels_first_victim():
    groups = [BotCgroup.create(1024), BotCgroup.create(1024)]
    assert groups[0] is not None and groups[1] is not None
    processes: list[subprocess.Popen] = []
    try:
        hog, innocent = in_cgroup(HOG, groups[0]), in_cgroup(SMALL, groups[1])
        processes += [hog, innocent]
        # as it was: equal adjustments, and the hog's memfd counts for nothing
        assert abs(oom_score(hog.pid) - oom_score(innocent.pid)) <= 2
        machine = memory.machine_memory_mb()
        assert machine is not None
        scores = [rank_for_oom(group.directories["memory"], group.pids, machine, None) for group in groups]
        assert scores[0] is not None and scores[1] is not None and scores[0] > scores[1] >= 500
        assert oom_score(hog.pid) > oom_score(innocent.pid)
        assert rank_for_oom(groups[1].directories["memory"], groups[1].pids, machine, scores[1]) == scores[1]
    finally:
        for process in processes:
            process.kill()
            process.wait()
        for group in groups:
            if group is not None:
                group.kill_all()
                group.remove()


def fake_group(folder, **files: str) -> str:
    """A memory cgroup's folder holding ``files`` (``memory_failcnt``: memory.failcnt)."""
    folder.mkdir()
    for name, text in files.items():
        (folder / name.replace("_", ".", 1)).write_text(text)
    return str(folder)


V1_KILLED = "oom_kill_disable 0\nunder_oom 0\noom_kill 1\n"


def test_a_fault_says_whether_the_bot_met_its_limit_or_the_machine_ran_out(tmp_path):
    # v1 counts the machine's OOM kills in the group too: only a failed charge shows the limit met
    machine = fake_group(
        tmp_path / "machine",
        memory_oom_control=V1_KILLED,
        memory_failcnt="0\n",
        memory_max_usage_in_bytes=str(8 << 20),
    )
    assert oom_note(machine, 2048) == (
        " (out of memory: the machine ran out, not its limit; it held at most 8 MiB of its 2048 MiB limit)"
    )
    own = fake_group(tmp_path / "own", memory_oom_control=V1_KILLED, memory_failcnt="37\n")
    assert oom_note(own, 2048) == " (out of memory: over its 2048 MiB limit, all its processes together)"
    untouched = fake_group(tmp_path / "untouched", memory_oom_control=V1_KILLED.replace("kill 1", "kill 0"))
    assert oom_note(untouched, 2048) == ""
    v2 = fake_group(
        tmp_path / "v2", memory_events="low 0\nhigh 0\nmax 0\noom 0\noom_kill 1\n", memory_peak=str(8 << 20)
    )
    assert "the machine ran out, not its limit; it held at most 8 MiB" in oom_note(v2, 512)
    v2_own = fake_group(tmp_path / "v2own", memory_events="low 0\nhigh 0\nmax 5\noom 1\noom_kill 1\n")
    assert "over its 512 MiB limit" in oom_note(v2_own, 512)


def test_caps_that_do_not_fit_the_machine_are_lowered_or_named():
    assert memory_plan(24_000, 4, None, 2048) == MemoryPlan(None, None)  # 8 GiB of caps in 24 GB: fine
    lowered = memory_plan(1460, 2, None, 2048)  # the attack's container, one match of two bots
    assert lowered.cap == (1460 - memory.RESERVE_MB) // 2 and not lowered.refused
    assert lowered.note is not None and "lowered to 474 MiB" in lowered.note and "\n" not in lowered.note
    kept = memory_plan(1460, 2, 2048, 2048)  # the ladder's own cap: kept, with what would fit
    assert kept.cap is None and kept.note is not None and kept.note.startswith("warning: ")
    assert "memory_mb to at most 474" in kept.note
    refused = memory_plan(600, 8, None, 2048)
    assert refused.refused and refused.note is not None and "fewer --jobs" in refused.note


LADDER = """
name = "tight"
game = "goofspiel"
players = 2
seed = 1
[options]
cards = 3
[[agents]]
name = "a"
agent = "random"
[[agents]]
name = "b"
agent = "random"
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="cgroups need root")
def test_arena_run_says_at_start_that_the_caps_do_not_fit_and_lowers_them(tmp_path, monkeypatch):
    monkeypatch.setattr(memory, "machine_memory_mb", lambda: 1460)
    (tmp_path / "tight.toml").write_text(LADDER)
    result = arena_in_process("run", "tight.toml", "--db", "t.db", "--jobs", "1", "-q", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.startswith("memory: ")]
    assert lines == [
        "memory: this machine has 1,460 MiB, less than the bots' caps together (2 bots at once x 2048 MiB"
        " = 4,096 MiB): each bot's cap is lowered to 474 MiB (set [limits] memory_mb, or fewer --jobs)"
    ]
    assert memory.BOT_MEMORY_ENV not in os.environ  # the run's own: put back with its environment
    monkeypatch.setenv(memory.BOT_MEMORY_ENV, "474")
    assert memory.default_memory_mb(2048) == 474

"""The bots' memory against the machine's: caps that fit, who the OOM killer takes, and why a bot died.

Each bot's memory cgroup holds it to its cap (``[limits] memory_mb``, DEFAULT_MEMORY_MB), so a
hog meets its own limit and the kernel kills only inside its group: as long as the caps of the
bots that run at once fit in the machine. Where they do not (a container of 1.5 GiB, two bots of
2 GiB each), the machine runs out first and the kernel's OOM killer picks a victim machine-wide
by resident memory, which misses memory a bot holds in unmapped memfd or tmpfs pages: the
innocent seat could die first, both could die, and the fault read "over its limit". So:

- ``memory_plan``: `arena run` says so at start, and lowers the default cap so that they fit;
- ``rank_for_oom``: the referee keeps every agent's ``oom_score_adj`` at 500 plus up to 500 by
  its cgroup's share of the machine's memory (all it holds, memfd and tmpfs included), so the
  kernel takes the bot that holds the most, and any bot before the referee;
- ``oom_cause``: a bot killed by the OOM killer is told apart: over its own limit, or the
  machine ran out (the group never reached its limit).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from dataclasses import dataclass

BOT_MEMORY_ENV = "TLACHTLI_BOT_MEMORY_MB"  # the default cap in force, when `arena run` lowered it
RESERVE_MB = 512  # kept for the referees, the runner and the system beside the bots' caps
MIN_CAP_MB = 64  # a cap below this is not worth lowering to: the run is refused instead
LIMIT_SLACK_MB = 4  # a peak this close to the limit met it (the kernel reclaims just below)
OOM_BASE, OOM_SPAN = 500, 500  # an agent's oom_score_adj: OOM_BASE + OOM_SPAN x its share


def default_memory_mb(built_in: int) -> int:
    """The cap of a bot whose match sets none: ``built_in``, or what `arena run` lowered it to."""
    value = os.environ.get(BOT_MEMORY_ENV, "")
    return int(value) if value.isdigit() and int(value) > 0 else built_in


@functools.cache  # asked for every agent; the machine does not change under a referee
def machine_memory_mb() -> int | None:
    """The memory this process's bots can have at most: the machine's, or its container's
    (its memory cgroup's limit, v1 or v2) when smaller; None where unknown."""
    found: list[int] = []
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemTotal:"):
                    found.append(int(line.split()[1]) // 1024)
    except (OSError, ValueError):
        pass
    for path in _own_limit_files():
        try:
            with open(path) as handle:
                text = handle.read().strip()
        except OSError:
            continue
        if text.isdigit() and int(text) < 1 << 50:  # "max" or a huge number: no limit
            found.append(int(text) >> 20)
    return min(found) if found else None


def _own_limit_files() -> list[str]:
    files = []
    try:
        with open("/proc/self/cgroup") as cgroups:
            for line in cgroups:
                _, controllers, path = line.rstrip("\n").split(":", 2)
                if "memory" in controllers.split(","):
                    files.append(f"/sys/fs/cgroup/memory{path}/memory.limit_in_bytes")
                elif controllers == "":
                    files.append(f"/sys/fs/cgroup{path}/memory.max")
    except (OSError, ValueError):
        pass
    return files


@dataclass(frozen=True)
class MemoryPlan:
    """What `arena run` does about memory: ``cap`` (None: leave it), and the line it says."""

    cap: int | None
    note: str | None
    refused: bool = False


def memory_plan(machine_mb: int | None, bots: int, cap_mb: int | None, default_mb: int) -> MemoryPlan:
    """Whether ``bots`` running at once, each capped at ``cap_mb`` (None: ``default_mb``), fit in
    ``machine_mb`` beside RESERVE_MB. If not: a default cap is lowered to fit (``cap``); a cap the
    ladder set is kept, with a warning; a fitting cap under MIN_CAP_MB refuses the run."""
    if machine_mb is None or bots < 1:
        return MemoryPlan(None, None)
    cap = cap_mb or default_mb
    room = machine_mb - RESERVE_MB
    if bots * cap <= room:
        return MemoryPlan(None, None)
    fitting = max(room, 0) // bots
    together = f"{bots} bots at once x {cap} MiB = {bots * cap:,} MiB"
    if fitting < MIN_CAP_MB:
        return MemoryPlan(
            None,
            f"memory: this machine has {machine_mb:,} MiB, too little for {bots} bots at once: use fewer --jobs",
            refused=True,
        )
    if cap_mb is None:
        return MemoryPlan(
            fitting,
            f"memory: this machine has {machine_mb:,} MiB, less than the bots' caps together ({together}):"
            f" each bot's cap is lowered to {fitting:,} MiB (set [limits] memory_mb, or fewer --jobs)",
        )
    return MemoryPlan(
        None,
        f"warning: this machine has {machine_mb:,} MiB, less than the bots' caps together ({together}):"
        f" the machine may run out before a bot meets its cap; set [limits] memory_mb to at most {fitting:,}"
        " or use fewer --jobs",
    )


def oom_score(usage_bytes: int, machine_mb: int) -> int:
    """An agent's ``oom_score_adj`` for a group holding ``usage_bytes``: more memory, earlier victim."""
    share = min(1.0, usage_bytes / max(1, machine_mb << 20))
    return OOM_BASE + round(OOM_SPAN * share)


def rank_for_oom(
    memory_directory: str, pids: Callable[[], list[int]], machine_mb: int, last: int | None
) -> int | None:
    """Set the ``oom_score_adj`` of the agent's processes (``pids()``, read only when the score
    changes: a process forked since inherits its parent's) from its memory cgroup's usage (root
    may lower it; the bot cannot); the score set, or ``last`` if unchanged or unreadable."""
    try:
        with open(os.path.join(memory_directory, "memory.usage_in_bytes")) as handle:
            usage = int(handle.read())
    except (OSError, ValueError):
        try:
            with open(os.path.join(memory_directory, "memory.current")) as handle:  # v2
                usage = int(handle.read())
        except (OSError, ValueError):
            return last
    score = oom_score(usage, machine_mb)
    if score == last:
        return last
    for pid in pids():
        try:
            with open(f"/proc/{pid}/oom_score_adj", "w") as handle:
                handle.write(str(score))
        except OSError:
            continue  # ended meanwhile
    return score


def oom_cause(memory_directory: str) -> str | None:
    """Why the kernel's OOM killer ended a process of this memory cgroup: "limit" (the group met
    its own limit), "machine" (it never did: the machine ran out), or None (no OOM kill)."""
    events = _key_values(os.path.join(memory_directory, "memory.events"))  # v2
    if events:
        if not events.get("oom_kill"):
            return None
        return "limit" if events.get("oom") or events.get("max") else "machine"
    control = _key_values(os.path.join(memory_directory, "memory.oom_control"))  # v1
    if not control.get("oom_kill"):
        return None
    # v1 counts every OOM kill of its processes, the machine's too: the limit was met only if a
    # charge ever failed against it (or against memory+swap's, set to the same), or its peak reached it
    failed = any(
        _number(os.path.join(memory_directory, name)) for name in ("memory.failcnt", "memory.memsw.failcnt")
    )
    peak, limit = (
        _number(os.path.join(memory_directory, name))
        for name in ("memory.max_usage_in_bytes", "memory.limit_in_bytes")
    )
    reached = peak is not None and limit is not None and peak >= limit - (LIMIT_SLACK_MB << 20)
    return "limit" if failed or reached else "machine"


def peak_mb(memory_directory: str) -> int | None:
    """The most the group held at once, in MiB (v1 ``memory.max_usage_in_bytes``, v2 ``memory.peak``)."""
    for name in ("memory.max_usage_in_bytes", "memory.peak"):
        value = _number(os.path.join(memory_directory, name))
        if value is not None:
            return value >> 20
    return None


def _number(path: str) -> int | None:
    try:
        with open(path) as handle:
            return int(handle.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _key_values(path: str) -> dict[str, int]:
    found: dict[str, int] = {}
    try:
        with open(path) as handle:
            for line in handle:
                key, _, value = line.partition(" ")
                if value.strip().isdigit():
                    found[key] = int(value)
    except OSError:
        pass
    return found


def oom_note(memory_directory: str, limit_mb: int) -> str:
    """What a bot's fault adds when the OOM killer ended a process of its group ('' if it did not)."""
    cause = oom_cause(memory_directory)
    if cause is None:
        return ""
    if cause == "limit":
        return f" (out of memory: over its {limit_mb} MiB limit, all its processes together)"
    held = peak_mb(memory_directory)
    most = f"; it held at most {held} MiB of its {limit_mb} MiB limit" if held is not None else ""
    return f" (out of memory: the machine ran out, not its limit{most})"

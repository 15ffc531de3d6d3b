"""Agent start-up cost: from spawn to the agent's `ready`, per agent, by start method and sandbox.

Plays short Zapotec matches (two `random` agents, 1 decision-free handshake each) and reads each
seat's ``handshake_ms`` from the record: spawn, interpreter start, imports, plugin discovery,
hello and ready. Rows: exec'd in the bubblewrap sandbox (the default where it runs), exec'd
without a sandbox, and forked from the referee (TLACHTLI_AGENT_START=fork, trusted bots only).
Median and spread (10th-90th percentile) over the matches, wall-clock ms per agent.
"""

from __future__ import annotations

import os
import statistics

from arena.match.referee import run_match
from arena.match.spec import MatchSpec
from arena.process.sandbox import SANDBOX_ENV, bwrap_works
from arena.process.spawn import START_ENV, fork_supported
from arena.registry.plugins import discover

MATCHES = 12


def handshakes(start: str, sandbox: str) -> list[float]:
    saved = {key: os.environ.get(key) for key in (START_ENV, SANDBOX_ENV)}
    os.environ[START_ENV], os.environ[SANDBOX_ENV] = start, sandbox
    try:
        registry = discover()
        times = []
        for seed in range(MATCHES):
            # handshake only matters: any short match will do; a whole Zapotec game is quick
            record = run_match(
                MatchSpec(game="zapotec", agents=("random", "random"), seed=seed), registry
            ).record
            times += [agent["handshake_ms"] for agent in record["agents"]]
        return times
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def main() -> None:
    rows = []
    if bwrap_works():
        rows.append(("exec, sandbox bwrap", "exec", "bwrap"))
    else:
        print("bubblewrap cannot run here: no sandboxed figure")
    rows.append(("exec, no sandbox", "exec", "none"))
    if fork_supported():
        rows.append(("fork (trusted), no sandbox", "fork", "none"))
    for label, start, sandbox in rows:
        times = sorted(handshakes(start, sandbox))
        deciles = statistics.quantiles(times, n=10)
        print(
            f"agent start-up, {label:28s}: median {statistics.median(times):6.1f} ms "
            f"(p10 {deciles[0]:.1f}, p90 {deciles[-1]:.1f}; {len(times)} agents)"
        )


if __name__ == "__main__":
    main()

"""Submitted bots: the time from `arena submit` to `active`, and a ladder of submitted bots against
the same bots installed as plugins.

1. `arena submit` of a small Python bot package (no build step) to a Zapotec 2-player ladder, as a
   real `arena` process, until it prints `active`: reading, checks, the three validation games
   (against random in both seats, against itself), in the bwrap sandbox. Target: under 30 s.
2. `arena run` of a round robin of 2 `random`s and N copies of one small bot (a seeded random
   choice), Zapotec 2 players, --jobs 2, with zygote starts (`arena run`'s workers' default):
   once with the N bots submitted (each its own package, forked from the package zygote, mounted
   at /bot), once with the same bot code installed as N plugin agents (TLACHTLI_PLUGINS).
   Target: within 10%.

Each is repeated REPEATS times, the two ladders interleaved; the median and the range are printed.
Needs root and bubblewrap (zygote starts). ``python bench/bench_submissions.py [N] [REPEATS]``
(defaults 6 and 3; N = 20 plays 462 matches a run).

Measured on the 2-core development machine with N = 20 and 3 repeats, its load average 7-12 from
other test suites beside it: submit to active 1.50 s (1.44-1.58); the ladder of submitted bots
26.1 s (22.2-31.5), of plugins 30.8 s (20.7-31.2): docs/submissions.md, *Figures*.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ARENA = [sys.executable, "-m", "arena.cli"]
BOT = """
from random import Random

from arena.bot import Agent


class Bot(Agent):
    def setup(self, hello):
        self.rng = Random(hello["seat"])

    def act(self, observation, decision):
        return self.rng.randrange(len(decision["options"]))
"""
PLUGIN = """
from arena.registry.plugins import AgentSpec, hookimpl

from benchbot_code import Bot


@hookimpl
def tlachtli_agents():
    return [AgentSpec(f"bench-{{i}}", "a bench bot", games=("zapotec",), factory=Bot, version="1.0") for i in range({n})]
"""
LADDER = """name = "bench"
game = "zapotec"
players = 2
seed = 1
sandbox = "bwrap"
[[agents]]
agent = "random"
[[agents]]
name = "random-b"
agent = "random"
options = {{seed = 9}}
{more}"""


def package(folder: Path, name: str) -> Path:
    (folder / "benchbot_code").mkdir(parents=True)
    (folder / "benchbot_code" / "__init__.py").write_text(textwrap.dedent(BOT))
    (folder / "tlachtli.toml").write_text(
        f'name = "{name}"\nversion = "1.0"\ngames = ["zapotec"]\n[start]\npython = "benchbot_code:Bot"\n'
    )
    return folder


def environment(**extra: str) -> dict[str, str]:
    env = dict(os.environ, TLACHTLI_ENTRY_POINTS_ONLY="tlachtli", **extra)
    env.pop("TLACHTLI_AGENT_START", None)  # arena run's workers: zygote starts where they run
    return env


def arena(args: list[str], cwd: Path, env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(ARENA + args, cwd=cwd, env=env, capture_output=True, text=True, timeout=3600)
    took = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"arena {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
    return took


def submit_time(work: Path) -> float:
    work.mkdir()
    (work / "ladder.toml").write_text(LADDER.format(more=""))
    package(work / "pkg", "lone-bot")
    return arena(["submit", "pkg", "--ladder", "ladder.toml"], work, environment())


def submitted_ladder(work: Path, bots: int) -> float:
    work.mkdir()
    (work / "ladder.toml").write_text(LADDER.format(more=""))
    for i in range(bots):
        package(work / f"p{i}", f"bench-{i}")
        arena(["submit", f"p{i}", "--ladder", "ladder.toml"], work, environment())
    return arena(["run", "ladder.toml", "-q", "--jobs", "2"], work, environment())


def plugin_ladder(work: Path, bots: int) -> float:
    code = work / "code"
    code.mkdir(parents=True)
    (code / "benchbot_code.py").write_text(textwrap.dedent(BOT))
    (code / "benchbot_plugin.py").write_text(textwrap.dedent(PLUGIN.format(n=bots)))
    entries = "".join(f'[[agents]]\nagent = "bench-{i}"\n' for i in range(bots))
    play = work / "play"
    play.mkdir()
    (play / "ladder.toml").write_text(LADDER.format(more=entries))
    env = environment(PYTHONPATH=str(code), TLACHTLI_PLUGINS="benchbot_plugin,benchbot_code")
    return arena(["run", "ladder.toml", "-q", "--jobs", "2"], play, env)


def spread(values: list[float]) -> str:
    return f"median {statistics.median(values):.2f} s (range {min(values):.2f}-{max(values):.2f}, n={len(values)})"


def main() -> None:
    bots = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 6
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        submits = [submit_time(root / f"submit{i}") for i in range(repeats)]
        print(f"arena submit -> active (no build, 3 validation games): {spread(submits)}")
        submitted, plugins = [], []
        for i in range(repeats):
            submitted.append(submitted_ladder(root / f"submitted{i}", bots))
            plugins.append(plugin_ladder(root / f"plugins{i}", bots))
        matches = (bots + 2) * (bots + 1)
        print(
            f"ladder of {bots} submitted bots + 2 randoms ({matches} matches, zygote starts): {spread(submitted)}"
        )
        print(f"the same bots installed as plugins:                     {spread(plugins)}")
        ratio = statistics.median(submitted) / statistics.median(plugins)
        print(f"submitted / plugins: {ratio:.3f} (target: within 1.10)")


if __name__ == "__main__":
    main()

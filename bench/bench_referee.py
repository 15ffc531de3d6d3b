"""Referee speed: per-decision round trip through the referee vs a bare msgpack-over-pipe echo.

Figures (median microseconds per decision, all measured in this run):
- bare echo: a blocking parent writes a `decide` frame to a Python child that decodes it and
  answers an `act` frame; the floor any pipe protocol in Python pays;
- referee: decisions of a long two-seat game played through `play_match` against two
  `random` agents hosted by arena.wire.host, timed per decision (engine + frame out + agent + frame
  in + checks), from the referee's loop;
and a whole goofspiel match (2 random agents) through subprocesses vs the same match in process.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Mapping
from random import Random
from typing import Any

import msgpack

from arena.match.referee import run_match
from arena.match.spec import MatchSpec
from arena.registry.plugins import discover
from arena.wire.protocol import HEADER, encode
from engine.api import Decision, Result, competition_ranks
from plugins.random_agent import RandomAgent

ECHO_CHILD = """
import sys, struct, msgpack
inp, out = sys.stdin.buffer, sys.stdout.buffer
while True:
    header = inp.read(4)
    if len(header) < 4:
        break
    message = msgpack.unpackb(inp.read(struct.unpack(">I", header)[0]), raw=False)
    body = msgpack.packb({"type": "act", "id": message["id"], "choice": 0})
    out.write(struct.pack(">I", len(body)) + body)
    out.flush()
"""


class CountdownState:
    """A bench-only game: two seats alternate ``length`` small decisions; tiny engine cost."""

    def __init__(self, length: int) -> None:
        self.left = length
        self.totals = [0, 0]

    def to_act(self) -> tuple[int, ...]:
        return (self.left % 2,) if self.left else ()

    def decision(self, seat: int) -> Decision:
        return Decision("pick", "Pick a number", tuple({"label": str(i), "n": i} for i in range(4)))

    def apply(self, seat: int, choice: int) -> None:
        self.totals[seat] += choice
        self.left -= 1

    def observation(self, seat: int) -> dict[str, Any]:
        return {"game": "countdown", "seat": seat, "left": self.left, "totals": list(self.totals)}

    def terminal(self) -> bool:
        return not self.left

    def result(self) -> Result:
        return Result(tuple(self.totals), competition_ranks([(t,) for t in self.totals]))

    def render(self) -> str:
        return f"{self.left} left, totals {self.totals}"

    def clone(self) -> CountdownState:
        copy = CountdownState(self.left)
        copy.totals = list(self.totals)
        return copy

    def determinize(self, seat: int, rng: Random) -> CountdownState:
        return self.clone()  # nothing is hidden

    def log(self) -> list[dict]:
        return []


class Countdown:
    id = "bench-countdown"
    version = "1"
    min_players = 2
    max_players = 2
    automata: tuple[str, ...] = ()

    def option_schema(self) -> dict[str, Any]:
        return {}

    def setup(self, players: int, seed: int, options: Mapping[str, Any]) -> CountdownState:
        return CountdownState(2000)

    def from_observation(self, observation: dict, rng: Random) -> CountdownState:
        state = CountdownState(observation["left"])  # nothing is hidden
        state.totals = list(observation["totals"])
        return state


def decide_message(state: CountdownState, ident: int) -> dict[str, Any]:
    decision = state.decision(0)
    return {
        "type": "decide",
        "id": ident,
        "obs": state.observation(0),
        "kind": decision.kind,
        "prompt": decision.prompt,
        "options": list(decision.options),
        "clock": {"move_ms": 1000, "bank_ms_left": 60000},
    }


def bare_echo(rounds: int = 3000) -> float:
    """Median µs of one decide/act round trip to a Python child over pipes, no referee.

    Both ends do what any msgpack-over-pipe protocol must: pack, write, read, unpack.
    """
    child = subprocess.Popen(
        [sys.executable, "-c", ECHO_CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert child.stdout is not None and child.stdin is not None  # both piped above
    inp, out = child.stdout.fileno(), child.stdin.fileno()
    message = decide_message(CountdownState(10), 1)
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        os.write(out, encode(message))
        (length,) = HEADER.unpack(os.read(inp, 4))
        msgpack.unpackb(os.read(inp, length), raw=False)
        samples.append(time.perf_counter() - started)
    child.stdin.close()
    child.wait()
    return statistics.median(samples) * 1e6


def referee_decisions() -> tuple[float, float]:
    """(median µs per decision as the referee times it, mean µs per decision of the whole loop)."""
    registry = discover()
    registry.games["bench-countdown"] = Countdown()
    outcome = run_match(MatchSpec(game="bench-countdown", agents=("random", "random"), seed=1), registry)
    record = outcome.record
    per_move = statistics.median(m["ms"] for m in record["moves"]) * 1000
    loop_ms = record["duration_ms"] - max(a["handshake_ms"] for a in record["agents"])
    return per_move, loop_ms * 1000 / len(record["moves"])


def match_in_process(seed: int) -> None:
    """The goofspiel match of ``match_subprocess``, with the agents called directly."""
    from examples.games.goofspiel.game import GAME

    state = GAME.setup(2, seed, {"cards": 13})
    agents = [RandomAgent(), RandomAgent()]
    for seat, agent in enumerate(agents):
        agent.setup({"seat": seat, "agent_options": {}})
    while to_act := state.to_act():
        for seat in to_act:
            decision = state.decision(seat)
            message = {"kind": decision.kind, "prompt": decision.prompt, "options": list(decision.options)}
            state.apply(seat, agents[seat].act(state.observation(seat), message))


def set_affinity(cpus: set[int]) -> None:
    """Pin every thread of this process (trio spawns agents from a worker thread) to ``cpus``."""
    for tid in os.listdir("/proc/self/task"):
        os.sched_setaffinity(int(tid), cpus)


def main() -> None:
    os.environ.setdefault("TLACHTLI_PLUGINS", "examples.games.goofspiel.game")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))
    sys.path.insert(0, root)  # the example game's plugin, when run as `python bench/bench_referee.py`
    # Two settings: free (the agent usually runs on the other core, so each round trip pays a
    # cross-core wake-up whose cost depends on the machine's load and idle states) and pinned
    # to one core (a plain context switch: the software cost of the path). The machine is
    # shared, so the two measures are interleaved and each keeps its best median of 5.
    cpus = sorted(os.sched_getaffinity(0))
    for setting, affinity in (("free", set(cpus)), ("pinned to one core", {cpus[-1]})):
        set_affinity(affinity)  # inherited by the agent processes started below
        echoes, moves, loops = [], [], []
        for _ in range(5):
            echoes.append(bare_echo(2000))
            per_move, loop = referee_decisions()
            moves.append(per_move)
            loops.append(loop)
        echo, per_move, loop = min(echoes), min(moves), min(loops)
        print(f"[{setting}]")
        print(f"  bare msgpack-over-pipe echo:   {echo:8.1f} us per round trip (median)")
        print(f"  referee -> subprocess agent:   {per_move:8.1f} us per decision (median, referee clock)")
        print(f"  referee whole decision loop:   {loop:8.1f} us per decision (mean, engine included)")
        print(f"  referee / bare echo:           {per_move / echo:8.2f} x  (target <= 3x)")
    set_affinity(set(cpus))
    registry = discover()
    seeds = range(5)
    started = time.perf_counter()
    for seed in seeds:
        run_match(
            MatchSpec(game="goofspiel", agents=("random", "random"), seed=seed, options={"cards": 13}),
            registry,
        )
    through = (time.perf_counter() - started) / len(seeds) * 1000
    rng = Random(0)
    started = time.perf_counter()
    for _ in range(50):
        match_in_process(rng.randrange(1000))
    inproc = (time.perf_counter() - started) / 50 * 1000
    print(
        f"goofspiel 13 cards, 2 random agents: {through:8.1f} ms per match through subprocesses (spawn included)"
    )
    print(f"same match in process:               {inproc:8.2f} ms per match")


if __name__ == "__main__":
    main()

"""Bots that report their first "random" draws: two agents forked from one zygote must not share them.

A generator made or seeded when the module is imported (in the zygote, before it forks) would
give every agent it forks the same stream: a bot could then predict an opponent of the same code.
Agents ``npdraw`` (numpy: the legacy global state, a module-level ``Generator`` and
``RandomState``) and ``pydraw`` (Python: the ``random`` module, a module-level ``random.Random``)
report ``DRAW: <generator>=<value>`` lines on stderr at setup, then play the first option.
"""

from __future__ import annotations

import random
import sys
from typing import Any

import numpy.random

from arena.registry.plugins import AgentSpec, hookimpl
from arena.wire.agent import Agent

NP_GENERATOR = numpy.random.default_rng()  # made at import: in the zygote
NP_STATE = numpy.random.RandomState()
PY_RANDOM = random.Random()


def _report(draws: dict[str, float]) -> None:
    for name, value in draws.items():
        print(f"DRAW: {name}={value!r}", file=sys.stderr, flush=True)


class NumpyDraws(Agent):
    name = "npdraw"
    version = "1"

    def setup(self, hello: dict[str, Any]) -> None:
        _report(
            {
                "numpy.random": float(numpy.random.random()),
                "module Generator": float(NP_GENERATOR.random()),
                "module RandomState": float(NP_STATE.random_sample()),
            }
        )

    def act(self, observation: dict[str, Any], decision: dict[str, Any]) -> int:
        return 0


class PythonDraws(NumpyDraws):
    name = "pydraw"

    def setup(self, hello: dict[str, Any]) -> None:
        _report({"random": random.random(), "module Random": PY_RANDOM.random()})


@hookimpl
def tlachtli_agents() -> list[AgentSpec]:
    return [
        AgentSpec(name="npdraw", description="reports numpy draws", factory=NumpyDraws, version="1"),
        AgentSpec(name="pydraw", description="reports Python draws", factory=PythonDraws, version="1"),
    ]

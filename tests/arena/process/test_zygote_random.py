"""Agents forked from one zygote draw different random numbers, as exec'd ones do.

A generator that existed in the zygote (numpy's legacy global state once numpy is imported, a
bot module's own ``Generator``, ``RandomState`` or ``random.Random`` made at import) was copied
into every agent it forked: 8 of 8 numpy agents drew the same "random" numbers, so a bot could
predict an opponent of its own code. The bots: tests/support/random_draws.py.
"""

from __future__ import annotations

import os
import re

import pytest

from arena.match.referee import run_match
from arena.match.spec import MatchSpec
from arena.process import warm, zygote
from arena.process.sandbox import SANDBOX_ENV
from arena.process.spawn import START_ENV

pytestmark = pytest.mark.skipif(not zygote.zygote_supported(), reason="zygotes need root and bubblewrap")


@pytest.mark.parametrize("start", ["zygote", "exec"])
def test_every_agent_draws_its_own_numbers(monkeypatch, start):
    monkeypatch.setenv("TLACHTLI_PLUGINS", os.environ["TLACHTLI_PLUGINS"] + ",tests.support.random_draws")
    monkeypatch.setenv(START_ENV, start)
    monkeypatch.setenv(SANDBOX_ENV, "bwrap")
    draws: dict[str, list[str]] = {}
    with warm.kept_warm():  # one zygote forks all eight agents
        for seed in range(4):
            spec = MatchSpec(game="goofspiel", agents=("npdraw", "pydraw"), seed=seed)
            record = run_match(spec).record
            assert record["faults"] == []
            for agent in record["agents"]:
                for name, value in re.findall(r"^DRAW: (.*)=(.*)$", agent["stderr"], re.MULTILINE):
                    draws.setdefault(name, []).append(value)
    assert set(draws) == {"numpy.random", "module Generator", "module RandomState", "random", "module Random"}
    assert all(len(values) == 4 for values in draws.values())
    shared = {name: 4 - len(set(values)) + 1 for name, values in draws.items() if len(set(values)) < 4}
    assert shared == {}, f"generators whose draws agents shared ({start}): {shared}"

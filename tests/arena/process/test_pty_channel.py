"""Pseudo-terminals are no channel between agents, and no pool an agent can drain.

Every agent forked from one zygote once shared the zygote's devpts instance: two colluding
seats of a 3-player Zapotec match published their hands as the set of pty numbers they held
and read each other's from ``ls /dev/pts`` (tests/support/pty_colluders.py), and one agent could
hold the machine's whole pty pool. An agent now has no pty at all, whatever its start method.
"""

from __future__ import annotations

import ast
import os
import re

import pytest

from arena.match.referee import run_match
from arena.match.spec import MatchSpec
from arena.process import zygote
from arena.process.sandbox import SANDBOX_ENV
from arena.process.spawn import START_ENV

pytestmark = pytest.mark.skipif(not zygote.zygote_supported(), reason="needs root and bubblewrap")


@pytest.fixture(params=["zygote", "exec"])
def start(request, monkeypatch) -> str:
    monkeypatch.setenv("TLACHTLI_PLUGINS", os.environ["TLACHTLI_PLUGINS"] + ",tests.support.pty_colluders")
    monkeypatch.setenv(START_ENV, request.param)
    monkeypatch.setenv(SANDBOX_ENV, "bwrap")
    return request.param


def reports(record: dict, seat: int, prefix: str) -> list[str]:
    return re.findall(rf"^{prefix}: (.*)$", record["agents"][seat]["stderr"], re.MULTILINE)


def test_two_colluding_seats_learn_no_hand_through_pty_numbers(start):
    spec = MatchSpec(
        game="zapotec",
        agents=("ptyspy", "ptyspy", "random"),
        seed=5,
        agent_options=({"role": "send"}, {"role": "read"}, {}),
    )
    record = run_match(spec).record
    assert record["faults"] == [], record["faults"]
    sent = reports(record, 0, "HAND")
    seen = [ast.literal_eval(line) for line in reports(record, 1, "SAW")]
    assert len(sent) >= 12 and len(seen) >= 12, record["agents"][0]["stderr"]
    shown = [line.split(" of ")[0] for line in sent]
    learned = sum(1 for numbers in seen if numbers and str(numbers) in shown)
    assert learned == 0, f"{learned} of {len(seen)} hands learned ({start})"
    assert shown == ["none"] * len(shown), sent[:3]  # the sender holds no pty at all
    assert seen == [[]] * len(seen)


def test_an_agent_cannot_hold_the_machines_ptys(start):
    spec = MatchSpec(
        game="goofspiel", agents=("ptyspy", "random"), seed=3, agent_options=({"role": "hoard"}, {})
    )
    record = run_match(spec).record
    assert reports(record, 0, "HELD") == ["0"], record["agents"][0]["stderr"]

"""Freezing between decisions: every other seat is frozen while one decides, and a seat
deciding several times in a row is not frozen and thawed between those decisions."""

from __future__ import annotations

import pytest

from arena.match import referee
from arena.match.referee import run_match
from arena.match.spec import MatchSpec
from arena.process.cgroups import Freezer
from arena.process.limits import BotCgroup

group = BotCgroup.create(None)
has_freezer = group is not None and group.freezer is not None
if group is not None:
    group.remove()
pytestmark = pytest.mark.skipif(not has_freezer, reason="needs root and the cgroup freezer")


def test_the_others_are_frozen_whenever_a_seat_decides_and_only_then_frozen(monkeypatch):
    unfrozen_while_another_decided = []
    ask = referee.Match.ask

    async def watching(self, seat, *args, **kwargs):
        deciding = self.state.to_act()  # seats asked at once (simultaneous) all run
        for other in self.seats:
            freezer = other.process.cgroup.freezer if other.process.cgroup else None
            if other.plan.seat not in deciding and other.fault is None and not (freezer and freezer.frozen):
                unfrozen_while_another_decided.append((seat.plan.seat, other.plan.seat))
        return await ask(self, seat, *args, **kwargs)

    freezes = []
    set_state = Freezer._set

    def counting(self, frozen):
        if frozen and not self.frozen:
            freezes.append(1)
        set_state(self, frozen)

    monkeypatch.setattr(referee.Match, "ask", watching)
    monkeypatch.setattr(Freezer, "_set", counting)
    record = run_match(MatchSpec(game="zapotec", agents=("random", "random"), seed=2)).record
    moves = record["moves"]
    assert record["faults"] == [] and len(moves) > 20
    assert unfrozen_while_another_decided == []
    switches = sum(
        1 for earlier, later in zip(moves, moves[1:], strict=False) if earlier["seat"] != later["seat"]
    )
    assert switches < len(moves) - 5  # Zapotec turns hold several decisions of one seat
    assert len(freezes) <= switches + 2  # once per change of seat, and once after each `ready`

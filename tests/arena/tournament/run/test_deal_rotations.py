"""The rotations of one deal never run at the same time, with any number of workers.

Two rotations of a deal each show a seat's hidden cards to an agent; run side by side, the two
copies of a bot could pass them to each other (tests/arena/process/test_sandbox_channels.py has the
channels). The runner hands a match out only while no other match of its deal is out.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter

import pytest

from arena.process.sandbox import bwrap_works
from arena.registry.plugins import discover
from arena.tournament.plan.ladder import parse_ladder
from arena.tournament.plan.runs import open_run
from arena.tournament.plan.schedule import deal_key, make_schedule, take_next
from arena.tournament.run import runner
from arena.tournament.run.replies import Recovered
from arena.tournament.store.sqlite import Store

LADDER = """\
name = "rotations"
game = "goofspiel"
seed = 7
matches_per_pairing = 2
sandbox = "{sandbox}"
[options]
cards = 5
[[agents]]
name = "a"
agent = "{first}"
options = {options}
[[agents]]
name = "b"
agent = "random"
[[agents]]
name = "c"
agent = "random"
"""


class RecordingPool(runner._Pool):
    """Local workers, noting which deals are out (handed, not yet answered) at every hand-out."""

    def __init__(self, size: int) -> None:
        super().__init__(size)
        self.out: dict[int, tuple] = {}
        self.overlaps: list[tuple] = []
        self.most_out = 0

    def hand(self, match) -> None:
        deal = deal_key(match.spec)
        if deal in self.out.values():
            self.overlaps.append((match.key, deal))
        self.out[match.id] = deal
        self.most_out = max(self.most_out, len(self.out))
        super().hand(match)

    def events(self, timeout: float):
        found = super().events(timeout)
        for match, reply in found:
            if not isinstance(reply, Recovered):
                self.out.pop(match.id, None)
        return found


def test_take_next_skips_a_deal_being_played_and_keeps_order_otherwise():
    ladder = parse_ladder(
        LADDER.format(sandbox="none", first="random", options="{}"), discover(), source="l.toml"
    )
    schedule = make_schedule(ladder)
    queue = list(reversed(schedule))
    first = take_next(queue, set())
    assert first is schedule[0]
    second = take_next(queue, {deal_key(first.spec)})
    assert deal_key(second.spec) != deal_key(first.spec)
    assert second is next(m for m in schedule if deal_key(m.spec) != deal_key(first.spec))
    assert take_next([schedule[1]], {deal_key(schedule[1].spec)}) is None


def test_with_four_workers_no_two_matches_of_a_deal_are_out_at_once(tmp_path):
    ladder = parse_ladder(
        LADDER.format(sandbox="none", first="random", options="{}"), discover(), source="l.toml"
    )
    deals = Counter(deal_key(match.spec) for match in make_schedule(ladder))
    assert len(deals) == 6 and set(deals.values()) == {2}  # 3 pairings x 2 repeats, 2 rotations each
    pool = RecordingPool(4)
    with Store(tmp_path / "t.db") as store:
        run = open_run(store, ladder)
        report = runner.run_pending(store, store.pending(run.id), 4, pool=pool, show_progress=False)
    assert report.played == 12 and report.errors == []
    assert pool.overlaps == []
    assert pool.most_out == 4  # other deals kept every worker busy


@pytest.mark.skipif(not bwrap_works(), reason="bubblewrap (bwrap) cannot run on this machine")
def test_the_lock_attack_through_arena_run_with_four_jobs_finds_nothing(tmp_path):
    # The hostile bot publishes its seat as fcntl locks and looks for another agent's at every
    # decision (lingering, to overlap with a match running beside it).
    ladder = tmp_path / "l.toml"
    options = '{ attack = "locks", linger_s = 0.2 }'
    ladder.write_text(LADDER.format(sandbox="bwrap", first="hostile", options=options))
    db = tmp_path / "l.db"
    env = dict(os.environ, TLACHTLI_PLUGINS=os.environ["TLACHTLI_PLUGINS"] + ",tests.support.hostile_agents")
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", "run", str(ladder), "--db", str(db), "--jobs", "4", "--quiet"],
        capture_output=True, text=True, env=env, timeout=400,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    with Store.read_only(db) as store:
        run = store.latest_run()
        records = [store.record(match.id) for match in store.matches(run.id, agent="a")]
    stderr = "".join(seat["stderr"] for record in records for seat in record["agents"])
    assert len(records) == 8 and "FOUND" not in stderr, stderr

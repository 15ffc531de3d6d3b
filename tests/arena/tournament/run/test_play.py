"""``play_ladder``: the one entry point that plays a ladder into a store, and resumes it."""

from __future__ import annotations

import pytest

from arena.registry.plugins import discover
from arena.tournament.plan.ladder import parse_ladder
from arena.tournament.run.play import play_ladder
from arena.tournament.store.api import StoreError
from arena.tournament.store.sqlite import Store

LADDER = """\
name = "play-test"
game = "goofspiel"
seed = 3

[options]
cards = 3

[[agents]]
name = "a"
agent = "random"

[[agents]]
name = "b"
agent = "prize-bidder"
"""


def test_plays_every_match_then_resumes_with_nothing_left(tmp_path):
    ladder = parse_ladder(LADDER, discover(), source="play.toml")
    notices: list[str] = []
    with Store(tmp_path / "t.db") as store:
        first = play_ladder(ladder, store, jobs=1, notify=notices.append)
    assert first.total == ladder.match_count == 2 and first.done_before == 0 and first.workers == 1
    assert first.report.played == 2 and not first.report.errors and not first.report.interrupted
    assert first.counts == {"pending": 0, "running": 0, "done": 2, "aborted": 0}
    assert notices == []  # a fresh run announces nothing
    with Store(tmp_path / "t.db") as store:
        again = play_ladder(ladder, store, jobs=1, notify=notices.append)
    assert again.run.id == first.run.id and again.report.played == 0 and again.done_before == 2
    assert notices == ["resuming 'play-test': 2 of 2 matches already played"]


def test_a_second_writer_on_the_same_store_is_refused(tmp_path):
    ladder = parse_ladder(LADDER, discover(), source="play.toml")
    with Store(tmp_path / "t.db") as holder, Store(tmp_path / "t.db") as other:
        holder.claim_writer()
        with pytest.raises(StoreError):
            play_ladder(ladder, other, jobs=1)

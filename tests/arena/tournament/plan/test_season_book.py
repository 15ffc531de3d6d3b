"""Season ladders and the season's book: the [season] table's checks, and a log that replays to the
very state the service had (joins, inheritance, withdrawals, results, the final phase)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from arena.match.spec import MatchSpec
from arena.registry.plugins import discover
from arena.tournament.plan.growth import RosterEntry
from arena.tournament.plan.ladder import LadderError, parse_ladder
from arena.tournament.plan.season import ReplayError, SeasonBook, group_of, replay, season_match, unrecorded
from arena.tournament.plan.season_table import season_table
from arena.tournament.store.api import SeasonEvent, StoredMatch, StoredSeat

SEASON = """\
name = "s"
game = "goofspiel"
players = 2
format = "season"
seed = 4
{extra}
[[agents]]
name = "a"
agent = "random"

[[agents]]
name = "b"
agent = "prize-bidder"
"""


@pytest.fixture
def registry():
    return discover()


def error_of(extra: str, registry, text: str = SEASON) -> str:
    with pytest.raises(LadderError) as caught:
        parse_ladder(text.format(extra=extra), registry, source="s.toml")
    return str(caught.value)


def test_a_season_ladder_keeps_its_table_and_refuses_bad_keys_at_their_line(registry):
    ladder = parse_ladder(
        SEASON.format(
            extra='[season]\nseats = [2, 3]\nplacement_games = 4\nfinal_at = "2030-01-01T00:00:00Z"\n'
        ),
        registry,
    )
    assert ladder.format == "season" and ladder.season["placement_games"] == 4
    assert "s.toml:7: unknown key 'placemnt_games' in [season] (did you mean 'placement_games'?)" in error_of(
        "[season]\nplacemnt_games = 3\n", registry
    )
    assert "key 'tau' in [season] must be a number" in error_of('[season]\ntau = "lots"\n', registry)
    assert "final_at = 'soon' is not a time" in error_of('[season]\nfinal_at = "soon"\n', registry)
    assert "s.toml:7: [season]: seats must be counts from 2 to 4" in error_of(
        "[season]\nseats = [2, 5]\n", registry
    )
    assert "checkpoint_every must be at least 1, got 0" in error_of(
        "[season]\ncheckpoint_every = 0\n", registry
    )
    assert "suspend_errors cannot exceed suspend_window" in error_of(
        "[season]\nsuspend_errors = 5\nsuspend_window = 2\n", registry
    )
    round_robin = SEASON.replace('format = "season"', 'format = "round-robin"')
    assert "table [season] is only used with format = 'season'" in error_of(
        "[season]\nseats = [2]\n", registry, round_robin
    )


def stored(index: int, group: tuple[str, ...], ranks: dict[str, int], faults: dict[str, str] | None = None):
    """A done season match of ``group`` (the leader first), seats as ``season_match`` rotates them."""
    faults = faults or {}
    shift = index % len(group)
    seated = (*group[shift:], *group[:shift])
    spec = MatchSpec(game="goofspiel", agents=("random",) * len(group), seed=index)
    seats = tuple(
        StoredSeat(seat, name, "random", 0, ranks[name], faults.get(name)) for seat, name in enumerate(seated)
    )
    key = f"{'|'.join(group)}#{index}"
    return StoredMatch(index + 1, 1, index, key, index, "done", 1, 1.0, spec, seated, seats)


class Service:
    """The service's part, without the engine: a log kept as the service keeps it, results
    decided by a fixed strength order (and ``crasher`` always crashing)."""

    def __init__(self, seed: int = 3, placement: int = 3, crasher: str | None = None) -> None:
        from arena.tournament.plan.matchmaking import MatchmakingPolicy
        from arena.tournament.plan.season import policy_data

        policy = MatchmakingPolicy(seats=(2, 3), placement_games=placement, final_top=3, nearest=4)
        self.events = [SeasonEvent(1, 0, "start", {"policy": policy_data(policy), "seed": seed})]
        self.book = SeasonBook.start(self.events[0].data)
        self.matches: dict[int, StoredMatch] = {}
        self.crasher = crasher

    def log(self, kind: str, data: dict) -> None:
        event = SeasonEvent(len(self.events) + 1, self.book.scheduled, kind, data)
        self.events.append(event)
        self.book.apply(event, self.matches.get)

    def play(self, games: int, strength: list[str]) -> None:
        pending = []
        for _ in range(games):
            group = self.book.next_group()
            assert group is not None
            pending.append((self.book.scheduled - 1, group))
            if len(pending) == 2:  # two in flight: results come back out of schedule order
                self.finish(*pending.pop(1))
        for index, group in pending:
            self.finish(index, group)

    def finish(self, index: int, group: tuple[str, ...]) -> None:
        order = sorted(group, key=strength.index) if (strength := self.strength) else list(group)
        faults = {self.crasher: "crash"} if self.crasher in group else {}
        self.matches[index] = stored(index, group, {name: order.index(name) + 1 for name in group}, faults)
        self.log("record", {"idx": index})

    strength: list[str] = []


def test_a_replayed_log_gives_the_services_state_bit_for_bit():
    service = Service(crasher="crashy")
    service.strength = ["d", "a", "b", "c", "d2", "crashy"]
    for name in ("a", "b", "c", "crashy"):
        service.log("join", {"name": name, "inherits": None})
    service.play(20, service.strength)
    service.log("join", {"name": "d", "inherits": None})
    service.play(10, service.strength)
    service.log("join", {"name": "d2", "inherits": "d"})  # a new version, from its predecessor's mean
    assert service.book.maker.rating("d2").mu == service.book.maker.rating("d").mu
    assert service.book.maker.rating("d2").sigma > service.book.maker.rating("d").sigma
    service.log("withdraw", {"name": "d"})
    service.play(15, service.strength)
    assert "crashy" in service.book.maker.suspended  # it crashed every game it played
    top = service.book.maker.table()[:3]
    service.log("final", {"top": top})
    service.play(10, service.strength)
    service.book.next_group()  # scheduled, never stored (killed at once): a replay draws it again
    again = replay(service.events, service.matches.values())
    service.book.maker.tick -= 1  # what the service would have after the kill ...
    lost = replay(service.events, service.matches.values())
    assert again.fingerprint() == lost.fingerprint()
    assert again.scheduled == len(service.matches) and again.final and again.withdrawn == {"d"}
    assert again.suspensions == service.book.suspensions and again.voided == service.book.voided > 0
    fresh = Service(crasher="crashy")  # ... and the same matches and log, applied live, agree with it
    fresh.strength = service.strength
    fresh.matches = service.matches
    for event in service.events[1:]:
        while fresh.book.scheduled < event.at:
            fresh.book.next_group()
        fresh.book.apply(event, service.matches.get)
    while fresh.book.scheduled < len(service.matches):
        fresh.book.next_group()
    assert fresh.book.fingerprint() == again.fingerprint()


def test_a_replay_from_a_checkpoint_is_the_replay_from_the_start():
    service = Service(crasher="crashy")
    service.strength = ["a", "b", "c", "crashy"]
    for name in service.strength:
        service.log("join", {"name": name, "inherits": None})
    service.play(12, service.strength)
    drawn = service.book.next_group()  # in flight at the checkpoint: its record comes after
    assert drawn is not None
    service.log("withdraw", {"name": "c"})
    whole = list(service.events)
    service.events.append(SeasonEvent(len(service.events) + 1, service.book.scheduled, "checkpoint", {}))
    service.events[-1] = replace(service.events[-1], data=json.loads(json.dumps(service.book.checkpoint())))
    index = service.book.scheduled - 1
    service.finish(index, drawn)
    service.log("final", {"top": ["a", "b"]})
    service.play(6, service.strength)
    checkpointed = replay(service.events, service.matches.values())
    from_start = replay(whole + service.events[len(whole) + 1 :], service.matches.values())
    assert checkpointed.fingerprint() == from_start.fingerprint() == service.book.fingerprint()
    assert checkpointed.suspensions == from_start.suspensions and checkpointed.final
    stale = {**service.matches}
    stale[13] = replace(stale[13], key="b|a#13")  # after the checkpoint: still checked
    with pytest.raises(ReplayError, match="match 13 does not replay"):
        replay(service.events, stale.values())


def test_a_group_with_no_match_leaves_the_draw_as_it_was():
    service = Service()
    service.log("join", {"name": "a", "inherits": None})
    before = service.book.fingerprint()
    assert service.book.next_group() is None  # one bot: nobody to play
    assert service.book.fingerprint() == before


def test_a_log_that_does_not_replay_is_refused_and_an_unlogged_result_is_found():
    service = Service()
    service.strength = ["a", "b", "c"]
    for name in ("a", "b", "c"):
        service.log("join", {"name": name, "inherits": None})
    service.play(6, service.strength)
    forged = dict(service.matches)
    forged[2] = replace(forged[2], key="c|b|a#2")
    with pytest.raises(ReplayError, match="does not replay"):
        replay(service.events, forged.values())
    with pytest.raises(ReplayError, match="begin with its start"):
        replay(service.events[1:], service.matches.values())
    unlogged = [event for event in service.events if event.data.get("idx") != 5]
    book = replay(unlogged, service.matches.values())
    assert [match.idx for match in unrecorded(book, service.matches.values())] == [5]


def test_season_matches_rotate_their_seats_and_name_their_group():
    ladder = parse_ladder(SEASON.format(extra=""), discover())
    roster = {name: RosterEntry(name, name, "random", {"seed": k}) for k, name in enumerate("xyz")}
    first = season_match(ladder, roster, ("x", "y", "z"), 3, 9)
    second = season_match(ladder, roster, ("x", "y", "z"), 4, 9)
    assert first.entrants == ("x", "y", "z") and second.entrants == ("y", "z", "x")
    assert group_of(second.key) == ("x", "y", "z") and second.spec.agent_options[0] == {"seed": 1}
    assert first.spec.seed != second.spec.seed  # a deal of its own


def test_the_published_table_leaves_voided_games_out_and_marks_the_final_order():
    matches = [
        stored(0, ("a", "b"), {"a": 1, "b": 2}),
        stored(1, ("a", "b"), {"a": 1, "b": 2}),
        stored(2, ("b", "c"), {"b": 1, "c": 2}),
        stored(3, ("c", "x"), {"c": 1, "x": 2}, {"x": "crash"}),
        stored(4, ("c", "x"), {"c": 1, "x": 2}, {"x": "timeout"}),
    ]
    state = {
        "playing": ["a", "b", "c", "x"],
        "placing": ["c"],
        "suspended": {"x": "2 errors in its last 2 games"},
        "final_top": ["a", "b", "c"],
    }
    rows = {row.agent: row for row in season_table(matches, state)}
    assert [row.agent for row in season_table(matches, state)][:3] == ["a", "b", "c"]
    assert rows["c"].games == 1 and rows["c"].status == "placement"  # its wins over x were voided
    assert rows["x"].elo is None and rows["x"].voided == 2 and rows["x"].why == "2 errors in its last 2 games"
    # each of the top K but the last says whether it is ahead of the next at the confidence
    assert isinstance(rows["a"].separated, bool) and isinstance(rows["b"].separated, bool)
    assert rows["c"].separated is None and rows["x"].separated is None
    withdrawn = season_table(matches, {**state, "playing": ["a", "b", "c"]})
    assert {row.agent: row.status for row in withdrawn}["x"] == "suspended"
    assert {row.agent: row.status for row in season_table(matches, {"playing": ["a"]})}["b"] == "withdrawn"

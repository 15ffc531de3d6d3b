"""A season's book: the matchmaker fed its log, and the log replayed after a restart.

A season (arena/tournament/run/season.py) keeps a log in the store (``SeasonEvent``): who joined
(and whose rating a new version inherits), who withdrew, which match's result was recorded, when
the final phase began. Each entry carries ``at``, the number of matches scheduled before it;
every scheduled match is a stored match. Replaying the log through a fresh ``Matchmaker`` with
the same seed, asking it for the next group wherever a stored match was scheduled, gives the
state the service had, bit for bit: so a season killed at any moment resumes as if it had never
stopped. A group that does not replay as stored means the policy changed under a season.
Every so often the log also takes a ``checkpoint`` of the whole state, and a replay starts from
the last one (a long season restarts in seconds, not in the time its every game takes to rate).

Pure: no store, no engine, no clock.
"""

from __future__ import annotations

import base64
import hashlib
import io
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from arena.tournament.plan.growth import RosterEntry
from arena.tournament.plan.ladder import Ladder
from arena.tournament.plan.matchmaking import Matchmaker, MatchmakingPolicy, Recorded
from arena.tournament.plan.schedule import ScheduledMatch, match_seed
from arena.tournament.stats.ratings import SeatLine
from arena.tournament.store.api import SeasonEvent, StoredMatch

# the matchmaker's arrays, as a checkpoint packs them
ARRAYS = ("mu", "sigma", "games", "scheduled", "last", "active", "meetings", "recent_seats", "final_games")


class ReplayError(ValueError):
    """A stored season that does not replay: its log and its matches disagree."""


def policy_data(policy: MatchmakingPolicy) -> dict[str, Any]:
    """The policy as JSON-able data (the season's first log entry keeps it)."""
    data = asdict(policy)
    data["seats"] = list(policy.seats)
    return data


def policy_of(data: Mapping[str, Any]) -> MatchmakingPolicy:
    """The inverse of ``policy_data``."""
    return MatchmakingPolicy(**{**data, "seats": tuple(data["seats"])})


def group_of(key: str) -> tuple[str, ...]:
    """The group of a season match in the matchmaker's order (the leader first), from its key
    ``leader|other#index``."""
    return tuple(key.rpartition("#")[0].split("|"))


def seat_lines(match: StoredMatch) -> list[SeatLine]:
    """A done match's seats as the ratings read them."""
    return [SeatLine(seat.agent, seat.score, seat.rank, seat.fault) for seat in match.seats]


@dataclass
class SeasonBook:
    """A season's matchmaker and what the log adds to it: who withdrew, what was recorded."""

    maker: Matchmaker
    withdrawn: set[str] = field(default_factory=set)
    # schedule indexes drawn and not yet recorded (in flight, aborted, or killed before logged)
    open: set[int] = field(default_factory=set)
    voided: int = 0
    ended: str | None = None  # why the season ended (the final phase settled), once it did
    suspensions: list[tuple[str, str]] = field(default_factory=list)  # (bot, why), in order

    @classmethod
    def start(cls, data: Mapping[str, Any]) -> SeasonBook:
        """A fresh book from the log's ``start`` entry (the policy and the seed)."""
        return cls(Matchmaker(policy_of(data["policy"]), int(data["seed"])))

    @property
    def scheduled(self) -> int:
        """Matches scheduled so far (the matchmaker's clock)."""
        return self.maker.tick

    @property
    def final(self) -> bool:
        """Whether the final phase has begun."""
        return self.maker.final_top is not None

    def active(self) -> list[str]:
        """The bots in the draws: joined, not withdrawn, not suspended."""
        return [name for name in self.maker.names if self.maker.active[self.maker.index[name]]]

    def playing(self) -> list[str]:
        """The bots joined and not withdrawn (a suspended one included)."""
        return [name for name in self.maker.names if name not in self.withdrawn]

    def placing(self) -> list[str]:
        """The active bots still playing their placement games."""
        return [name for name in self.active() if self.maker.in_placement(name)]

    def next_group(self) -> tuple[str, ...] | None:
        """The matchmaker's next group, or None. A None leaves the generator as it was: no
        match is stored for it, so a replay never asks for it, and must draw the same next."""
        if self.ended is not None:
            return None
        state = self.maker.rng.bit_generator.state
        group = self.maker.next_group()
        if group is None:
            self.maker.rng.bit_generator.state = state
        else:
            self.open.add(self.maker.tick - 1)
        return group

    def apply(self, event: SeasonEvent, match: Callable[[int], StoredMatch | None]) -> Recorded | None:
        """Apply one log entry (``match``: a stored match by its schedule index)."""
        data, maker = event.data, self.maker
        if event.kind == "join":
            name = data["name"]
            if name in maker.index:  # entered again after a withdrawal
                self.withdrawn.discard(name)
                maker.active[maker.index[name]] = name not in maker.suspended
                return None
            maker.join(name)
            before = data.get("inherits")
            if before in maker.index:  # a new version: its predecessor's mean, a fresh sigma (Halite's rule)
                maker.mu[maker.index[name]] = maker.mu[maker.index[before]]
        elif event.kind == "withdraw":
            self.withdrawn.add(data["name"])
            maker.withdraw(data["name"])
        elif event.kind == "record":
            found = match(data["idx"])
            if found is None or found.status != "done":
                raise ReplayError(f"the log records match {data['idx']}, which is not done")
            return self.record(found)
        elif event.kind == "final":
            maker.start_final(data["top"])
        elif event.kind == "end":
            self.ended = data["why"]
        return None

    def checkpoint(self) -> dict[str, Any]:
        """The whole state as JSON-able data (the log's ``checkpoint`` entry): a replay starts from
        the last one instead of the season's first game."""
        maker = self.maker
        packed = io.BytesIO()
        np.savez_compressed(packed, *(getattr(maker, name) for name in ARRAYS))
        return {
            "arrays": base64.b64encode(packed.getvalue()).decode(),
            "names": list(maker.names),
            "recent": [list(seat) for seat in maker.recent],
            "errors": [[bool(error) for error in errors] for errors in maker.errors],
            "suspended": dict(maker.suspended),
            "tick": int(maker.tick),
            "final_top": maker.final_top,
            "final_played": int(maker.final_played),
            "rng": maker.rng.bit_generator.state,
            "withdrawn": sorted(self.withdrawn),
            "open": sorted(self.open),
            "voided": self.voided,
            "ended": self.ended,
            "suspensions": [list(pair) for pair in self.suspensions],
        }

    @classmethod
    def restore(cls, start: Mapping[str, Any], data: Mapping[str, Any]) -> SeasonBook:
        """The book a ``checkpoint`` entry holds (``start``: the log's first entry)."""
        book = cls.start(start)
        maker = book.maker
        with np.load(io.BytesIO(base64.b64decode(data["arrays"]))) as arrays:
            for k, name in enumerate(ARRAYS):
                setattr(maker, name, arrays[f"arr_{k}"])
        maker.names = list(data["names"])
        maker.index = {name: i for i, name in enumerate(maker.names)}
        maker.recent = deque((int(tick), int(bot)) for tick, bot in data["recent"])
        maker.errors = [deque(errors, maxlen=maker.policy.suspend_window) for errors in data["errors"]]
        maker.suspended = dict(data["suspended"])
        maker.tick = int(data["tick"])
        maker.final_top = data["final_top"]
        maker.final_played = int(data["final_played"])
        maker.env = maker.open_env if maker.final_top is None else maker.final_env
        maker.rng.bit_generator.state = data["rng"]
        book.withdrawn = set(data["withdrawn"])
        book.open = set(data["open"])
        book.voided = int(data["voided"])
        book.ended = data["ended"]
        book.suspensions = [(name, why) for name, why in data["suspensions"]]
        return book

    def record(self, match: StoredMatch) -> Recorded:
        """Rate a done match (its seats found by name in the matchmaker's group order)."""
        group = group_of(match.key)
        by_name = {seat.agent: seat for seat in match.seats}
        places = [by_name[name].rank for name in group]
        errors = [by_name[name].fault is not None for name in group]
        result = self.maker.record(group, places, errors)
        self.open.discard(match.idx)
        self.voided += result.voided
        self.suspensions.extend(result.suspended.items())
        return result

    def fingerprint(self) -> str:
        """A digest of the whole matchmaking state: equal states, equal digests."""
        maker = self.maker
        digest = hashlib.sha256()
        for array in (maker.mu, maker.sigma, maker.games, maker.scheduled, maker.last, maker.active):
            digest.update(np.ascontiguousarray(array).tobytes())
        digest.update(np.ascontiguousarray(maker.meetings).tobytes())
        digest.update(np.ascontiguousarray(maker.final_games).tobytes())
        text = repr(
            (
                maker.names,
                maker.tick,
                sorted(maker.suspended.items()),
                maker.final_top,
                maker.final_played,
                list(maker.recent),
                [list(errors) for errors in maker.errors],
                maker.rng.bit_generator.state,
                sorted(self.withdrawn),
                sorted(self.open),
                self.ended,
            )
        )
        digest.update(text.encode())
        return digest.hexdigest()


def replay(events: Sequence[SeasonEvent], matches: Iterable[StoredMatch]) -> SeasonBook:
    """The book the log and the stored matches give (see the module's docstring). ReplayError
    when a stored match is not the group the matchmaker draws at its place."""
    if not events or events[0].kind != "start":
        raise ReplayError("the season's log does not begin with its start")
    by_index = {match.idx: match for match in matches}
    last = max((k for k, event in enumerate(events) if event.kind == "checkpoint"), default=0)
    if last:
        book = SeasonBook.restore(events[0].data, events[last].data)
    else:
        book = SeasonBook.start(events[0].data)

    def schedule_until(count: int) -> None:
        while book.scheduled < count:
            stored = by_index.get(book.scheduled)
            group = book.next_group()
            if stored is None or group != group_of(stored.key):
                raise ReplayError(
                    f"match {book.scheduled - 1 if group else book.scheduled} does not replay: stored "
                    f"{group_of(stored.key) if stored else None}, drawn {group} (was the matchmaking changed?)"
                )

    for event in events[last + 1 :]:
        schedule_until(event.at)
        book.apply(event, by_index.get)
    schedule_until(len(by_index))
    return book


def unrecorded(book: SeasonBook, matches: Iterable[StoredMatch]) -> list[StoredMatch]:
    """Done matches the log has not recorded yet (the service was killed between storing one and
    logging it), in schedule order: the service records them now."""
    return sorted(
        (match for match in matches if match.status == "done" and match.idx in book.open),
        key=lambda match: match.idx,
    )


def season_match(
    ladder: Ladder, roster: Mapping[str, RosterEntry], group: Sequence[str], index: int, base_seed: int
) -> ScheduledMatch:
    """The stored form of match ``index`` of group ``group``: seats rotated by the index (each
    bot sits in each seat as often, over the season), a deal of its own."""
    shift = index % len(group)
    seated = [roster[name] for name in (*group[shift:], *group[:shift])]
    spec = ladder.match_spec(
        [entry.agent for entry in seated],
        match_seed(base_seed, group, index),
        agent_options=tuple(dict(entry.options) for entry in seated),
        display_names=tuple(entry.name for entry in seated),
    )
    return ScheduledMatch(index, f"{'|'.join(group)}#{index}", tuple(entry.name for entry in seated), spec)

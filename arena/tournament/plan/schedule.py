"""Tournament formats: pure functions from a Ladder to the ordered list of matches to play.

Every format uses "duplicate" seating: each group of agents plays each of its seeds once in
every cyclic seat rotation, so every agent of the group sits in every seat with the same deal,
and the luck of the seed and the advantage of a seat cancel out across the rotations.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from arena.match.spec import MatchSpec, table_seats
from arena.tournament.formats import FORMATS
from arena.tournament.plan.ladder import Ladder


class _HasSpec(Protocol):
    @property
    def spec(self) -> MatchSpec: ...


M = TypeVar("M", bound=_HasSpec)  # a scheduled or stored match
T = TypeVar("T")


@dataclass(frozen=True)
class ScheduledMatch:
    """One match of a ladder: its place in schedule order, its spec, and who sits where.

    ``entrants`` holds the display names of the agent seats in seat order; the automaton, if
    any, takes the seat after them under its own name.
    """

    index: int
    key: str  # stable human-readable id, e.g. "alice|bob#1/r0"
    entrants: tuple[str, ...]
    spec: MatchSpec

    @property
    def seat_names(self) -> tuple[str, ...]:
        """Display names of every seat, the automaton's included."""
        return table_seats(self.entrants, self.spec.automaton)


def match_seed(base_seed: int, group: Sequence[str], repeat: int) -> int:
    """The seed of repeat ``repeat`` of ``group``: stable, and independent of other groups."""
    text = f"{base_seed}:{'|'.join(sorted(group))}:{repeat}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big") >> 1  # 31 bits


def rotations(group: Sequence[T]) -> Iterator[tuple[T, ...]]:
    """The cyclic seat rotations of ``group``: each member sits once in each seat."""
    for shift in range(len(group)):
        yield tuple(group[shift:]) + tuple(group[:shift])


def make_schedule(ladder: Ladder, base_seed: int | None = None) -> list[ScheduledMatch]:
    """The ladder's matches in schedule order (see ``iter_schedule``)."""
    return list(iter_schedule(ladder, base_seed))


def iter_schedule(ladder: Ladder, base_seed: int | None = None) -> Iterator[ScheduledMatch]:
    """The ladder's matches in schedule order: deal by deal, group by group, rotation by rotation.

    Deal-major order plays every group early, so a leaderboard read mid-run covers every pairing
    and no pairing's results all come last in the (sequential) rating updates. The deals derive
    from ``base_seed``, by default the ladder's ``seed`` (a secret one is drawn by the store).
    Made one match at a time: a big schedule is never held whole in memory.
    """
    base = ladder.seed if base_seed is None else base_seed
    index = 0
    fmt = FORMATS[ladder.format]
    groups = fmt.meeting_groups(ladder.entrants, ladder.players, ladder.challenger)
    for repeat in range(ladder.matches_per_pairing):
        for group in groups:
            names = [entrant.name for entrant in group]
            # Shared deals (solo): every group faces the same deals, so their scores compare directly.
            seed = match_seed(base, [] if fmt.shared_deals else names, repeat)
            for shift, seated in enumerate(rotations(group)):
                spec = MatchSpec(
                    game=ladder.game,
                    agents=tuple(entrant.agent for entrant in seated),
                    seed=seed,
                    options=dict(ladder.options),
                    automaton=ladder.automaton,
                    agent_options=tuple(dict(entrant.options) for entrant in seated),
                    display_names=tuple(entrant.name for entrant in seated),
                    move_ms=ladder.move_ms,
                    bank_ms=ladder.bank_ms,
                    handshake_ms=ladder.handshake_ms,
                    memory_mb=ladder.memory_mb,
                    cpu_seconds=ladder.cpu_seconds,
                    cpus=ladder.cpus,
                    ponder=ladder.ponder,
                    sandbox=ladder.sandbox,
                )
                key = f"{'|'.join(names)}#{repeat}/r{shift}"
                entrants = tuple(entrant.name for entrant in seated)
                yield ScheduledMatch(index, key, entrants, spec)
                index += 1


def deal_key(spec: MatchSpec) -> tuple[str, int]:
    """The deal a match plays: its game and seed. Every rotation of a deal (and, with shared deals,
    every group) has the same key."""
    return (spec.game, spec.seed)


def take_next(queue: list[M], playing: Collection[tuple[str, int]]) -> M | None:
    """Remove and return the next match of ``queue`` (handed out from its end) whose deal is not in
    ``playing``, or None when every one waits for a deal being played.

    Two matches of one deal never run at the same time, with any number of workers, local or on a
    cluster: the rotations of a deal show each seat's cards to another agent, and two agents
    running at once may find a way to talk (docs/security.md). Other deals fill the free workers.
    """
    for index in range(len(queue) - 1, -1, -1):
        if deal_key(queue[index].spec) not in playing:
            return queue.pop(index)
    return None

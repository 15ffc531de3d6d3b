"""The tournament formats, in one table: the ladder validator and the scheduler both read it.

A format says how a ladder's entrants are grouped into matches (each group then plays every seat
rotation, ``matches_per_pairing`` times), which ladder keys it needs or alone accepts, and
whether every group plays the same deals. Adding a format is one entry here plus its tests.
"compare" is the format of the runs `arena compare` stores; its matches come from
arena/tournament/plan/compare.py, not from a ladder file.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any, TypeVar

E = TypeVar("E")  # an entrant (arena.tournament.plan.ladder.Entrant): anything with a ``name``


def _every_combination(entrants: Sequence[E], players: int, challenger: str | None) -> list[tuple[E, ...]]:
    """Every combination of ``players`` entrants."""
    return list(combinations(entrants, players))


def _challenger_against_the_field(
    entrants: Sequence[Any], players: int, challenger: str | None
) -> list[tuple[Any, ...]]:
    """The challenger with every combination of ``players - 1`` entrants of the field."""
    head = next(entrant for entrant in entrants if entrant.name == challenger)
    field = [entrant for entrant in entrants if entrant.name != head.name]
    return [(head, *others) for others in combinations(field, players - 1)]


@dataclass(frozen=True)
class TournamentFormat:
    """One tournament format (see the module's docstring)."""

    name: str
    # The groups of entrants that meet, in schedule order (None: the format schedules itself).
    groups: Callable[[Sequence[Any], int, str | None], list[tuple[Any, ...]]] | None
    # How many groups ``groups`` makes of ``agents`` entrants with ``players`` seats (no list built).
    group_count: Callable[[int, int], int] | None
    default_players: int = 2
    min_players: int = 2  # agent seats a match needs at least (an automaton's seat makes 1 enough)
    keys: tuple[str, ...] = ()  # ladder keys that only this format accepts
    required: tuple[str, ...] = ()  # of those, the ones it cannot do without
    shared_deals: bool = False  # every group plays the same deals, so scores compare across groups
    in_ladder_files: bool = True  # may be named by ``format =`` in a ladder file
    adaptive: bool = False  # plays rounds it picks from the results so far (arena/tournament/plan/swiss.py)
    service: bool = False  # runs until stopped, as `arena season start` (arena/tournament/run/season.py)

    def meeting_groups(
        self, entrants: Sequence[Any], players: int, challenger: str | None
    ) -> list[tuple[Any, ...]]:
        """``groups(...)``; ValueError for a format that schedules itself (``compare``)."""
        if self.groups is None:
            raise ValueError(f"the {self.name} format schedules its own matches")
        return self.groups(entrants, players, challenger)

    def count_groups(self, agents: int, players: int) -> int:
        """``group_count(...)``; ValueError for a format that schedules itself (``compare``)."""
        if self.group_count is None:
            raise ValueError(f"the {self.name} format schedules its own matches")
        return self.group_count(agents, players)

    @property
    def automaton(self) -> bool:
        """Whether the game's automaton takes a seat in every match."""
        return "automaton" in self.keys


FORMATS: dict[str, TournamentFormat] = {
    f.name: f
    for f in (
        TournamentFormat(
            "round-robin", _every_combination, lambda agents, players: math.comb(agents, players)
        ),
        TournamentFormat(
            "gauntlet",
            _challenger_against_the_field,
            lambda agents, players: math.comb(agents - 1, players - 1),
            keys=("challenger",),
            required=("challenger",),
        ),
        # Every combination of ``players`` agents (usually one), each joined by the automaton;
        # all face the same deals, so their scores compare directly.
        TournamentFormat(
            "solo",
            _every_combination,
            lambda agents, players: math.comb(agents, players),
            default_players=1,
            min_players=1,
            keys=("automaton",),
            shared_deals=True,
        ),
        # Rounds of the most informative groups, picked from the ratings so far, until every
        # rating's interval is narrower than target_interval (or max_matches are played).
        TournamentFormat(
            "swiss",
            _every_combination,
            lambda agents, players: math.comb(agents, players),
            keys=("target_interval", "max_matches"),
            adaptive=True,
        ),
        # A competition that runs until stopped: matches drawn one at a time by the season's
        # matchmaking (arena/tournament/plan/matchmaking.py), its knobs in the [season] table.
        TournamentFormat(
            "season",
            _every_combination,
            lambda agents, players: math.comb(agents, players),
            keys=("season",),
            adaptive=True,
            service=True,
        ),
        TournamentFormat("compare", None, None, shared_deals=True, in_ladder_files=False),
    )
}
# The formats a ladder file may name, in the order error messages list them.
LADDER_FORMATS = tuple(name for name, f in FORMATS.items() if f.in_ladder_files)


def owner(key: str) -> str:
    """The ladder format that alone accepts ``key`` (e.g. "challenger": "gauntlet")."""
    return next(name for name, f in FORMATS.items() if key in f.keys)

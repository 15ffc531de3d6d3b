"""A living ladder: what an edited ladder file adds to, or retires from, its stored run.

A stored run keeps two things apart (docs/ladders.md, *Growing a ladder*):

- its **comparability key**: game, options, players, format, clocks, limits, sandbox and seed.
  Results played under one key cannot be mixed with results under another, so a change of it is
  refused with a line that names the change and how to start a new ladder;
- its **roster**: every entrant it ever had, active or retired, with the plugin (or executable),
  options and plugin version each played with. Entrants and ``matches_per_pairing`` may change:
  a new agent, a new version of one or more repeats schedule only the matches not yet stored;
  an agent no longer in the file is retired (its played matches stay, and still count in the
  ratings of those it played: they were played).

A plugin agent whose ``version`` changed is a new entrant ``name@version``; the old version is
retired under its own name and keeps its history. An entrant's plugin or options may not change
under the same name: its old matches would no longer say what played them.

This module plans; arena/tournament/plan/runs.py hands what it decides to the store, which only writes it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from arena.tournament.formats import FORMATS
from arena.tournament.plan.ladder import Entrant, Ladder
from arena.tournament.plan.schedule import ScheduledMatch, iter_schedule, rotations

# The ladder's fields that make two sets of results comparable (see the module's docstring).
COMPARABLE_FIELDS = (
    "game",
    "players",
    "format",
    "options",
    "challenger",
    "automaton",
    "move_ms",
    "bank_ms",
    "handshake_ms",
    "memory_mb",
    "cpu_seconds",
    "sandbox",
    "seed",
    "secret_seed",
)
# How a field is called in the ladder file, for the refusal line.
FILE_KEYS = {
    "move_ms": "clock.move_ms",
    "bank_ms": "clock.bank_ms",
    "handshake_ms": "clock.handshake_ms",
    "memory_mb": "limits.memory_mb",
    "cpu_seconds": "limits.cpu_seconds",
    "secret_seed": 'seed = "secret"',
}


class GrowthError(ValueError):
    """An edit of a ladder file that would make its old matches incomparable with new ones."""


@dataclass(frozen=True)
class RosterEntry:
    """One entrant a ladder ever had. ``name`` is its display name in the tables: the file's
    name (``base``), or ``base@version`` for a later version of a plugin agent."""

    name: str
    base: str
    agent: str
    options: dict[str, Any] = field(default_factory=dict)
    version: str | None = None  # the plugin's version (None: an executable, or an older database)
    active: bool = True
    inherits: str | None = None  # a submitted bot's new version: the entrant whose rating mean it starts from

    def same_player(self, entrant: Entrant) -> bool:
        """Whether ``entrant`` is played by the same plugin (or executable) with the same options."""
        return self.agent == entrant.agent and self.options == entrant.options


@dataclass(frozen=True)
class Growth:
    """What an edited ladder file changes in its stored run."""

    roster: tuple[RosterEntry, ...]
    ladder: Ladder  # the ladder as played: active entrants under their display names
    added: tuple[str, ...] = ()  # display names entered now (new agents and new versions)
    retired: tuple[str, ...] = ()  # display names retired now
    matches: tuple[ScheduledMatch, ...] = ()  # new matches, indexed after the stored ones

    @property
    def changed(self) -> bool:
        """Whether the roster changed or matches were added (the stored config must be rewritten)."""
        return bool(self.added or self.retired or self.matches)

    def describe(self) -> str:
        """One line for the user, e.g. "1 agent added (c), 8 new matches"."""
        parts = []
        if self.added:
            parts.append(f"{len(self.added)} entrant(s) added ({', '.join(self.added)})")
        if self.retired:
            parts.append(f"{len(self.retired)} retired ({', '.join(self.retired)})")
        parts.append(f"{len(self.matches)} new match(es)")
        return ", ".join(parts)


def growable(ladder: Ladder) -> bool:
    """Whether a stored run of ``ladder``'s format can grow (a compare run grows on its own)."""
    return FORMATS[ladder.format].groups is not None


def comparable_key(config: Mapping[str, Any]) -> dict[str, Any]:
    """The comparability key of a ladder given as a dict (``asdict(ladder)`` or a stored config)."""
    return {name: config.get(name) for name in COMPARABLE_FIELDS}


def stored_roster(config: Mapping[str, Any]) -> list[RosterEntry]:
    """The roster kept in a stored config; an older run without one: its entrants, all active."""
    if "roster" in config:
        return [RosterEntry(**entry) for entry in config["roster"]]
    return [
        RosterEntry(entry["name"], entry["name"], entry["agent"], dict(entry.get("options", {})))
        for entry in config["entrants"]
    ]


def config_json(ladder: Ladder, roster: Iterable[RosterEntry]) -> str:
    """The stored config of a run: the validated ladder file, plus the roster."""
    data = asdict(ladder)
    data["roster"] = [asdict(entry) for entry in roster]
    return json.dumps(data, sort_keys=True)


def first_roster(ladder: Ladder) -> tuple[RosterEntry, ...]:
    """The roster of a ladder's first run: every entrant under its own name."""
    return tuple(RosterEntry(e.name, e.name, e.agent, dict(e.options), e.version) for e in ladder.entrants)


def played_ladder(ladder: Ladder, roster: Sequence[RosterEntry]) -> Ladder:
    """``ladder`` with its entrants under their display names, in file order (the schedule's input)."""
    active = {entry.base: entry for entry in roster if entry.active}
    entrants = tuple(
        Entrant(active[e.name].name, e.agent, dict(e.options), e.version) for e in ladder.entrants
    )
    challenger = active[ladder.challenger].name if ladder.challenger else None
    return replace(ladder, entrants=entrants, challenger=challenger)


def _show(value: Any) -> str:
    return json.dumps(value, sort_keys=True) if isinstance(value, dict) else repr(value)


def check_comparable(stored: Mapping[str, Any], ladder: Ladder) -> None:
    """Raise GrowthError naming the first field whose change makes old matches incomparable."""
    before, now = comparable_key(stored), comparable_key(asdict(ladder))
    for name in COMPARABLE_FIELDS:
        if before[name] != now[name]:
            key = FILE_KEYS.get(name, name)
            raise GrowthError(
                f"{key} was {_show(before[name])} and is now {_show(now[name])}: the matches played would "
                "not compare with new ones"
            )
    if ladder.matches_per_pairing < stored["matches_per_pairing"]:
        raise GrowthError(
            f"matches_per_pairing was {stored['matches_per_pairing']} and is now "
            f"{ladder.matches_per_pairing}: it may only be raised (played deals are never taken back)"
        )


def plan_roster(
    roster: Sequence[RosterEntry], ladder: Ladder
) -> tuple[list[RosterEntry], list[str], list[str]]:
    """The roster after ``ladder``'s file is read: (roster, display names added, names retired).

    Raises GrowthError when an entrant's plugin or options changed under the same name.
    """
    entries = list(roster)
    added: list[str] = []
    listed: set[str] = set()  # display names the file keeps active
    for entrant in ladder.entrants:
        same_base = [i for i, entry in enumerate(entries) if entry.base == entrant.name]
        for i in same_base:
            entry = entries[i]
            if entrant.inherits is not None and entry.version != entrant.version:
                continue  # a submitted bot's new version: another package by design, a new entrant
            if not entry.same_player(entrant):
                raise GrowthError(
                    f"agent {entrant.name!r} was {entry.agent!r} with options {_show(entry.options)} and is now "
                    f"{entrant.agent!r} with options {_show(entrant.options)}: its matches played would no longer "
                    "say what played them; enter it under a new name"
                )
        match = next(
            (
                i
                for i in same_base
                if entries[i].version is None
                or entrant.version is None
                or entries[i].version == entrant.version
            ),
            None,
        )
        if match is None and same_base:  # a new version of a known agent: a new entrant
            name = f"{entrant.name}@{entrant.version}"
            if any(entry.name == name for entry in entries):
                raise GrowthError(
                    f"entrant name {name!r} (a new version of {entrant.name!r}) is already taken"
                )
            entries.append(
                RosterEntry(
                    name,
                    entrant.name,
                    entrant.agent,
                    dict(entrant.options),
                    entrant.version,
                    inherits=_predecessor(entries, entrant),
                )
            )
            added.append(name)
        elif match is None:
            if any(entry.name == entrant.name for entry in entries):
                raise GrowthError(
                    f"entrant name {entrant.name!r} is already taken by another version of an agent"
                )
            entries.append(
                replace(
                    first_roster(replace(ladder, entrants=(entrant,)))[0],
                    inherits=_predecessor(entries, entrant),
                )
            )
            added.append(entrant.name)
        else:
            entry = entries[match]
            if not entry.active:
                added.append(entry.name)  # entered again: its old matches are its own
            entries[match] = replace(entry, active=True, version=entry.version or entrant.version)
        listed.add(entries[match if match is not None else -1].name)
    retired = []
    for i, entry in enumerate(entries):
        if entry.active and entry.name not in listed:
            entries[i] = replace(entry, active=False)
            retired.append(entry.name)
    return entries, added, retired


def _predecessor(entries: Sequence[RosterEntry], entrant: Entrant) -> str | None:
    """The display name of the newest entry of ``entrant.inherits`` (a submitted bot's previous
    version), whose rating mean a new version starts from; None when it has none."""
    if entrant.inherits is None:
        return None
    return next((entry.name for entry in reversed(entries) if entry.base == entrant.inherits), None)


def deal_of(key: str) -> tuple[frozenset[str], int]:
    """The group of agents and the deal number (repeat) of a match key like ``a|b#1/r0``."""
    names, _, rest = key.rpartition("#")
    return frozenset(names.split("|")), int(rest.split("/")[0])


def plan_growth(
    stored: Mapping[str, Any],
    ladder: Ladder,
    stored_matches: Iterable[tuple[str, Sequence[str]]],
    base_seed: int,
    next_index: int,
) -> Growth:
    """What ``ladder`` (the file as it is now) adds to a run stored with config ``stored``.

    ``stored_matches`` are the (key, seated entrants) of the run's matches, any status. New
    matches are the schedule's deals (a group and a deal number) the run lacks, and the seat
    rotations missing from a deal it holds in part (its agent retired, then entered again);
    they are numbered from ``next_index``. A deal's seed derives from its group and number only,
    so an old match's deal never moves.
    """
    check_comparable(stored, ladder)
    roster, added, retired = plan_roster(stored_roster(stored), ladder)
    played = played_ladder(ladder, roster)
    if FORMATS[ladder.format].adaptive:  # swiss picks its own pairings as it goes
        return Growth(tuple(roster), played, tuple(added), tuple(retired))
    seatings: dict[tuple[frozenset[str], int], set[tuple[str, ...]]] = {}
    for key, seated in stored_matches:
        seatings.setdefault(deal_of(key), set()).add(tuple(seated))

    def missing(match: ScheduledMatch) -> bool:
        seen = seatings.get(deal_of(match.key))
        if seen is None:
            return True
        family = {tuple(seated) for seated in rotations(next(iter(seen)))}  # the deal's own rotations
        return match.entrants in family - seen

    new = (match for match in iter_schedule(played, base_seed) if missing(match))
    matches = tuple(replace(match, index=next_index + i) for i, match in enumerate(new))
    return Growth(tuple(roster), played, tuple(added), tuple(retired), matches)


def retired_names(config: Mapping[str, Any]) -> set[str]:
    """The display names a stored run has retired (hidden from its table unless --all)."""
    return {entry.name for entry in stored_roster(config) if not entry.active}


def without_retired(
    rows: list[dict[str, Any]], retired: set[str], keep: bool = False
) -> tuple[list[dict[str, Any]], int]:
    """Leaderboard rows without the retired entrants (unless ``keep``: then every row says whether
    it is ``retired``), ranked again; and how many were left out. Their matches still count in the
    others' ratings: they were played."""
    if keep:
        return [dict(row, retired=row["agent"] in retired) for row in rows], 0
    kept = [dict(row) for row in rows if row["agent"] not in retired]
    for place, row in enumerate(kept, start=1):
        row["rank"] = place
    return kept, len(rows) - len(kept)


def mark_uncertain(rows: list[dict[str, Any]], target: float | None) -> list[dict[str, Any]]:
    """Leaderboard rows with ``uncertain`` set (a swiss ladder's ``target_interval`` given): True
    where the MLE interval is missing or wider than the target. Rows are returned unchanged
    when there is no target."""
    if target is None:
        return rows
    marked = []
    for row in rows:
        low, high = row.get("mle_low"), row.get("mle_high")
        marked.append(dict(row, uncertain=low is None or high is None or high - low > target))
    return marked

"""A season ladder's ``[season]`` table: the matchmaking knobs and when the final phase begins.

Every key of ``MatchmakingPolicy`` (arena/tournament/plan/matchmaking.py) may be set, plus
``final_at``, the UTC time the final phase begins by itself, and ``checkpoint_every``, the
results between two checkpoints of the season's state (a restart replays at most these). docs/ladders.md (*Seasons*) lists
them. A misspelt key is refused with the nearest known name.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from typing import Any

from arena.tournament.plan.matchmaking import MatchmakingPolicy

# each knob's TOML types: the policy's integers take integers, its floats any number
KNOB_TYPES: dict[str, tuple[type, ...]] = {
    f.name: (list,) if f.name == "seats" else (int,) if isinstance(f.default, int) else (int, float)
    for f in fields(MatchmakingPolicy)
}
SEASON_KEYS: dict[str, tuple[type, ...]] = {**KNOB_TYPES, "final_at": (str,), "checkpoint_every": (int,)}
CHECKPOINT_EVERY = 1000  # results between two checkpoints of the season's state, by default


class SeasonKeyError(ValueError):
    """A bad ``[season]`` key: ``key`` names it (for the line), the message says what to do."""

    def __init__(self, key: str | None, message: str) -> None:
        super().__init__(message)
        self.key = key


@dataclass(frozen=True)
class SeasonSettings:
    """A season's settings, read from its ``[season]`` table."""

    policy: MatchmakingPolicy
    final_at: datetime | None = None  # the final phase begins at this UTC time (None: by command)
    checkpoint_every: int = CHECKPOINT_EVERY  # a restart replays at most this many results


def nearest(key: str, known: Mapping[str, Any]) -> str:
    """`` (did you mean 'x'?)`` for the known name nearest ``key``, or nothing."""
    found = difflib.get_close_matches(key, list(known), n=1, cutoff=0.6)
    return f" (did you mean {found[0]!r}?)" if found else ""


def parse_time(text: str) -> datetime:
    """A UTC time written as ISO 8601 (``2026-12-24T18:00:00Z``; no zone: UTC); ValueError if not."""
    when = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)


def season_settings(table: Mapping[str, Any], players: int) -> SeasonSettings:
    """The settings of a ``[season]`` table; seats default to the ladder's ``players``.
    SeasonKeyError naming the key for anything wrong."""
    for key, value in table.items():
        if key not in SEASON_KEYS:
            raise SeasonKeyError(
                key,
                f"unknown key {key!r} in [season]{nearest(key, SEASON_KEYS)}; known keys: {', '.join(SEASON_KEYS)}",
            )
        kinds = SEASON_KEYS[key]
        if isinstance(value, bool) or not isinstance(value, kinds):
            kind = {list: "an array of seat counts", str: "a time", int: "an integer"}.get(
                kinds[0], "a number"
            )
            kind = "a number" if float in kinds else kind
            raise SeasonKeyError(key, f"key {key!r} in [season] must be {kind}, got {value!r}")
    knobs = {key: value for key, value in table.items() if key in KNOB_TYPES}
    seats = knobs.get("seats", [players])
    if not all(isinstance(n, int) and not isinstance(n, bool) for n in seats):
        raise SeasonKeyError("seats", f"key 'seats' in [season] must list seat counts, got {seats!r}")
    knobs["seats"] = tuple(sorted(set(seats)))
    try:
        policy = MatchmakingPolicy(**knobs)
    except ValueError as error:
        problem = str(error)
        named = next((name for name in KNOB_TYPES if problem.startswith(name)), None)
        raise SeasonKeyError(named, f"[season]: {problem}") from None
    final_at = None
    if "final_at" in table:
        try:
            final_at = parse_time(table["final_at"])
        except ValueError:
            raise SeasonKeyError(
                "final_at",
                f'final_at = {table["final_at"]!r} is not a time: write it as "2026-12-24T18:00:00Z" (UTC)',
            ) from None
    every = table.get("checkpoint_every", CHECKPOINT_EVERY)
    if every < 1:
        raise SeasonKeyError("checkpoint_every", f"checkpoint_every must be at least 1, got {every}")
    return SeasonSettings(policy, final_at, every)

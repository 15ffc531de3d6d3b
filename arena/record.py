"""Match records: what the referee writes down, and re-running a game from one (``arena replay``).

A record is a plain JSON-able dict (its fields are documented in docs/records.md). It holds every
choice actually applied, whoever made it (agent or the random policy of a forfeited seat), so the
engine alone reproduces the game bit for bit.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from arena.match import MatchSpec
from engine.api import Game, Result, State, competition_ranks

RECORD_FORMAT = "tlachtli-match"
RECORD_VERSION = 1


class ReplayError(ValueError):
    """A record that cannot be replayed, or whose replay does not reproduce its result."""


def final_ranks(engine_ranks: Sequence[int], forfeited: set[int]) -> tuple[int, ...]:
    """Ranks after forfeits: forfeited seats tie for last, the others keep the engine's order."""
    keys = [(0, 0) if seat in forfeited else (1, -rank) for seat, rank in enumerate(engine_ranks)]
    return competition_ranks(keys)


def _jsonable(value: Any) -> Any:
    """``value`` as JSON-able data (tuples become lists, other odd values their repr)."""
    if isinstance(value, Mapping):
        return {str(key): _jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_jsonable(item) for item in value]
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    return repr(value)


def build_record(
    spec: MatchSpec,
    game: Game,
    options: Mapping[str, Any],
    agents: list[dict[str, Any]],
    moves: list[dict[str, Any]],
    faults: list[dict[str, Any]],
    result: Result,
    ranks: Sequence[int],
    *,
    started: float,
    duration_ms: float,
) -> dict[str, Any]:
    """The record of a finished match (see docs/records.md); ``options`` as given to ``Game.setup``."""
    return {
        "format": RECORD_FORMAT,
        "record_version": RECORD_VERSION,
        "game": game.id,
        "game_version": game.version,
        "seed": spec.seed,
        "players": len(spec.agents),
        "automaton": spec.automaton,
        "options": _jsonable(options),
        "clock": {"move_ms": spec.move_ms, "bank_ms": spec.bank_ms, "handshake_ms": spec.handshake_ms},
        "limits": {"memory_mb": spec.memory_mb, "cpu_seconds": spec.cpu_seconds},
        "agents": agents,
        "moves": moves,
        "faults": faults,
        "result": {
            "scores": list(result.scores),
            "ranks": list(ranks),
            "engine_ranks": list(result.ranks),
            "details": _jsonable(result.details),
        },
        "started": datetime.fromtimestamp(started, UTC).isoformat(timespec="seconds"),
        "duration_ms": round(duration_ms, 3),
        "spec": _jsonable(spec.to_dict()),
    }


def load_record(path: str) -> dict[str, Any]:
    """Read a record written by ``arena play --record``; ReplayError if it is not one."""
    try:
        with open(path, encoding="utf-8") as handle:
            record = json.load(handle)
    except OSError as error:
        raise ReplayError(f"cannot read {path}: {error.strerror}") from None
    except json.JSONDecodeError as error:
        raise ReplayError(f"{path} is not JSON: {error}") from None
    if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        raise ReplayError(f'{path} is not a Tlachtli match record (no "format": "{RECORD_FORMAT}")')
    if record.get("record_version") != RECORD_VERSION:
        raise ReplayError(
            f"{path}: record version {record.get('record_version')!r}, this arena reads {RECORD_VERSION}"
        )
    return record


@dataclass(frozen=True)
class ReplayStep:
    """One applied choice during a replay and the position after it."""

    index: int
    seat: int
    choice: int
    label: str
    by: str


def replay(
    record: Mapping[str, Any], game: Game, on_step: Callable[[ReplayStep, State], None] | None = None
) -> State:
    """Re-run the engine from ``record`` and return the final state, calling ``on_step`` after each move.

    The game must end after the last move with the recorded scores and engine ranks; otherwise
    ReplayError (a different engine version, a corrupted record).
    """
    if record["game_version"] != game.version:
        raise ReplayError(
            f"the record was played on {game.id} version {record['game_version']}, installed is {game.version}"
        )
    state = game.setup(record["players"], record["seed"], record["options"])
    for index, move in enumerate(record["moves"]):
        seat, choice = move["seat"], move["choice"]
        if seat not in state.to_act():
            raise ReplayError(f"move {index}: seat {seat} is not to act (to act: {list(state.to_act())})")
        options = state.decision(seat).options
        if not 0 <= choice < len(options):
            raise ReplayError(f"move {index}: choice {choice} out of range for seat {seat}")
        label = str(options[choice].get("label", choice))
        state.apply(seat, choice)
        if on_step is not None:
            on_step(ReplayStep(index, seat, choice, label, move.get("by", "agent")), state)
    if not state.terminal():
        raise ReplayError(f"the game is not over after the {len(record['moves'])} recorded moves")
    result = state.result()
    if (
        list(result.scores) != record["result"]["scores"]
        or list(result.ranks) != record["result"]["engine_ranks"]
    ):
        raise ReplayError(
            f"replay gives scores {list(result.scores)} ranks {list(result.ranks)}, the record says "
            f"scores {record['result']['scores']} ranks {record['result']['engine_ranks']}"
        )
    return state

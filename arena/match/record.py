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

from arena.match.spec import MatchSpec, SeatResult
from arena.text.files import MAX_NESTING, TextFileError, data_problem, read_utf8
from engine.api import BadOptions, Game, Result, State, competition_ranks

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


def record_header(
    spec: MatchSpec, game: Game, options: Mapping[str, Any], agents: list[dict[str, Any]], started: float
) -> dict[str, Any]:
    """Every field of a record known before the first move (a live record starts with it)."""
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
        "agents": _jsonable(agents),  # agent options may hold TOML dates
        "started": datetime.fromtimestamp(started, UTC).isoformat(timespec="seconds"),
        "spec": _jsonable(spec.to_dict()),
    }


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
    header = record_header(spec, game, options, agents, started)
    spec_data, started_text = (
        header.pop("spec"),
        header.pop("started"),
    )  # kept last, as records always had them
    return header | {
        "moves": moves,
        "faults": faults,
        "result": {
            "scores": list(result.scores),
            "ranks": list(ranks),
            "engine_ranks": list(result.ranks),
            "details": _jsonable(result.details),
        },
        "started": started_text,
        "duration_ms": round(duration_ms, 3),
        "spec": spec_data,
    }


def record_seats(spec: MatchSpec, record: Mapping[str, Any]) -> tuple[SeatResult, ...]:
    """Each seat's line of a finished match, from its record: the agents' seats, then the automaton's."""
    automaton = spec.automaton or str(record["options"].get("automaton") or "automaton")
    result = record["result"]
    names = list(spec.agents) + [automaton] * (len(result["scores"]) - len(spec.agents))
    faults = {fault["seat"]: fault["fault"] for fault in record["faults"]}
    return tuple(
        SeatResult(seat, names[seat], score, result["ranks"][seat], faults.get(seat))
        for seat, score in enumerate(result["scores"])
    )


def load_record(path: str) -> dict[str, Any]:
    """Read a record written by ``arena play --record``; ReplayError if it is not one."""
    try:
        record = json.loads(read_utf8(path, "match record"))
    except TextFileError as error:
        raise ReplayError(str(error)) from None
    except json.JSONDecodeError as error:
        raise ReplayError(f"{path} is not JSON: {error}") from None
    except RecursionError:
        raise ReplayError(f"{path} is nested too deeply to be a match record") from None
    problem = data_problem(record, MAX_NESTING + 8, int_range=None)  # agent options sit 3 levels down
    if problem:
        raise ReplayError(f"{path}: {problem}")
    if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        raise ReplayError(f'{path} is not a Tlachtli match record (no "format": "{RECORD_FORMAT}")')
    if record.get("record_version") != RECORD_VERSION:
        raise ReplayError(
            f"{path}: record version {record.get('record_version')!r}, this arena reads {RECORD_VERSION}"
        )
    problem = shape_problem(record)
    if problem:
        raise ReplayError(f"{path}: {problem}")
    return record


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _int_list(value: Any) -> bool:
    return isinstance(value, list) and all(_is_int(item) for item in value)


def shape_problem(record: Mapping[str, Any]) -> str | None:
    """What is malformed in ``record`` (wrong or missing field types), or None; moves count from 1."""
    from arena.wire.protocol import INFO_CUT, INFO_LIMIT  # the wire's codec: only once a record is read

    tops: dict[str, tuple[type, ...]] = {
        "game": (str,), "game_version": (str,), "seed": (int,), "players": (int,),
        "options": (dict,), "agents": (list,), "moves": (list,), "faults": (list,), "result": (dict,),
    }  # fmt: skip
    for name, types in tops.items():
        value = record.get(name)
        if not isinstance(value, types) or isinstance(value, bool):
            return f"field {name!r} must be {types[0].__name__}, got {value!r:.40}"
    for index, move in enumerate(record["moves"], 1):
        if not (isinstance(move, dict) and _is_int(move.get("seat")) and _is_int(move.get("choice"))):
            return f"move {index} must have int 'seat' and 'choice', got {move!r:.60}"
        if move.get("by", "agent") not in ("agent", "random"):
            return f"move {index}: 'by' must be 'agent' or 'random', got {move.get('by')!r:.40}"
        info = move.get("info")
        if info is not None and not isinstance(info, str):
            return f"move {index}: its info must be text, got {info!r:.40}"
        if info is not None and len(info) > INFO_LIMIT + len(INFO_CUT):  # what reply_info keeps, at most
            return f"move {index}: its info is {len(info):,} characters, the referee keeps at most {INFO_LIMIT:,}"
    for fault in record["faults"]:
        if not (isinstance(fault, dict) and _is_int(fault.get("seat")) and _is_int(fault.get("move"))):
            return f"fault entry must have int 'seat' and 'move', got {fault!r:.60}"
    for entry in record["agents"]:
        if not (
            isinstance(entry, dict) and _is_int(entry.get("seat")) and isinstance(entry.get("agent"), str)
        ):
            return f"agents entry must have int 'seat' and str 'agent', got {entry!r:.60}"
    result = record["result"]
    for name in ("scores", "ranks", "engine_ranks"):
        if not _int_list(result.get(name)):
            return f"result field {name!r} must be a list of ints, got {result.get(name)!r:.40}"
    return None


def consistency_problem(record: Mapping[str, Any]) -> str | None:
    """Where ``record`` contradicts itself (its ``spec``, its seats, its faults), or None.

    A replay proves the moves give the result; these checks keep an edited record from naming
    other agents at the seats (another winner), or a fault no referee could have recorded.
    """
    spec = record.get("spec")
    if not isinstance(spec, dict) or not isinstance(spec.get("agents"), list):
        return "it has no 'spec' (every record holds the MatchSpec it was played from)"
    agents = record["agents"]
    if [entry["seat"] for entry in agents] != list(range(record["players"])):
        return f"the agents entries must be seats 0-{record['players'] - 1} in order, got {[e['seat'] for e in agents]}"
    for key, value in (
        ("game", record["game"]),
        ("seed", record["seed"]),
        ("automaton", record.get("automaton")),
    ):
        if spec.get(key) != value:
            return f"the spec says {key} {spec.get(key)!r:.40}, the record {value!r:.40}"
    for key, value in (spec.get("options") or {}).items():
        if record["options"].get(key) != value:
            return f"the spec sets option {key!r:.40} to {value!r:.40}, the record to {record['options'].get(key)!r:.40}"
    names = spec.get("display_names") or spec["agents"]
    if len(spec["agents"]) != len(agents) or len(names) != len(agents):
        return f"the spec seats {len(spec['agents'])} agents, the record {len(agents)}"
    for entry, agent, name in zip(agents, spec["agents"], names, strict=True):
        shown = entry.get("display", name)
        if entry["agent"] != agent or shown != name:
            return (
                f"seat {entry['seat']} is {shown!r:.40} ({entry['agent']!r:.60}) in the record, "
                f"{name!r:.40} ({agent!r:.60}) in its spec"
            )
    for fault in record["faults"]:
        if fault.get("phase", "move") not in ("handshake", "move"):
            return f"seat {fault['seat']}'s fault has phase {fault.get('phase')!r:.20}, not handshake or move"
        if fault.get("phase") == "handshake" and fault["move"] != 0:
            return f"seat {fault['seat']} failed its handshake after move {fault['move']}: a handshake is before move 1"
        if not 0 <= fault["move"] <= len(record["moves"]):
            return f"seat {fault['seat']}'s fault is after move {fault['move']}, the record has {len(record['moves'])}"
    return None


@dataclass(frozen=True)
class ReplayStep:
    """One applied choice during a replay and the position after it; ``index`` counts from 1."""

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
    problem = shape_problem(record)
    if problem:
        raise ReplayError(problem)
    if record["game_version"] != game.version:
        raise ReplayError(
            f"the record was played on {game.id} version {record['game_version']}, installed is {game.version}"
        )
    problem = consistency_problem(record)
    if problem:
        raise ReplayError(problem)
    forfeited_at = _forfeits(record)
    try:
        state = game.setup(record["players"], record["seed"], record["options"])
    except (BadOptions, ValueError, KeyError, TypeError) as error:
        raise ReplayError(f"{game.id} cannot set up the recorded game: {error}") from None
    asked_faults = _move_faults(record)
    for index, move in enumerate(record["moves"], 1):  # numbered from 1, as `arena replay` lists them
        _check_asked(asked_faults.get(index - 1, ()), state, index - 1)
        seat, choice, by = move["seat"], move["choice"], move.get("by", "agent")
        to_act = list(state.to_act())
        if seat not in to_act:
            raise ReplayError(f"move {index}: seat {seat} is not to act (to act: {to_act})")
        if seat != to_act[0]:  # the referee applies simultaneous choices in seat order
            raise ReplayError(
                f"move {index}: seat {seat} is recorded before seat {to_act[0]}, who acts first"
            )
        options = state.decision(seat).options
        if not 0 <= choice < len(options):
            raise ReplayError(f"move {index}: choice {choice} out of range for seat {seat}")
        forfeited = seat in forfeited_at and index > forfeited_at[seat]
        if (by == "random") != forfeited:
            why = f"it forfeited before move {forfeited_at[seat] + 1}" if seat in forfeited_at else "no fault"
            raise ReplayError(f"move {index}: seat {seat} played by {by!r}, but the record lists {why}")
        label = str(options[choice].get("label", choice))
        state.apply(seat, choice)
        if on_step is not None:
            on_step(ReplayStep(index, seat, choice, label, by), state)
    if not state.terminal():
        raise ReplayError(f"the game is not over after the {len(record['moves'])} recorded moves")
    _check_asked(asked_faults.get(len(record["moves"]), ()), state, len(record["moves"]))
    result = state.result()
    recorded = record["result"]
    if list(result.scores) != recorded["scores"] or list(result.ranks) != recorded["engine_ranks"]:
        raise ReplayError(
            f"replay gives scores {list(result.scores)} ranks {list(result.ranks)}, the record says "
            f"scores {recorded['scores']} ranks {recorded['engine_ranks']}"
        )
    ranks = list(final_ranks(result.ranks, set(forfeited_at)))
    if ranks != recorded["ranks"]:
        raise ReplayError(
            f"with the recorded faults the final ranks are {ranks}, the record says {recorded['ranks']}"
        )
    return state


def _forfeits(record: Mapping[str, Any]) -> dict[int, int]:
    """Forfeited agent seat -> moves applied before its fault; ReplayError for an impossible entry."""
    found: dict[int, int] = {}
    for fault in record["faults"]:
        seat = fault["seat"]
        if not 0 <= seat < record["players"]:
            raise ReplayError(f"a fault names seat {seat}, which is no agent seat")
        if seat in found:
            raise ReplayError(f"seat {seat} is listed as forfeited twice")
        found[seat] = fault["move"]
    return found


def _move_faults(record: Mapping[str, Any]) -> dict[int, list[int]]:
    """Moves applied before a fault made while deciding -> the seats that made it."""
    found: dict[int, list[int]] = {}
    for fault in record["faults"]:
        if fault.get("phase", "move") == "move":
            found.setdefault(fault["move"], []).append(fault["seat"])
    return found


def _check_asked(seats: Sequence[int], state: State, moves: int) -> None:
    """A fault while deciding happens only to a seat that is asked: one to act in that position."""
    for seat in seats:
        if seat not in state.to_act():
            raise ReplayError(
                f"seat {seat} is recorded as forfeiting after move {moves} while deciding, "
                "but it had no decision to make then"
            )

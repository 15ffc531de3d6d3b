"""Results that another machine sent (a Dask worker's), as plain data, checked before they are stored.

A worker answers with JSON bytes (``encode_reply``), never with Python objects: the submitting side
decodes them with ``json`` (``decode_reply``), which builds nothing but dicts, lists, strings and
numbers. A finished match's outcome is then rebuilt from its record alone (``checked_outcome``): the
record must be of the match that was scheduled (game, seed, players, options, clocks, limits, the
agent of every seat: the whole spec), and replaying its moves on this machine's engine must give
its scores and ranks. A worker cannot make a losing bot win, or pass off another deal, without
that showing.
"""

from __future__ import annotations

import json
import math
from dataclasses import astuple
from typing import Any

from arena.match.lineup import setup_state
from arena.match.record import RECORD_FORMAT, RECORD_VERSION, ReplayError, _jsonable, record_seats, replay
from arena.match.spec import MatchOutcome, MatchSpec
from arena.registry.plugins import Registry
from arena.tournament.run.replies import (
    Cancelled,
    DecodedReply,
    Done,
    Failed,
    Lost,
    Refused,
    TaskReply,
    Unchecked,
)


class ResultRejected(ValueError):
    """A reply that is malformed, or a result that is not the scheduled match's: the message says why."""


# The JSON name of each reply but Done; its fields travel in order as "details", checked by type.
_KINDS: dict[str, type[Failed | Lost | Refused | Cancelled]] = {
    "error": Failed, "refused": Refused, "cancelled": Cancelled, "lost": Lost,
}  # fmt: skip
_SHAPES: dict[str, tuple[type, ...]] = {
    "error": (str,), "refused": (str,), "cancelled": (), "lost": (str, bool, int),
}  # fmt: skip


def encode_reply(reply: TaskReply) -> bytes:
    """A worker's reply (``arena.tournament.run.worker.play_in_trio``'s, or a watchdog's ``Lost``) as JSON bytes."""
    if isinstance(reply, Done):
        return json.dumps(
            {"reply": "done", "record": reply.outcome.record, "seconds": reply.seconds}
        ).encode()
    kind = next(name for name, cls in _KINDS.items() if isinstance(reply, cls))
    return json.dumps({"reply": kind, "details": list(astuple(reply))}).encode()


def decode_reply(data: Any) -> DecodedReply:
    """What ``encode_reply`` wrote, as a runner reply; a finished match comes back ``Unchecked``:
    its record is checked by ``checked_outcome``. ResultRejected if it is not such a reply."""
    if not isinstance(data, bytes):
        raise ResultRejected(f"its reply is a {type(data).__name__}, not the JSON bytes a worker sends")
    try:
        message = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ResultRejected(f"its reply is not JSON ({error})") from None
    kind = message.get("reply") if isinstance(message, dict) else None
    details = message.get("details", []) if isinstance(message, dict) else None
    if kind == "done":
        seconds = message.get("seconds")
        if not isinstance(seconds, int | float) or isinstance(seconds, bool) or not math.isfinite(seconds):
            raise ResultRejected(f"its reply gives the match's time as {seconds!r:.40}")
        return Unchecked(message.get("record"), max(0.0, float(seconds)))
    if kind in _SHAPES and isinstance(details, list) and len(details) == len(_SHAPES[kind]):
        if all(isinstance(value, kind_of) for value, kind_of in zip(details, _SHAPES[kind], strict=True)):
            return _KINDS[kind](*details)
    raise ResultRejected(f"its reply is not one a worker sends: {data[:80]!r}")


def checked_outcome(spec: MatchSpec, record: Any, registry: Registry) -> MatchOutcome:
    """The outcome of the scheduled match ``spec``, rebuilt from ``record`` once it checks out;
    ResultRejected otherwise (another match's record, a forged result, a malformed record)."""
    if not isinstance(record, dict):
        raise ResultRejected("it sent no match record")
    try:
        game, _, options = setup_state(spec, registry)
    except Exception as error:  # the spec was checked when the ladder was loaded: should not happen
        raise ResultRejected(f"the match cannot be set up here: {error}") from None
    expected = {
        "format": RECORD_FORMAT,
        "record_version": RECORD_VERSION,
        "game": spec.game,
        "game_version": game.version,
        "seed": spec.seed,
        "players": spec.players,
        "automaton": spec.automaton,
        "options": _jsonable(options),
        "clock": {"move_ms": spec.move_ms, "bank_ms": spec.bank_ms, "handshake_ms": spec.handshake_ms},
        "limits": {"memory_mb": spec.memory_mb, "cpu_seconds": spec.cpu_seconds},
        "spec": _jsonable(spec.to_dict()),
    }
    for name, value in expected.items():
        if record.get(name) != value:
            raise ResultRejected(
                f"its record's {name} is {record.get(name)!r:.80}, the match's is {value!r:.80}"
            )
    agents = record.get("agents")
    seats = (
        [(entry.get("seat"), entry.get("agent")) for entry in agents if isinstance(entry, dict)]
        if isinstance(agents, list)
        else None
    )
    if seats != list(enumerate(spec.agents)):
        raise ResultRejected(f"its record seats {seats!r:.80}, the match seats {list(spec.agents)!r:.80}")
    faults = record.get("faults")
    if not isinstance(faults, list) or not all(
        isinstance(fault, dict) and isinstance(fault.get("fault"), str) for fault in faults
    ):
        raise ResultRejected("its record's faults are malformed")
    try:
        replay(record, game)
    except ReplayError as error:
        raise ResultRejected(f"its record does not replay: {error}") from None
    return MatchOutcome(spec=spec, seats=record_seats(spec, record), record=record)

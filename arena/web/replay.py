"""A stored record replayed on its engine, one frame per step, for the match viewer.

Frame 0 is the position after setup; frame k the position after the record's k-th move, with
what led to it: the decision asked, its options and the one chosen, the log lines the move
produced, the time it took and any fault raised in that position. Drawing a frame calls the
engine's ``svg(state, viewer)`` (a pure function next to its text ``render``), with the seats'
names where it takes ``names``.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.record import ReplayError, ReplayStep, replay
from engine.api import Game, State

MAX_OPTIONS = 80  # options listed per step; the chosen one is always among them


@dataclass
class Frame:
    """One step of the viewer: the position and the move that led to it (none for frame 0)."""

    state: State
    info: dict[str, Any] = field(default_factory=dict)


def _log_text(entry: Any) -> str:
    return str(entry.get("text", entry)) if isinstance(entry, dict) else str(entry)


def _options(labels: list[str], chosen: int) -> list[dict[str, Any]]:
    shown = list(range(min(len(labels), MAX_OPTIONS)))
    if chosen >= MAX_OPTIONS:
        shown.append(chosen)
    return [{"index": i, "label": labels[i]} for i in shown]


def replay_frames(
    record: dict[str, Any], game: Game, names: Sequence[str] = ()
) -> tuple[list[Frame], str | None]:
    """Every frame of ``record`` (``names``: the seats' display names); with the replay error, if
    it does not reproduce the record."""
    faults: dict[int, list[dict]] = {}
    for fault in record.get("faults", []):
        faults.setdefault(int(fault.get("move") or 0), []).append(fault)
    start = game.setup(record["players"], record["seed"], record["options"])
    out = [
        Frame(
            start.clone(),
            {"step": 0, "log": [_log_text(e) for e in start.log()], "faults": faults.get(0, [])},
        )
    ]
    used: dict[int, float] = {}
    moves = record["moves"]

    def on_step(step: ReplayStep, state: State) -> None:
        before = out[-1].state
        decision = before.decision(step.seat)
        move = moves[step.index - 1]  # ReplayStep.index counts from 1
        used[step.seat] = used.get(step.seat, 0.0) + float(move.get("ms") or 0)
        seen = len(before.log())
        out.append(
            Frame(
                state.clone(),
                {
                    "step": step.index,
                    "seat": step.seat,
                    "agent": names[step.seat] if step.seat < len(names) else f"seat {step.seat}",
                    "by": step.by,
                    "ms": move.get("ms"),
                    "clock_ms": {str(seat): round(ms, 3) for seat, ms in sorted(used.items())},
                    "decision": {
                        "kind": decision.kind,
                        "prompt": decision.prompt,
                        "count": len(decision.options),
                    },
                    "options": _options(
                        [str(o.get("label", i)) for i, o in enumerate(decision.options)], step.choice
                    ),
                    "choice": step.choice,
                    "label": step.label,
                    "log": [_log_text(e) for e in state.log()[seen:]],
                    "faults": faults.get(step.index, []),
                },
            )
        )

    try:
        replay(record, game, on_step)
    except ReplayError as error:
        return out, str(error)
    return out, None


def draw(state: State, viewer: int | None, names: Sequence[str] = ()) -> str | None:
    """The engine's SVG of ``state``: ``svg(state, viewer)`` of the module ``svg`` in the state's
    package (beside its text render), given the seats' ``names`` too where it takes them; None
    when the engine has no drawing."""
    package = type(state).__module__.rpartition(".")[0]
    try:
        module = importlib.import_module(f"{package}.svg") if package else None
    except ImportError:
        return None
    function = getattr(module, "svg", None)
    if not callable(function):
        return None
    if names and "names" in inspect.signature(function).parameters:
        return function(state, viewer, names=tuple(names))
    return function(state, viewer)

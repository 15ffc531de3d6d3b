"""A stored record replayed on its engine, one frame per step, for the match viewer.

Frame 0 is the position after setup; frame k the position after the record's k-th move, with
what led to it: the decision asked, its options and the one chosen, the log lines the move
produced, the time it took and any fault raised in that position. Drawing a frame calls the
game's ``picture`` capability (engine/api.py: a pure function of the state, the viewer and the
seats' names), and the move list's headings its ``phase``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.match.record import ReplayError, ReplayStep, replay
from engine.api import Game, State, capabilities

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


def phase_of(game: Game, state: State) -> str:
    """The part of the game ``state`` is in, as the move list groups moves (the game's ``phase``
    capability: Zapotec's round, Teotihuacan's era); "" for a game that declares none."""
    phase = capabilities(game).phase
    return phase(state) if phase is not None else ""


def _faults_by_move(record: dict[str, Any]) -> dict[int, list[dict]]:
    faults: dict[int, list[dict]] = {}
    for fault in record.get("faults", []):
        faults.setdefault(int(fault.get("move") or 0), []).append(fault)
    return faults


def _move_frame(
    game: Game, before: State, after: State, step: ReplayStep, move: dict[str, Any],
    used: dict[int, float], names: Sequence[str], faults: dict[int, list[dict]],
) -> Frame:  # fmt: skip
    """The frame after ``step`` (``move``, the record's entry; ``used``: each seat's time so far,
    this move's added here)."""
    decision = before.decision(step.seat)
    used[step.seat] = used.get(step.seat, 0.0) + float(move.get("ms") or 0)
    seen = len(before.log())
    info = {
        "step": step.index,
        "seat": step.seat,
        "agent": names[step.seat] if step.seat < len(names) else f"seat {step.seat}",
        "by": step.by,
        "ms": move.get("ms"),
        "clock_ms": {str(seat): round(ms, 3) for seat, ms in sorted(used.items())},
        "decision": {"kind": decision.kind, "prompt": decision.prompt, "count": len(decision.options)},
        "options": _options([str(o.get("label", i)) for i, o in enumerate(decision.options)], step.choice),
        "choice": step.choice,
        "label": step.label,
        "phase": phase_of(game, before),
        "bot_info": str(move.get("info") or ""),  # the bot's own view (docs/protocol.md), text only
        "log": [_log_text(e) for e in after.log()[seen:]],
        "faults": faults.get(step.index, []),
    }
    return Frame(after.clone(), info)


def _start_frame(record: dict[str, Any], game: Game, faults: dict[int, list[dict]]) -> Frame:
    start = game.setup(record["players"], record["seed"], record["options"])
    info = {
        "step": 0,
        "phase": phase_of(game, start),
        "log": [_log_text(e) for e in start.log()],
        "faults": faults.get(0, []),
    }
    return Frame(start, info)


def replay_frames(
    record: dict[str, Any], game: Game, names: Sequence[str] = ()
) -> tuple[list[Frame], str | None]:
    """Every frame of ``record`` (``names``: the seats' display names); with the replay error, if
    it does not reproduce the record."""
    faults = _faults_by_move(record)
    out = [_start_frame(record, game, faults)]
    used: dict[int, float] = {}
    moves = record["moves"]

    def on_step(step: ReplayStep, state: State) -> None:
        # ReplayStep.index counts from 1
        out.append(_move_frame(game, out[-1].state, state, step, moves[step.index - 1], used, names, faults))

    try:
        replay(record, game, on_step)
    except ReplayError as error:
        return out, str(error)
    return out, None


def extend_frames(
    frames: list[Frame], record: dict[str, Any], game: Game, names: Sequence[str] = ()
) -> str | None:
    """Add to ``frames`` (those of a match being played, possibly none yet) the frames of the
    moves of its live ``record`` beyond them; the problem, if a move cannot be applied. Only the
    new moves are played, so a follower's poll costs what happened since the last one."""
    faults = _faults_by_move(record)
    if not frames:
        if record.get("game_version") != game.version:
            return f"the match is played on {game.id} version {record.get('game_version')}, installed is {game.version}"
        try:
            frames.append(_start_frame(record, game, faults))
        except (ValueError, KeyError, TypeError) as error:
            return f"{game.id} cannot set up the match: {error}"
    clock = frames[-1].info.get("clock_ms", {})
    used = {int(seat): float(ms) for seat, ms in clock.items()}
    for index in range(len(frames), len(record["moves"]) + 1):
        move = record["moves"][index - 1]
        before = frames[-1].state
        seat, choice = move.get("seat"), move.get("choice")
        if seat not in before.to_act() or not isinstance(choice, int):
            return f"move {index}: seat {seat!r} is not to act"
        options = before.decision(seat).options
        if not 0 <= choice < len(options):
            return f"move {index}: choice {choice} out of range for seat {seat}"
        after = before.clone()
        after.apply(seat, choice)
        label = str(options[choice].get("label", choice))
        step = ReplayStep(index, seat, choice, label, str(move.get("by", "agent")))
        frames.append(_move_frame(game, before, after, step, move, used, names, faults))
    return None


def draw(game: Game, state: State, viewer: int | None, names: Sequence[str] = ()) -> str | None:
    """``state`` drawn by ``game``'s ``picture`` capability as seat ``viewer`` sees it (None:
    everything), the seats' ``names`` on it; None when the game declares no picture."""
    picture = capabilities(game).picture
    return picture(state, viewer, tuple(names)) if picture is not None else None

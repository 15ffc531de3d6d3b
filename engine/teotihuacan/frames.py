"""The pending-work stack that drives a game: every step of the rules is a *frame*.

A frame is a tuple ``(kind, seat, *args)`` of ints and strings. Frames of an *automatic* kind
run as soon as they reach the top of the stack; frames of a *choice* kind wait for their seat
to pick one of the options their handler lists. A choice with no option is skipped (the
benefit is lost, as the rules say when it cannot be used); a choice with exactly one option
is taken without asking (and logged). Handlers register themselves here by kind. A choice
that falls to an automaton seat (``state.bot``) is answered by its policy in ``AUTOMATON``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Frame = tuple
Payload = tuple


@dataclass(frozen=True)
class Choice:
    """How one kind of choice frame lists, describes and resolves its options.

    ``describe`` labels each option on its own (the label of an option does not depend on the
    others offered), so one option can be labelled alone: ``describe(st, frame, [p])``."""

    options: Callable[[Any, Frame], list[Payload]]
    resolve: Callable[[Any, Frame, Payload], None]
    describe: Callable[[Any, Frame, list[Payload]], tuple[str, list[str]]]


# Forced choices not worth a log line ("end your turn" with nothing else to do).
QUIET = frozenset({"end-options", "use-tiles"})
AUTO: dict[str, Callable[[Any, Frame], None]] = {}
CHOICE: dict[str, Choice] = {}
# How an automaton seat answers a choice frame: ``pick(state, frame, options) -> payload``.
AUTOMATON: dict[str, Callable[[Any, Frame, list[Payload]], Payload]] = {}
# Choices every listed seat makes at once, hidden from the others (the Starting tiles, a
# module's priest tiles): kind -> ``seats(state)``, the seats that have not chosen yet. Such a
# frame's options and resolver get the frame ``(kind, seat)`` of the seat choosing.
SIMULTANEOUS: dict[str, Callable[[Any], tuple[int, ...]]] = {}
# ``(seats, fn)``: ``fn(state, seat, kind)`` after every step while a module is in play (``kind``
# of the frame just run, '' for a decision applied), for a module that reacts to any change (a
# priest's extra VP). ``seats(state)``: the seats ``fn`` watches in this game now; asked by
# ``modules.refresh`` (into ``state.watchers``), so it may read only what a refresh follows
# (the priest tiles kept).
WATCHERS: list[tuple[Callable[[Any], list[int]], Callable[[Any, int, str], None]]] = []


def auto(kind: str) -> Callable:
    """Register an automatic frame handler ``fn(state, frame)``."""

    def register(fn: Callable) -> Callable:
        AUTO[kind] = fn
        return fn

    return register


def choice(kind: str, options: Callable, describe: Callable) -> Callable:
    """Register a choice frame: ``options(state, frame)``, ``describe`` and the decorated resolver."""

    def register(fn: Callable) -> Callable:
        CHOICE[kind] = Choice(options, fn, describe)
        return fn

    return register


def push(state: Any, *frames: Frame) -> None:
    """Schedule frames to run in the order given (the first one next)."""
    state.stack.extend(reversed(frames))


def run(state: Any) -> None:
    """Run automatic frames until a real choice (two or more options) or the end of the game."""
    stack = state.stack
    state.opts = None
    watch = state.watchers
    if watch:
        _notify(watch, state, "")
    while stack:
        frame = stack[-1]
        kind = frame[0]
        fn = AUTO.get(kind)
        if fn is not None:
            stack.pop()
            fn(state, frame)
            if watch:
                _notify(watch, state, kind)
            continue
        if kind in SIMULTANEOUS:  # every seat that has not picked yet decides
            return
        spec = CHOICE[kind]
        opts = spec.options(state, frame)
        how = "only option"
        if len(opts) > 1:
            if frame[1] != state.bot:
                state.opts = opts
                return
            pick = AUTOMATON.get(kind)  # an engine-played seat never waits for a decision
            if pick is None:
                raise RuntimeError(f"the automaton has no policy for choice {kind!r}")
            opts = [pick(state, frame, opts)]
            how = "automaton's choice"
        stack.pop()
        if opts:
            if kind not in QUIET:  # a forced step is still logged: the log tells the whole story
                label = spec.describe(state, frame, opts)[1][0]
                state.events.append((frame[1], kind, f"{label} ({how})"))
            spec.resolve(state, frame, opts[0])
        if watch:
            _notify(watch, state, kind)


def _notify(watch: list, state: Any, kind: str) -> None:
    for fn, seat in watch:
        fn(state, seat, kind)

"""The pending-work stack that drives a game: every step of the rules is a *frame*.

A frame is a tuple ``(kind, seat, *args)`` of ints and strings. Frames of an *automatic* kind
run as soon as they reach the top of the stack; frames of a *choice* kind wait for their seat
to pick one of the options their handler lists. A choice with no option is skipped (the
benefit is lost, as the rules say when it cannot be used); a choice with exactly one option
is taken without asking (and logged). The handlers of each kind are the state's rulebook's
(``state.rules``, rulebook.py). A choice that falls to an automaton seat (``state.bot``) is
answered by the rulebook's automaton policy for that kind.
"""

from __future__ import annotations

from typing import Any

from .hooks import Frame, Payload

__all__ = ["QUIET", "Frame", "Payload", "push", "run"]

# Forced choices not worth a log line ("end your turn" with nothing else to do).
QUIET = frozenset({"end-options", "use-tiles"})


def push(state: Any, *frames: Frame) -> None:
    """Schedule frames to run in the order given (the first one next)."""
    state.stack.extend(reversed(frames))


def run(state: Any) -> None:
    """Run automatic frames until a real choice (two or more options) or the end of the game."""
    stack = state.stack
    rules = state.rules
    autos = rules.auto
    state.opts = None
    watch = state.watchers
    if watch:
        _notify(watch, state, "")
    while stack:
        frame = stack[-1]
        kind = frame[0]
        fn = autos.get(kind)
        if fn is not None:
            stack.pop()
            fn(state, frame)
            if watch:
                _notify(watch, state, kind)
            continue
        if kind in rules.simultaneous:  # every seat that has not picked yet decides
            return
        spec = rules.choice[kind]
        opts = spec.options(state, frame)
        how = "only option"
        if len(opts) > 1:
            if frame[1] != state.bot:
                state.opts = opts
                return
            pick = rules.automaton.get(kind)  # an engine-played seat never waits for a decision
            if pick is None:
                raise RuntimeError(f"the automaton has no policy for choice {kind!r}")
            opts = [pick(state, frame, opts)]
            how = "automaton's choice"
        stack.pop()
        if opts:
            # a forced step is still logged (the log tells the whole story), unless no log is kept
            if kind not in QUIET and state.keep_log:
                label = spec.describe(state, frame, opts)[1][0]
                state.events.append((frame[1], kind, f"{label} ({how})"))
            spec.resolve(state, frame, opts[0])
        if watch:
            _notify(watch, state, kind)


def _notify(watch: list, state: Any, kind: str) -> None:
    for fn, seat in watch:
        fn(state, seat, kind)

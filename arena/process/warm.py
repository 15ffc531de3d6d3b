"""What a referee process keeps from one match to the next: its zygotes (with the agents they
started ahead for the next match) and its thaw guard.

A runner's worker plays match after match, so it keeps them for as long as it lives
(``kept_warm``); any other referee (a lone `arena play`, `arena check`, a test) ends them with
each match (``release``, called by the referee on every exit path), so nothing it started
outlives the match. The modules owning such things register how to end them (``on_release``):
arena/process/zygote.py its zygotes, arena/process/cgroups.py its thaw guard.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

_kept_warm = 0
_releasers: list[Callable[[], None]] = []


def on_release(releaser: Callable[[], None]) -> Callable[[], None]:
    """Have ``release`` call ``releaser`` (a decorator; returns it unchanged)."""
    _releasers.append(releaser)
    return releaser


@contextlib.contextmanager
def kept_warm() -> Iterator[None]:
    """Keep this process's zygotes and thaw guard between matches (a runner's worker); end them on leaving."""
    global _kept_warm
    _kept_warm += 1
    try:
        yield
    finally:
        _kept_warm -= 1
        release()


def is_kept() -> bool:
    """Whether this process keeps its zygotes and thaw guard between matches now."""
    return _kept_warm > 0


def release() -> None:
    """End what this process keeps between matches, unless ``kept_warm`` holds it (the referee, after each match)."""
    if _kept_warm:
        return
    for releaser in _releasers:
        releaser()

"""Ctrl-C while modules are imported: the first press interrupts, later ones wait their turn.

Used by the console script (arena/cli/entry.py) around the import of the commands, and by
`arena run` around the runner's imports, until the runner's own signal handlers take over.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


@contextmanager
def interrupted_once() -> Iterator[None]:
    """Inside, the first Ctrl-C raises KeyboardInterrupt and any later one is ignored.

    A second Ctrl-C while the first unwinds an import would otherwise land in importlib's
    module-lock callbacks (or any finaliser), where Python can only print it as a traceback.
    Python's own handler is back afterwards: trio takes over SIGINT only from that one.
    """
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield  # not ours to change (an embedding program, or not the main thread's default)
        return

    pressed = False

    def first(signum: int, frame: FrameType | None) -> None:
        nonlocal pressed
        pressed = True
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, first)
    try:
        yield
    finally:
        if not pressed:  # once pressed, the process is on its way out: later presses stay ignored
            signal.signal(signal.SIGINT, signal.default_int_handler)

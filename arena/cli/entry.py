"""The `arena` console script: the app, with Ctrl-C turned into one line at every moment.

Kept free of heavy imports so that a Ctrl-C while the commands are still being imported (the
first second or so) is caught here too, instead of ending in a traceback.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

INTERRUPTED = 130


def main() -> None:
    try:
        app = _import_app()
        app()
    except KeyboardInterrupt:  # during the imports, before the app could catch it
        _interrupted()
    except SystemExit as done:
        # typer turns a KeyboardInterrupt that escapes a command into a silent Exit(130); the
        # commands that handle it themselves have printed their own line and exit without a cause
        cause = done.__context__.__cause__ if done.__context__ is not None else None
        if done.code == INTERRUPTED and isinstance(cause, KeyboardInterrupt):
            _interrupted()
        raise


def _import_app() -> Any:
    with interrupted_once():
        from arena.cli.main import app
    return app


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


def _interrupted() -> None:
    print("error: interrupted (Ctrl-C)", file=sys.stderr)
    raise SystemExit(INTERRUPTED)

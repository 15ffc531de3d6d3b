"""The `arena` console script: the app, with Ctrl-C turned into one line at every moment.

Kept free of heavy imports so that a Ctrl-C while the commands are still being imported (the
first second or so) is caught here too, instead of ending in a traceback.
"""

from __future__ import annotations

import sys
from typing import Any

from arena.cli.interrupts import interrupted_once

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


def _interrupted() -> None:
    print("error: interrupted (Ctrl-C)", file=sys.stderr)
    raise SystemExit(INTERRUPTED)

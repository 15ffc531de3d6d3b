"""``arena ARGS`` run inside the test's own process: what it prints and its exit status, without
the ~0.5-1 s of CPU that starting and importing a new `arena` process costs.

For tests about what a command says, writes and returns (bad input, one-line errors, output
formats). A test about the process itself (signals, Ctrl-C, a real exit status seen by a shell,
the console script) starts a real one: tests/arena/cli/test_cli_match.py and others keep one per
command.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import traceback
from pathlib import Path

from arena.cli.entry import main


def arena_in_process(*args: str, cwd: Path | str | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``arena ARGS`` here as ``python -m arena.cli ARGS`` would run it (in ``cwd``): its exit
    status, stdout and stderr. The environment, the working directory and ``sys.argv`` are put back
    afterwards (a command may set variables for its workers, e.g. ``--sandbox``)."""
    argv = ["arena", *args]
    out, err = io.StringIO(), io.StringIO()
    saved_env, saved_cwd, saved_argv = dict(os.environ), os.getcwd(), sys.argv
    code: int
    try:
        if cwd is not None:
            os.chdir(cwd)
        sys.argv = argv
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main()
                code = 0
            except SystemExit as done:
                code = _exit_status(done, err)
            except Exception:  # what a real process would print before dying with status 1
                traceback.print_exc(file=err)
                code = 1
    finally:
        sys.argv = saved_argv
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
    return subprocess.CompletedProcess(argv, code, out.getvalue(), err.getvalue())


def _exit_status(done: SystemExit, err: io.StringIO) -> int:
    """The status a process ending with ``done`` exits with (a text code is printed, as Python does)."""
    if done.code is None:
        return 0
    if isinstance(done.code, int):
        return done.code
    print(done.code, file=err)
    return 1


# Commands whose workers come from the calling process (Dask's, compare's): a real process. A local
# `arena run` plays in workers forked from a fork server, a fresh interpreter it starts (its own
# process saved ~0.3 s of CPU a call: its imports and start).
PLAYS_IN_WORKERS = frozenset({"compare"})


def arena(
    *args: str, cwd: Path | str | None = None, env: dict[str, str] | None = None, timeout: float = 240
) -> subprocess.CompletedProcess[str]:
    """``arena ARGS``: in this process where that is the same (``arena_in_process``); as a real
    process for a command in ``PLAYS_IN_WORKERS`` or one given an environment of its own."""
    if env is None and args and args[0] not in PLAYS_IN_WORKERS and "--cluster" not in args:
        return arena_in_process(*args, cwd=cwd)
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=timeout,
    )

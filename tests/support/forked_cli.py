"""Many ``arena ARGS`` commands, each in a process of its own under a timeout, for one start-up.

For tests whose commands could hang (a FIFO, a device given as a file) and so must run where they
can be killed, but that need not pay a fresh Python and `arena` import each (~0.5-1 s of CPU):
``run_forked(cases, timeout)`` starts ONE driver process (``python -m tests.support.forked_cli``),
which imports the app once and then forks a child per command from that pristine state. Each
child runs the command as ``python -m arena.cli ARGS`` would (stdin from /dev/null, its stdout
and stderr the real file descriptors 1 and 2, its exit status the process's); a child still
running after ``timeout`` seconds is killed and reported hung. The driver has exited when
``run_forked`` returns, so no process outlives the call (the suite's leak guard).
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import traceback


def run_forked(cases: list[list[str]], timeout: float) -> list[subprocess.CompletedProcess[str] | None]:
    """Each of ``cases`` (an argv after ``arena``) run in a child process: its result, or None if
    it was still running after ``timeout`` seconds (then killed). The environment is this one's."""
    driver = subprocess.run(
        [sys.executable, "-m", "tests.support.forked_cli", str(timeout)],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        timeout=len(cases) * (timeout + 5) + 120,
    )
    assert driver.returncode == 0, driver.stderr
    return [
        None if found is None else subprocess.CompletedProcess(["arena", *argv], *found)
        for argv, found in zip(cases, json.loads(driver.stdout), strict=True)
    ]


def _child(argv: list[str], out: int, err: int) -> None:
    """In the forked child: ``arena ARGV`` on fds 0-2 as a fresh process has them; never returns."""
    code = 1
    try:
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(out, 1)
        os.dup2(err, 2)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        sys.argv = ["arena", *argv]
        from arena.cli.entry import main

        try:
            main()
            code = 0
        except SystemExit as done:  # as the interpreter ends a process with it
            if done.code is None or isinstance(done.code, int):
                code = done.code or 0
            else:
                print(done.code, file=sys.stderr)
        except BaseException:
            traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def _wait(pid: int, timeout: float) -> int | None:
    """The child's exit status (negative: the signal that ended it), or None if it hung (killed)."""
    pidfd = os.pidfd_open(pid)
    try:
        ready, _, _ = select.select([pidfd], [], [], timeout)
        if not ready:
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    finally:
        os.close(pidfd)
    return os.waitstatus_to_exitcode(status) if ready else None


def _run_one(argv: list[str], timeout: float) -> tuple[int, str, str] | None:
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            _child(argv, out.fileno(), err.fileno())
        code = _wait(pid, timeout)
        if code is None:
            return None
        texts = []
        for file in (out, err):
            file.seek(0)
            texts.append(file.read().decode("utf-8", "replace"))
        return code, texts[0], texts[1]


def main() -> None:
    """The driver: argv lists as JSON on stdin, each one's (status, stdout, stderr) or null on stdout."""
    timeout = float(sys.argv[1])
    cases = json.load(sys.stdin)
    import arena.cli.main  # noqa: F401  (imported once here, before the forks: what each child saves)

    results = [_run_one(argv, timeout) for argv in cases]
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()

"""`arena play --agent human` as the tests drive it: start it, read the pages' addresses, stop it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
ADDRESS = re.compile(r"seat (\d+) \(human\): open (http://\S+)")


class HumanMatch:
    """A running `arena play` with human seats; ``pages`` maps each human seat to its address.

    Its stderr is read by a thread (kept in ``stderr_lines``) so that the process never blocks
    on a full pipe; ``finish`` waits for the end and returns (status, stdout, stderr).
    """

    def __init__(self, args: list[str], humans: int = 1, timeout_s: float = 60) -> None:
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        self.process = subprocess.Popen(
            [sys.executable, "-m", "arena.cli", "play", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        self.stderr_lines: list[str] = []
        self.pages: dict[int, str] = {}
        self._announced = threading.Event()
        self._humans = humans
        self.stdout = ""
        self._readers = [
            threading.Thread(target=self._read_stderr, daemon=True),
            threading.Thread(target=self._read_stdout, daemon=True),
        ]
        for reader in self._readers:
            reader.start()
        if not self._announced.wait(timeout_s):
            self.stop()
            raise AssertionError(f"arena play printed no page address: {''.join(self.stderr_lines)}")

    def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.stderr_lines.append(line)
            found = ADDRESS.search(line)
            if found:
                self.pages[int(found.group(1))] = found.group(2)
                if len(self.pages) == self._humans:
                    self._announced.set()
        self._announced.set()  # ended without (all) addresses

    def _read_stdout(self) -> None:
        assert self.process.stdout is not None
        self.stdout = self.process.stdout.read()

    def finish(self, timeout_s: float = 60) -> tuple[int, str, str]:
        """Wait for `arena play` to end: (exit status, stdout, stderr)."""
        try:
            self.process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.stop()
            raise
        for reader in self._readers:
            reader.join(5)
        return self.process.returncode, self.stdout, "".join(self.stderr_lines)

    def stop(self) -> None:
        """Interrupt it (as Ctrl-C), then kill it if it does not end."""
        if self.process.poll() is None:
            self.process.send_signal(2)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for reader in self._readers:
            reader.join(5)


def get_json(url: str, host: str | None = None) -> tuple[int, Any]:
    """(status, JSON body or text) of a GET."""
    request = urllib.request.Request(url, headers={"host": host} if host else {})
    return _answer(request)


def post_json(
    url: str, body: Any, raw: bytes | None = None, content_type: str = "application/json"
) -> tuple[int, Any]:
    """(status, JSON body or text) of a POST of ``body`` as JSON (or ``raw`` bytes)."""
    data = raw if raw is not None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"content-type": content_type})
    return _answer(request)


def _answer(request: urllib.request.Request) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            status, text = response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        status, text = error.code, error.read().decode()
    try:
        return status, json.loads(text)
    except json.JSONDecodeError:
        return status, text

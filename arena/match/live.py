"""A match's record as it is played: the referee appends each step to a live file, the web arena
reads it back as a partial record (the match page follows a running match with it).

The file is JSON lines: one ``start`` line (the record's header: game, seed, options, agents...),
then one ``move`` line per applied choice and one ``fault`` line per forfeit, in the order they
happened. Writes are batched (at most one flush every FLUSH_S), so a quick match costs a few
writes; a reader ignores a last line not yet written whole. A tournament keeps its live files in
a private folder beside the database (``live_folder``), one per running match, removed once the
match's record is stored.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

FLUSH_S = 0.2  # the longest a played step waits before a follower can see it
MAX_LIVE_BYTES = 64 << 20  # a live file longer than this is not read (a record is far smaller)


def live_folder(db: str | Path) -> Path:
    """The folder of a database's live files: ``DB.live`` beside it."""
    return Path(f"{db}.live")


def live_file(folder: Path, match_id: int) -> Path:
    """The live file of stored match ``match_id`` in ``folder``."""
    return folder / f"{int(match_id)}.jsonl"


def make_private_folder(folder: Path) -> None:
    """Create ``folder`` readable by its owner only (live records hold what the store holds)."""
    folder.mkdir(mode=0o700, exist_ok=True)


def remove_quietly(path: Path) -> None:
    """Delete ``path`` if it is there (a live file whose match ended)."""
    try:
        path.unlink()
    except OSError:
        pass


class LiveWriter:
    """Appends one match's steps to its live file; never raises (a full disk only stops the live view)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lines: list[str] = []
        self._last_flush = 0.0
        self._file: IO[str] | None = None
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            self._file = os.fdopen(fd, "w", encoding="utf-8")
        except OSError:
            self._file = None

    def start(self, header: Mapping[str, Any]) -> None:
        """The record's header (every field of a record but moves, faults and result)."""
        self._add({"kind": "start", "record": dict(header)}, flush=True)

    def move(self, move: Mapping[str, Any]) -> None:
        """One applied choice, as the record's ``moves`` holds it."""
        self._add({"kind": "move", **move})

    def fault(self, fault: Mapping[str, Any]) -> None:
        """A seat's forfeit, as the record's ``faults`` holds it."""
        self._add({"kind": "fault", **fault}, flush=True)

    def close(self) -> None:
        """Write what is buffered and close the file (the match is over or stopped)."""
        self.flush()
        if self._file is not None:
            try:
                self._file.close()
            except OSError:
                pass
            self._file = None

    def flush(self) -> None:
        """Write every buffered line now."""
        if self._file is None or not self._lines:
            return
        try:
            self._file.write("".join(self._lines))
            self._file.flush()
        except (OSError, ValueError):  # ValueError: closed; OSError: full disk
            self._file = None
        self._lines.clear()
        self._last_flush = time.monotonic()

    def _add(self, entry: Mapping[str, Any], flush: bool = False) -> None:
        if self._file is None:
            return
        self._lines.append(json.dumps(entry, separators=(",", ":"), default=str) + "\n")
        if flush or time.monotonic() - self._last_flush >= FLUSH_S:
            self.flush()


def read_live(path: str | Path) -> dict[str, Any] | None:
    """The partial record in live file ``path`` (its ``moves`` and ``faults`` so far, ``result``
    empty), or None when there is none yet (no file, no whole ``start`` line, unreadable)."""
    try:
        with open(path, encoding="utf-8") as source:
            text = source.read(MAX_LIVE_BYTES + 1)
    except (OSError, UnicodeDecodeError):
        return None
    if len(text) > MAX_LIVE_BYTES:
        return None
    record: dict[str, Any] | None = None
    for line in text.split("\n")[:-1]:  # the last piece is empty or a line still being written
        try:
            entry = json.loads(line)
        except ValueError:
            return record
        kind = entry.pop("kind", None) if isinstance(entry, dict) else None
        if kind == "start" and isinstance(entry.get("record"), dict):
            record = dict(entry["record"], moves=[], faults=[], live=True)
            record["result"] = {"scores": [], "ranks": [], "engine_ranks": []}
        elif record is not None and kind == "move":
            record["moves"].append(entry)
        elif record is not None and kind == "fault":
            record["faults"].append(entry)
    return record


def tournament_live_folder(db: str) -> Path | None:
    """``live_folder`` of a store at path ``db``; None for a store that is no plain file (``:memory:``,
    a PostgreSQL URL: several runners on several machines share no folder)."""
    if db == ":memory:" or db.startswith("file:") or "://" in db or not db:
        return None
    return live_folder(db)


def remove_live_folder(folder: Path) -> None:
    """Delete ``folder`` and the live files left in it (a run stopped with matches in flight:
    they are pending again). Only the store's one runner writes there (``Store.claim_writer``)."""
    try:
        for path in folder.glob("*.jsonl"):
            remove_quietly(path)
        folder.rmdir()
    except OSError:
        pass

"""Uploads: a package's bytes read under the ladder's size cap, then the submissions pipeline.

The cap is applied before a byte is kept: a ``Content-Length`` over it is refused at once, and a
body sent without one (chunked) is counted as it arrives and refused when it passes the cap; the
body is held in memory (at most the cap) and parsed there, so nothing of a refused upload
reaches the disk. An accepted one is written to ``submissions/uploads/ID`` under a name of the
server's choosing (the uploaded file's name is never used for a path) and handed to the
pipeline, which runs in one background thread: uploads wait their turn in state ``received``.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import AsyncGenerator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.requests import Request

from arena.accounts.store import Accounts
from arena.registry.plugins import Registry
from arena.submissions.pipeline import submit
from arena.submissions.store import Submission, SubmissionStore, submissions_folder
from arena.tournament.plan.ladder import Ladder
from arena.tournament.plan.submission_limits import SubmissionLimits, parse_limits
from arena.web.competition.guard import Refused

FORM_OVERHEAD = 64 * 1024  # a form's boundaries and small fields around the file


async def read_body(request: Request, cap: int, what: str) -> bytes:
    """The request's body, at most ``cap`` bytes; Refused(413) as soon as it is known to be more."""
    length = request.headers.get("content-length")
    if length is not None:
        if not length.isdigit():
            raise Refused(400, "a bad Content-Length header")
        if int(length) > cap:
            raise Refused(413, f"{what}: over the {cap // 1024} KiB allowed; nothing was kept")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > cap:
            raise Refused(413, f"{what}: over the {cap // 1024} KiB allowed; nothing was kept")
    return bytes(body)


async def read_form(request: Request, body: bytes) -> tuple[dict[str, str], bytes | None]:
    """A multipart form held in memory: its text fields and its one file's bytes (if any)."""
    if not request.headers.get("content-type", "").startswith("multipart/form-data"):
        raise Refused(415, "send the package as a multipart/form-data form with one file")

    async def chunks() -> AsyncGenerator[bytes, None]:
        yield body

    parser = MultiPartParser(request.headers, chunks(), max_files=1, max_fields=8)
    parser.spool_max_size = len(body) + 1  # the file stays in memory, as the body did
    try:
        form = await parser.parse()
    except MultiPartException as error:
        raise Refused(400, f"a malformed form: {error.message}") from None
    fields: dict[str, str] = {}
    data = None
    for key, value in form.multi_items():
        if isinstance(value, str):
            fields[key] = value
        else:
            data = await value.read()
    await form.close()
    return fields, data


class CachedSubmissions(SubmissionStore):
    """The submissions folder, its records read again only when the folder changed: every page
    of a bot asks who owns it, and reading thousands of records per request would dominate.

    A record is saved by writing a temporary file and renaming it, so the records folder's
    modification time moves with every change. The time is coarse (the kernel's tick), so a
    listing is kept only once the folder has been still for ``QUIET_NS``: any later change
    then gets a later time.
    """

    QUIET_NS = 50_000_000

    def __init__(self, folder: Path) -> None:
        super().__init__(folder)
        self._cached: tuple[int, list[Submission]] | None = None
        self._lock = threading.Lock()

    def all(self) -> list[Submission]:
        try:
            changed = self.records.stat().st_mtime_ns
        except OSError:
            return super().all()
        with self._lock:
            if self._cached is not None and self._cached[0] == changed:
                return list(self._cached[1])
        found = super().all()
        if time.time_ns() - changed > self.QUIET_NS:
            with self._lock:
                self._cached = (changed, found)
        return list(found)


class Uploads:
    """The competition's ladder and its submissions: ``start`` takes an upload's bytes."""

    def __init__(self, db: str | Path, ladder: Ladder, registry: Registry, accounts: Accounts) -> None:
        self.ladder = ladder
        self.limits: SubmissionLimits = parse_limits(ladder.submissions)
        self.store = CachedSubmissions(submissions_folder(db))
        self.registry = registry
        self.accounts = accounts
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="submissions")

    @property
    def cap(self) -> int:
        """The most bytes an upload's body may have (the archive cap and a form's overhead)."""
        return self.limits.archive_bytes + FORM_OVERHEAD

    def start(self, data: bytes, submitter: str) -> Submission:
        """Keep ``data`` and queue it for the pipeline; its record (state received) at once."""
        if self.accounts.submissions_locked():
            raise Refused(403, "submissions are locked by the operator (the final phase?)")
        if not data:
            raise Refused(400, "choose a package file (.zip or .tar.gz) to upload")
        if len(data) > self.limits.archive_bytes:
            raise Refused(413, f"the archive is over {self.limits.archive_mb} MiB (submissions.archive_mb)")
        record = self.store.new(self.ladder.name, submitter)
        uploads = self.store.folder / "uploads"
        uploads.mkdir(mode=0o700, exist_ok=True)
        path = uploads / str(record.id)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        self._pool.submit(self._run, path, record)
        return record

    def _run(self, path: Path, record: Submission) -> None:
        try:
            submit(
                path,
                self.ladder,
                self.limits,
                self.store,
                record.submitter,
                self.registry,
                record=record,
                admit=self._admit,
            )
        finally:
            path.unlink(missing_ok=True)

    def _admit(self, name: str) -> str | None:
        if self.accounts.bot_suspended(name):
            return f"the bot {name!r} is suspended by the operator"
        return None

    def wait(self) -> None:
        """Finish the queued uploads (tests, and the server's stop)."""
        self._pool.shutdown(wait=True)

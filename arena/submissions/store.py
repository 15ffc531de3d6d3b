"""Where submissions are kept: a folder beside the tournament's database, one record per submission.

```
submissions/                 beside the database (0700: bots never see it)
  records/ID.json            a submission's record: ladder, submitter, bot, version, state, why
  logs/ID.log                its log, for its owner (each step, the build's output, validation)
  archives/SHA256.zip|tar.gz the package as received, content-addressed
  packages/SHA256/           the package unpacked, built and frozen read-only (what bots run from)
```

States: ``received -> checked -> built -> validated -> active``, or ``rejected`` (with one line
why) at any step; an active version may later be ``retired`` (a newer one took its place) or
``withdrawn`` (by its owner).
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from arena.submissions.archive import thaw
from arena.tournament.store.opening import data_folder

STATES = ("received", "checked", "built", "validated", "active", "rejected", "retired", "withdrawn")
LIVE = ("received", "checked", "built", "validated", "active")  # still in the way of a name or version
FOLDER = "submissions"
LOG_LIMIT = 256 * 1024  # a log past this keeps growing no more (a build's output is cut before)


@dataclass(frozen=True)
class Submission:
    """One submission's record."""

    id: int
    ladder: str
    submitter: str
    name: str = ""
    version: str = ""
    sha256: str = ""
    kind: str = ""  # "zip" or "tar.gz"
    state: str = "received"
    reason: str = ""  # why rejected
    received_at: float = 0.0
    updated_at: float = 0.0

    def line(self) -> str:
        """One line for a listing."""
        what = f"{self.name} {self.version}" if self.name else "(no manifest read)"
        why = f": {self.reason}" if self.reason else ""
        return f"{self.id:>4}  {self.ladder}  {what}  by {self.submitter}  {self.state}{why}"


def submissions_folder(db: str | os.PathLike[str]) -> Path:
    """The submissions folder of the tournament whose database is ``db``: beside a SQLite file, in
    TLACHTLI_DATA for a PostgreSQL store (StoreError when that is not set)."""
    return data_folder(os.fspath(db)) / FOLDER


class SubmissionStore:
    """The records, logs, archives and packages of one tournament folder."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.records = folder / "records"
        self.logs = folder / "logs"
        self.archives = folder / "archives"
        self.packages = folder / "packages"

    def create(self) -> None:
        """Make the folders (the top one private to the operator)."""
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        for folder in (self.records, self.logs, self.archives):
            folder.mkdir(mode=0o700, exist_ok=True)
        # 0711: root's bwrap binds a package from here; nobody can list them
        self.packages.mkdir(mode=0o711, exist_ok=True)

    def new(self, ladder: str, submitter: str) -> Submission:
        """A new record (state received) under the next free id."""
        self.create()
        number = max((record.id for record in self.all()), default=0) + 1
        while True:
            try:
                fd = os.open(self.records / f"{number}.json", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                os.close(fd)
                break
            except FileExistsError:
                number += 1
        now = time.time()
        return self.save(Submission(number, ladder, submitter, received_at=now, updated_at=now))

    def save(self, record: Submission) -> Submission:
        record = replace(record, updated_at=time.time())
        path = self.records / f"{record.id}.json"
        temporary = path.with_suffix(".tmp")
        temporary.write_text(json.dumps(asdict(record), indent=1))
        os.replace(temporary, path)
        return record

    def move(self, record: Submission, state: str, reason: str = "") -> Submission:
        """``record`` in ``state`` (saved, and said in its log)."""
        assert state in STATES
        self.log(record.id, f"state: {state}" + (f": {reason}" if reason else ""))
        return self.save(replace(record, state=state, reason=reason))

    def get(self, number: int) -> Submission | None:
        try:
            return Submission(**json.loads((self.records / f"{number}.json").read_text()))
        except (OSError, ValueError, TypeError):
            return None

    def all(self) -> list[Submission]:
        """Every record, oldest first."""
        found = []
        for path in self.records.glob("*.json") if self.records.is_dir() else ():
            if path.stem.isdigit():
                record = self.get(int(path.stem))
                if record is not None:
                    found.append(record)
        return sorted(found, key=lambda record: record.id)

    def of_ladder(self, ladder: str, states: tuple[str, ...] = STATES) -> Iterator[Submission]:
        return (record for record in self.all() if record.ladder == ladder and record.state in states)

    def log(self, number: int, text: str) -> None:
        """Append ``text`` to submission ``number``'s log (a timestamp per line)."""
        self.create()
        path = self.logs / f"{number}.log"
        if path.exists() and path.stat().st_size > LOG_LIMIT:
            return
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())
        with open(path, "a", encoding="utf-8") as handle:
            for line in text.rstrip("\n").splitlines() or [""]:
                handle.write(f"{stamp}  {line}\n")

    def read_log(self, number: int) -> str:
        try:
            return (self.logs / f"{number}.log").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""

    def package(self, sha: str) -> Path:
        return self.packages / sha

    def keep_archive(self, sha: str, kind: str, data: bytes) -> None:
        path = self.archives / f"{sha}.{kind}"
        if not path.exists():
            path.write_bytes(data)
            os.chmod(path, 0o600)

    def forget_package(self, sha: str, unless_used_by: int) -> None:
        """Remove package ``sha`` unless another live submission uses it."""
        if any(r.sha256 == sha and r.id != unless_used_by and r.state in LIVE for r in self.all()):
            return
        remove_tree(self.package(sha))


def remove_tree(path: Path) -> None:
    """Delete a (perhaps frozen) folder."""
    thaw(path)
    shutil.rmtree(path, ignore_errors=True)

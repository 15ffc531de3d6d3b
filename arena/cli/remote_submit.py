"""``arena submit --server URL --token TOKEN``: upload a package to a competition server's API
and follow it to its final state (the same states as a local `arena submit`).

Plain ``urllib`` (no extra dependency for players): ``POST /api/submissions`` with the archive
as the body and ``Authorization: Bearer TOKEN``, then ``GET /api/submissions/ID`` until final.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arena.submissions.archive import PackageRejected, read_package
from arena.tournament.plan.submission_limits import SubmissionLimits

POLL_S = 0.5
PATIENCE_S = 3600.0  # a build may take minutes; past an hour the server is stuck


class RemoteError(RuntimeError):
    """The server could not be reached, or refused (its one line)."""


def _call(request: urllib.request.Request) -> dict[str, Any]:
    try:
        with urllib.request.urlopen(request, timeout=60) as response:  # noqa: S310 (the user's URL)
            return dict(json.loads(response.read()))
    except urllib.error.HTTPError as error:
        try:
            line = json.loads(error.read()).get("error") or error.reason
        except ValueError:
            line = error.reason
        raise RemoteError(f"the server answered {error.code}: {line}") from None
    except (urllib.error.URLError, OSError, ValueError) as error:
        raise RemoteError(f"cannot reach the server: {getattr(error, 'reason', error)}") from None


def submit_remote(
    package: Path, server: str, token: str, say: Callable[[str], None] = lambda line: None
) -> dict[str, Any]:
    """Upload ``package`` (a folder is packed first, as locally) and wait for its final state;
    the submission as the server last said it."""
    try:
        data, _ = read_package(package, SubmissionLimits())
    except PackageRejected as error:
        raise RemoteError(str(error)) from None
    base = server.rstrip("/")
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/octet-stream"}
    record = _call(
        urllib.request.Request(f"{base}/api/submissions", data=data, headers=headers, method="POST")
    )
    said = 0
    deadline = time.monotonic() + PATIENCE_S
    while True:
        for state in record["states"][said:]:  # every state reached since the last poll
            say(f"submission {record['id']}: {state}")
        said = max(said, len(record["states"]))
        if record.get("final"):
            return record
        if time.monotonic() > deadline:
            raise RemoteError(
                f"submission {record['id']} is still {record['state']} after an hour; ask the operator"
            )
        time.sleep(POLL_S)
        record = _call(urllib.request.Request(f"{base}/api/submissions/{record['id']}", headers=headers))

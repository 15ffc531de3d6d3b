"""What an operator allows a submission: the ladder's ``[submissions]`` table, with safe defaults.

```toml
[submissions]
archive_mb = 20          # the package as uploaded
unpacked_mb = 100        # all its files unpacked (and after its build)
files = 2000             # files and folders in it
ratio = 100              # unpacked bytes per archive byte, at most (zip bombs)
build_seconds = 300      # the build's wall clock
build_mb = 512           # the build's disk (a tmpfs of that size) and its memory
build_network = false    # may the build reach the network (a package index)? off: no network at all
active_versions = 1      # versions of one bot on the ladder at once (the older retire)
per_day = 5              # submissions of one bot in 24 hours
```
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

MIB = 1024 * 1024


@dataclass(frozen=True)
class SubmissionLimits:
    """The caps a package and its build are held to, and how often a bot may enter."""

    archive_mb: int = 20
    unpacked_mb: int = 100
    files: int = 2000
    ratio: int = 100
    build_seconds: int = 300
    build_mb: int = 512
    build_network: bool = False
    active_versions: int = 1
    per_day: int = 5

    @property
    def archive_bytes(self) -> int:
        return self.archive_mb * MIB

    @property
    def unpacked_bytes(self) -> int:
        return self.unpacked_mb * MIB


KEYS = tuple(f.name for f in fields(SubmissionLimits))


def limits_problem(table: Any) -> str | None:
    """What is wrong with a ladder's ``[submissions]`` table (None: nothing), naming the key."""
    if not isinstance(table, Mapping):
        return "[submissions] must be a table"
    for key, value in table.items():
        if key not in KEYS:
            guess = difflib.get_close_matches(key, KEYS, n=1, cutoff=0.6)
            hint = f"did you mean {guess[0]!r}?" if guess else f"known keys: {', '.join(KEYS)}"
            return f"unknown key {key!r} in [submissions]; {hint}"
        if key == "build_network":
            if not isinstance(value, bool):
                return f"submissions.build_network must be true or false, got {value!r}"
        elif isinstance(value, bool) or not isinstance(value, int) or value < 1:
            return f"submissions.{key} must be a whole number of at least 1, got {value!r}"
    return None


def parse_limits(table: Mapping[str, Any] | None) -> SubmissionLimits:
    """The limits of a (checked) ``[submissions]`` table; the defaults where it says nothing."""
    return SubmissionLimits(**dict(table or {}))

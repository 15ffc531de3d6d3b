"""What a submitted bot can rely on: the Python that runs it and the packages installed beside it.

A bot package runs on the arena's own interpreter, inside its sandbox (docs/submissions.md), so
it can import what this interpreter has installed, and nothing else unless it ships it. `arena
check` prints this, and the competition's upload page shows the same.
"""

from __future__ import annotations

import platform
from importlib import metadata


def python_version() -> str:
    """``CPython 3.12.3`` (the implementation and version bots run on)."""
    return f"{platform.python_implementation()} {platform.python_version()}"


def installed_packages() -> list[tuple[str, str]]:
    """Every distribution installed for this interpreter: (name, version), sorted by name."""
    found = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if name:
            found[name.lower()] = (name, dist.version)
    return [found[key] for key in sorted(found)]

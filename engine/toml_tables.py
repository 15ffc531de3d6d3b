"""The engines' rule tables, read from their TOML files and kept parsed beside them.

tomllib is pure Python: parsing the engines' five tables took ~35 ms of CPU, paid by every
process that loads a game (each `arena` command, runner worker and test worker). ``load`` keeps
the parsed table in ``__pycache__`` (marshal, the format of .pyc files), stamped with the file's
size and modification time as a .pyc is; a stale, unreadable or foreign cache is ignored and
rewritten, and where it cannot be written (a read-only install, a sandbox) the file is parsed as
before. The cache holds what tomllib returned, so a table's values are the same either way.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import sys
import tomllib
from pathlib import Path
from typing import Any

# The cache's format: this layout, marshal's version and the interpreter's (as a .pyc's name says it).
_TAG = f"{sys.implementation.cache_tag}-marshal{marshal.version}"


def cache_path(source: Path) -> Path:
    """Where ``source``'s parsed table is kept."""
    return source.parent / "__pycache__" / f"{source.name}.{_TAG}"


def load(source: Path) -> dict[str, Any]:
    """The table in TOML file ``source``: from its cache when the cache is current, else parsed (and cached)."""
    stat = os.stat(source)
    stamp = (stat.st_size, stat.st_mtime_ns)
    cached = cache_path(source)
    try:
        kept_stamp, table = marshal.loads(cached.read_bytes())
        if tuple(kept_stamp) == stamp:
            return table
    except (OSError, ValueError, EOFError, TypeError):
        pass  # no cache yet, or one this interpreter cannot read: parse
    table = tomllib.loads(source.read_text("utf-8"))
    _keep(cached, stamp, table)
    return table


def _keep(cached: Path, stamp: tuple[int, int], table: dict[str, Any]) -> None:
    """Write the cache atomically (a reader sees the old one or this); silently not where it cannot."""
    temporary = cached.with_name(f"{cached.name}.{os.getpid()}")
    try:
        cached.parent.mkdir(exist_ok=True)
        temporary.write_bytes(marshal.dumps((stamp, table)))
        os.replace(temporary, cached)
    except (OSError, ValueError):  # read-only, or a value marshal cannot hold (a TOML date)
        with contextlib.suppress(OSError):
            temporary.unlink(missing_ok=True)

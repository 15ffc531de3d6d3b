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
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

# The cache's format: this layout, marshal's version and the interpreter's (as a .pyc's name says it).
TAG = f"{sys.implementation.cache_tag}-marshal{marshal.version}"


def cache_path(source: Path) -> Path:
    """Where ``source``'s parsed table is kept."""
    return source.parent / "__pycache__" / f"{source.name}.{TAG}"


def load(source: Path) -> dict[str, Any]:
    """The table in TOML file ``source``: from its cache when the cache is current, else parsed (and cached)."""
    stat = os.stat(source)
    stamp = (stat.st_size, stat.st_mtime_ns)
    cached = cache_path(source)
    table = read_kept(cached, stamp)
    if table is None:
        import tomllib  # here: arena/registry/plugins.py imports this module for read_kept and keep alone

        table = tomllib.loads(source.read_text("utf-8"))
        keep(cached, stamp, table)
    return table


def read_kept(cached: str | os.PathLike[str], stamp: tuple) -> Any:
    """What ``keep`` wrote in ``cached`` with this ``stamp``; None where there is none (or another
    stamp, or a file this interpreter cannot read). Also arena/registry/plugins.py's entry points."""
    try:
        with open(cached, "rb") as file:
            kept_stamp, value = marshal.loads(file.read())
    except (OSError, ValueError, EOFError, TypeError):
        return None  # no cache yet, or one this interpreter cannot read
    return value if kept_stamp == stamp else None


def keep(cached: str | os.PathLike[str], stamp: tuple, value: Any) -> None:
    """Write ``value`` with ``stamp`` to ``cached`` atomically (a reader sees the old one or this);
    silently not where it cannot (read-only, or a value marshal cannot hold: a TOML date)."""
    temporary = f"{os.fspath(cached)}.{os.getpid()}"
    try:
        os.makedirs(os.path.dirname(temporary), exist_ok=True)
        with open(temporary, "wb") as file:
            file.write(marshal.dumps((stamp, value)))
        os.replace(temporary, cached)
    except (OSError, ValueError):
        with contextlib.suppress(OSError):
            os.unlink(temporary)

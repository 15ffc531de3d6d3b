"""Reading a user's text file (ladder, record) and checking what it holds, with one clear message
for every way it can fail: not a regular file (a FIFO would hang, /dev/zero fill the memory), too
big, not UTF-8, nested too deeply, integers out of range, values of no plain type (TOML dates)."""

from __future__ import annotations

import math
import os
import stat
from typing import Any

# A ladder is a few KiB; a record of the longest bundled game with its stderr tails is a few MiB.
MAX_FILE_BYTES = 64 * 1024 * 1024
# Tables in tables (TOML) or objects in objects (JSON): options never need more; parsers recurse.
MAX_NESTING = 32
# TOML integers are 64-bit, and so are SQLite's: a seed or index past this cannot be stored.
INT64 = (-(2**63), 2**63 - 1)


class TextFileError(ValueError):
    """A file that cannot be read as UTF-8 text; the message names it and what is wrong."""


def read_utf8(path: str | os.PathLike[str], what: str, max_bytes: int = MAX_FILE_BYTES) -> str:
    """The text of ``path``; TextFileError (naming ``what`` it should be) if it is not a regular
    file, is over ``max_bytes``, unreadable or not UTF-8."""
    try:
        # O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting for one.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except IsADirectoryError:
        raise TextFileError(f"{path} is a folder, not a {what}") from None
    except OSError as error:
        raise TextFileError(f"cannot read {what} {path}: {error.strerror or error}") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)  # a folder opens too (read-only), but os.fdopen refuses it
        if stat.S_ISDIR(mode):
            raise TextFileError(f"{path} is a folder, not a {what}")
        raise TextFileError(f"{path} is not a regular file (a device, FIFO or socket): a {what} must be one")
    with os.fdopen(fd, "rb") as handle:
        try:
            data = handle.read(max_bytes + 1)
        except OSError as error:
            raise TextFileError(f"cannot read {what} {path}: {error.strerror or error}") from None
    if len(data) > max_bytes:
        raise TextFileError(f"{path} is over {max_bytes // (1024 * 1024)} MiB: too big for a {what}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise TextFileError(
            f"{path} is not UTF-8 text (byte {data[error.start]:#04x} at offset {error.start}); a {what} must be UTF-8"
        ) from None


def waits_for_a_reader(path: str | os.PathLike[str]) -> bool:
    """Whether writing ``path`` could wait forever: it is a FIFO or a socket (a device such as
    /dev/null, a terminal or a regular file is fine)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def data_problem(
    value: Any, max_nesting: int = MAX_NESTING, int_range: tuple[int, int] | None = INT64
) -> str | None:
    """What makes parsed ``value`` unusable, naming where (e.g. ``agents[1].options.d``), or None:
    nesting deeper than ``max_nesting``, an integer outside ``int_range`` (None: any), a float that
    is not finite, or a value of no plain type (a TOML date or time)."""
    stack: list[tuple[Any, str, int]] = [(value, "", 0)]
    while stack:
        item, where, depth = stack.pop()
        at = f" at {where}" if where else ""
        if isinstance(item, dict | list):
            if depth >= max_nesting:
                return f"nested more than {max_nesting} deep{at}"
            pairs = item.items() if isinstance(item, dict) else enumerate(item)
            for key, inner in pairs:
                step = f"[{key}]" if isinstance(item, list) else (f".{key}" if where else str(key))
                stack.append((inner, f"{where}{step}"[:200], depth + 1))
        elif isinstance(item, bool) or item is None or isinstance(item, str):
            continue
        elif isinstance(item, int):
            if int_range is not None and not int_range[0] <= item <= int_range[1]:
                return f"integer {item:.3g}{at} is out of range: integers must be within -2**63 .. 2**63-1"
        elif isinstance(item, float):
            if not math.isfinite(item):
                return f"{item}{at} is not a finite number"
        else:
            return f"a {type(item).__name__}{at} ({item!s:.40}) is not allowed here: use a string, number, boolean, array or table"
    return None

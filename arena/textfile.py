"""Reading a user's text file (ladder, record) with one clear message for every way it can fail."""

from __future__ import annotations

import os


class TextFileError(ValueError):
    """A file that cannot be read as UTF-8 text; the message names it and what is wrong."""


def read_utf8(path: str | os.PathLike[str], what: str) -> str:
    """The text of ``path``; TextFileError (naming ``what`` it should be) if unreadable or not UTF-8."""
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except IsADirectoryError:
        raise TextFileError(f"{path} is a folder, not a {what}") from None
    except OSError as error:
        raise TextFileError(f"cannot read {what} {path}: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        bad = error.object[error.start]
        raise TextFileError(
            f"{path} is not UTF-8 text (byte {bad:#04x} at offset {error.start}); a {what} must be UTF-8"
        ) from None

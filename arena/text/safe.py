"""Text a bot (or a record file) controls, made safe to print on a terminal or in a log.

A bot writes its stderr, its ``error`` message (a fault's detail) and its ``ready`` name; a record
file can say anything. Printed raw, terminal escapes in them redraw the screen (a fake result
table), set the clipboard (OSC 52) or reverse text (bidi overrides). ``printable`` shows every such
character as a visible escape instead; everything else, non-ASCII letters included, is kept.
"""

from __future__ import annotations

import re
import unicodedata

# Candidates: everything outside printable ASCII; unicodedata decides which of them are unsafe.
_SUSPECT = re.compile(r"[^\x20-\x7e\n]")
# Control (C0, DEL, C1), format (bidi overrides, zero-width), surrogate, private use and unassigned
# characters, and the line/paragraph separators: none is text a reader should see as itself.
_UNSAFE = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}
_NAMED = {"\t": "\\t", "\r": "\\r", "\n": "\\n"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if unicodedata.category(char) not in _UNSAFE:
        return char
    code = ord(char)
    if char in _NAMED:
        return _NAMED[char]
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def printable(text: object, newlines: bool = True) -> str:
    """``text`` with every control, format and separator character shown as an escape (``\\x1b``,
    ``\\u202e``); newlines are kept when ``newlines`` is true (multi-line text such as a stderr tail),
    escaped otherwise. Tabs and carriage returns are always escaped."""
    text = str(text)
    safe = _SUSPECT.sub(_escape, text)
    return safe if newlines else safe.replace("\n", _NAMED["\n"])

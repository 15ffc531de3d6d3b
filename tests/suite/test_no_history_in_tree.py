"""No tracked file speaks of the project's history: issue numbers and development sessions.

That history is in git (commit messages) and CHANGELOG.md says what changed for users; a code
comment, docstring, test or doc says what the code does and why, which a reader of the tree can
use. "Session" keeps its other meanings (a process session and setsid, an HTTP, TLS or browser
session, the wire protocol's session rules, a pytest fixture's scope): the patterns below name
only the development sense, an ordinal or a number beside the word, or "this/next/last session".
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
THIS = Path(__file__).resolve().relative_to(ROOT).as_posix()  # holds examples of both senses

ORDINAL = (
    r"(?:\w+-)?(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth"
    r"|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth"
    r"|thirtieth|fortieth|fiftieth|sixtieth|seventieth|eightieth|ninetieth|\d+(?:st|nd|rd|th))"
)
HISTORY = re.compile(
    "|".join(
        [
            r"\bissues?\s*#\s*\d+",  # an issue by number, with its hash
            r"\bissues?\s+\d+",  # ... or without
            r"issues?_\d+",  # ... or in a name (BEFORE_ISSUE_12)
            r"\bthe\s+issue's\b",  # what "the issue" asked: a ticket, not the code
            rf"\b{ORDINAL}\s+(?:development\s+)?sessions?\b",  # the nth development session
            r"\b(?:this|next|last|previous|earlier|later)\s+sessions?\b",
            r"\bsessions?\s+#?\d+\b",  # a session by number
            r"\bdevelopment\s+sessions?\b",
        ]
    ),
    re.IGNORECASE,
)


def tracked_files() -> list[str]:
    """Every file git tracks in this checkout (the suite runs from a clone, as CI does)."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60
        )
    except (OSError, subprocess.CalledProcessError) as error:
        pytest.fail(
            f"this test reads the tracked files with `git ls-files` in {ROOT}: run it in a git clone ({error})"
        )
    return [name for name in listed.stdout.decode().split("\0") if name]


def history_lines(text: str) -> list[tuple[int, str]]:
    """(line number, the words found) of each line of ``text`` that names an issue or a session."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        words = [match.group(0) for match in HISTORY.finditer(line)]
        if words:
            found.append((number, ", ".join(words)))
    return found


def test_no_tracked_file_names_an_issue_or_a_development_session():
    names = tracked_files()
    assert len(names) > 100, names  # the listing worked: the tree is several hundred files
    offending = []
    for name in names:
        path = ROOT / name
        if name == THIS or not path.is_file():  # this file; or deleted, not yet in git
            continue
        data = path.read_bytes()
        if b"\0" in data:  # a picture or another binary file
            continue
        text = data.decode("utf-8", errors="replace")
        offending += [f"{name}:{number}: {words}" for number, words in history_lines(text)]
    assert offending == [], "history belongs in git, not in the tree:\n" + "\n".join(offending)


@pytest.mark.parametrize(
    "line",
    [
        "Issue 35: the look-ahead ends with the turn.",
        "fixed in issue #12",
        "(issues 29 and 30)",
        "as the issue's target asks",
        "measured in the thirtieth session",
        "the twenty-first session's run",
        "the nineteenth and twentieth sessions' slow machine",
        "this session: none kept",
        "stopped; the next session resumes it",
        "session 59 measured it",
        "the 31st session",
        "OLD = BEFORE_ISSUE_12",
    ],
)
def test_the_development_sense_is_found(line):
    assert history_lines(line), line


@pytest.mark.parametrize(
    "line",
    [
        "The agent leads its own session (setsid), so its own process group.",
        '@pytest.fixture(scope="session")',
        "a new session keyring for the agent",
        "wire codec, session rules",
        "a TLS session resumed; the browser session's cookie",
        "the certificate's issuer name",
        "a known issue with bubblewrap on old kernels",
        "processes_in_sessions(forked)",
    ],
)
def test_the_other_senses_pass(line):
    assert history_lines(line) == [], line

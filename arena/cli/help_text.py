"""Command help that wraps to the terminal: each docstring paragraph as one line for rich to wrap.

typer (in its rich mode) keeps a docstring's line breaks, so text wrapped at ~95 columns in the
source wraps raggedly in an 80-column terminal. ``reflow`` joins each paragraph's lines; a line
that starts a list item, an example or an indented block keeps its own line.
"""

from __future__ import annotations

import inspect
import re

import typer

# a line that must stay on a line of its own: a list item, an example, an indented block
_OWN_LINE = re.compile(r"^(?:[-*] |\d+\. |Example|\s)")


def reflow(text: str) -> str:
    """``text`` (a docstring) with every paragraph's wrapped lines joined into one."""
    paragraphs = []
    for paragraph in inspect.cleandoc(text).split("\n\n"):
        lines: list[str] = []
        for line in paragraph.split("\n"):
            if lines and not _OWN_LINE.match(line):
                lines[-1] += " " + line.strip()
            else:
                lines.append(line.rstrip())
        paragraphs.append("\n".join(lines))
    return "\n\n".join(paragraphs)


def reflow_commands(app: typer.Typer) -> None:
    """Reflow the help of every command of ``app`` and of its sub-apps (before it first runs)."""
    for command in app.registered_commands:
        text = command.help or (command.callback.__doc__ if command.callback else None)
        if text:
            command.help = reflow(text)
    for group in app.registered_groups:
        if group.typer_instance is not None:
            reflow_commands(group.typer_instance)

"""Tiny helpers shared by the engines' board drawings (``engine/*/svg.py``): pure string building.

Every text is escaped here, so a drawing can never carry markup from its input. Styling is done
with presentation attributes only (no ``style=``), so the drawings pass a strict
Content-Security-Policy.
"""

from __future__ import annotations

import math
from html import escape
from typing import Any

# One colour per seat (0-3), then the neutral colour.
SEAT_COLOURS = ("#d9482b", "#2b6cd9", "#e0b422", "#3a9d4a")
NEUTRAL = "#8a8a8a"


def seat_colour(seat: int) -> str:
    """The colour of ``seat``; neutral for anything else (neutral workers, automaton-less slots)."""
    return SEAT_COLOURS[seat] if 0 <= seat < len(SEAT_COLOURS) else NEUTRAL


def rect(
    x: float, y: float, w: float, h: float, fill: str = "none", stroke: str = "#333", **extra: object
) -> str:
    """A rectangle; ``extra`` attributes are written with ``_`` as ``-`` (stroke_width=2)."""
    return f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" fill="{fill}" stroke="{stroke}"{_attrs(extra)}/>'


def circle(cx: float, cy: float, r: float, fill: str, stroke: str = "#222", **extra: object) -> str:
    """A circle."""
    return f'<circle cx="{cx:g}" cy="{cy:g}" r="{r:g}" fill="{fill}" stroke="{stroke}"{_attrs(extra)}/>'


def text(
    x: float, y: float, content: object, size: float = 11, anchor: str = "start", **extra: object
) -> str:
    """Escaped text at (x, y)."""
    return (
        f'<text x="{x:g}" y="{y:g}" font-size="{size:g}" text-anchor="{anchor}"{_attrs(extra)}>'
        f"{escape(str(content))}</text>"
    )


# Estimated advance of a character, in ems, for the sans-serif and monospace faces the drawings
# use: generous (wide letters count wide), so that text measured to fit does fit in a browser.
_NARROW = set("il.,:;'|!()[]/ 1-tfjrI")
_WIDE = set("mwMW@%#")
MONO_EM = 0.62


def text_width(content: object, size: float, mono: bool = False) -> float:
    """The estimated width in pixels of ``content`` written at font ``size``."""
    chars = str(content)
    if mono:
        return len(chars) * size * MONO_EM
    ems = sum(0.34 if c in _NARROW else 0.95 if c in _WIDE else 0.72 if c.isupper() else 0.58 for c in chars)
    return ems * size


def wrap(content: object, width: float, size: float, mono: bool = False) -> list[str]:
    """``content`` broken at spaces into lines that fit ``width`` pixels at font ``size`` (a word
    longer than a line is cut into pieces that fit)."""
    lines: list[str] = []
    line = ""
    for word in str(content).split():
        candidate = f"{line} {word}" if line else word
        if text_width(candidate, size, mono) <= width:
            line = candidate
            continue
        if line:
            lines.append(line)
        while text_width(word, size, mono) > width and len(word) > 1:
            cut = max(
                1, next(k for k in range(len(word), 0, -1) if text_width(word[:k], size, mono) <= width)
            )
            lines.append(word[:cut])
            word = word[cut:]
        line = word
    if line or not lines:
        lines.append(line)
    return lines


def text_lines(
    x: float, y: float, content: object, width: float, size: float = 9, leading: float = 1.25, **extra: Any
) -> tuple[list[str], int]:
    """``content`` wrapped to ``width`` as text elements, the first baseline at ``y``; with the
    height the lines take (``leading`` times the size each, rounded up to whole pixels)."""
    mono = extra.get("font_family") == "monospace"
    lines = wrap(content, width, size, mono)
    step = size * leading
    drawn = [text(x, y + k * step, line, size, **extra) for k, line in enumerate(lines)]
    return drawn, math.ceil(step * len(lines))


def fit_size(content: object, width: float, size: float, smallest: float = 7) -> float:
    """The largest font size up to ``size`` (down to ``smallest``) at which ``content`` fits ``width``."""
    while size > smallest and text_width(content, size) > width:
        size -= 0.5
    return size


def box(
    x: float,
    y: float,
    w: float,
    h: float,
    body: list[str],
    fill: str = "none",
    stroke: str = "#333",
    **extra: object,
) -> str:
    """A rectangle and what is drawn inside it, as one group (class "box"): the tests check that
    every text of a box lies inside its rectangle."""
    return f'<g class="box">{rect(x, y, w, h, fill, stroke, **extra)}{"".join(body)}</g>'


def title(content: object) -> str:
    """A tooltip for the enclosing group."""
    return f"<title>{escape(str(content))}</title>"


def document(width: int, height: int, body: list[str], label: str) -> str:
    """A whole SVG element sized ``width`` x ``height`` with an accessible label."""
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
        f'height="{height}" role="img" aria-label="{escape(label)}" font-family="sans-serif">'
        + "".join(body)
        + "</svg>"
    )


def _attrs(extra: dict[str, object]) -> str:
    return "".join(
        f' {key.rstrip("_").replace("_", "-")}="{escape(str(value))}"' for key, value in extra.items()
    )

"""Tiny helpers shared by the engines' board drawings (``engine/*/svg.py``): pure string building.

Every text is escaped here, so a drawing can never carry markup from its input. Styling is done
with presentation attributes only (no ``style=``), so the drawings pass a strict
Content-Security-Policy.
"""

from __future__ import annotations

from html import escape

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

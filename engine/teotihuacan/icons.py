"""Pyramid and Decoration tile icons in words, for labels, logs and the text board.

The data writes a tile's icons as letters: ``b``, ``r``, ``g`` a plain icon of the blue, red or
green temple, ``B``, ``R``, ``G`` a coloured one (it also gives a temple step), ``.`` a blank.
A person reads "coloured red, blank, green, blue" instead of ``R.gb``.
"""

from __future__ import annotations

from collections.abc import Iterable

_COLOURS = {"b": "blue", "r": "red", "g": "green"}


def icon_word(icon: str) -> str:
    """One icon in words: ``blank``, ``red`` or ``coloured red``."""
    if icon == ".":
        return "blank"
    colour = _COLOURS[icon.lower()]
    return f"coloured {colour}" if icon.isupper() else colour


def icons_text(icons: Iterable[str]) -> str:
    """A tile's icons in words, in the data's order, e.g. ``coloured red, blank, green, blue``."""
    return ", ".join(icon_word(icon) for icon in icons)

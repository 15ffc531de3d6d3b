"""Checks on the engines' board drawings: every text fits its box (estimated with the same
per-character widths the drawings wrap with, engine/svg.py) and the SVG, and no raw Python
value (a dict, a list) is shown."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from engine.svg import text_width

SVG = "{http://www.w3.org/2000/svg}"
RAW = re.compile(r"[{}]|\[\d|\[\]|\['|'\w+':")  # dict or list text: {'any_resource': 2}, [8, 19, 21], []
# a tile's icons as the data's letters (R.gb, ..): a person reads them in words (engine/teotihuacan/icons.py)
ICON_CODE = re.compile(r"(?<![\w.])(?=[rgbRGB]*\.)[rgbRGB.]{2,}(?![\w.])")
# in a label, a log line or the text board: a Python list or dict, or a pattern code
TEXT_RAW = re.compile(rf"[{{}}]|\[\]|\[\d+(?:, \d+)*\]|\['|'\w+':|{ICON_CODE.pattern}")


def raw_in_text(text: str) -> list[str]:
    """The raw values (``TEXT_RAW``) in a text a person reads."""
    return [match.group() for match in TEXT_RAW.finditer(text)]


def _extent(element: ET.Element) -> tuple[float, float, float, float]:
    """Left, right, top, bottom of a text element (estimated)."""
    size = float(element.get("font-size", "11"))
    x, y = float(element.get("x", "0")), float(element.get("y", "0"))
    width = text_width(element.text or "", size, element.get("font-family") == "monospace")
    anchor = element.get("text-anchor", "start")
    left = x - width / 2 if anchor == "middle" else x - width if anchor == "end" else x
    return left, left + width, y - size * 0.8, y + size * 0.2


def _rect(element: ET.Element) -> tuple[float, float, float, float]:
    x, y = float(element.get("x", "0")), float(element.get("y", "0"))
    return x, x + float(element.get("width", "0")), y, y + float(element.get("height", "0"))


def problems(svg: str) -> list[str]:
    """Every text that overflows its box or the picture, or shows a raw Python value."""
    root = ET.fromstring(svg)
    bounds = (0.0, float(root.get("width", "0")), 0.0, float(root.get("height", "0")))
    found: list[str] = []

    def visit(element: ET.Element, box: tuple[float, float, float, float]) -> None:
        if element.tag == f"{SVG}g" and "box" in (element.get("class") or "").split():
            first = element.find(f"{SVG}rect")
            assert first is not None, "a box group starts with its rectangle"
            box = _rect(first)
            if box[0] < bounds[0] or box[1] > bounds[1] or box[2] < bounds[2] or box[3] > bounds[3]:
                found.append(f"a box {box} reaches out of the picture {bounds}")
        if element.tag == f"{SVG}text":
            content = element.text or ""
            left, right, top, bottom = _extent(element)
            tolerance = 1.0
            if left < box[0] - tolerance or right > box[1] + tolerance:
                found.append(f"wider than its box {box[:2]}: {content!r} spans {left:.0f}-{right:.0f}")
            if top < box[2] - tolerance or bottom > box[3] + tolerance:
                found.append(f"outside its box {box[2:]} vertically: {content!r} at {top:.0f}-{bottom:.0f}")
            if RAW.search(content) or ICON_CODE.search(content):
                found.append(f"raw value shown: {content!r}")
        for child in element:
            visit(child, box)

    visit(root, bounds)
    return found


def shown_text(picture: str) -> str:
    """Every text of a drawing, its wrapped lines joined again by spaces."""
    return " ".join(
        element.text or "" for element in ET.fromstring(picture).iter("{http://www.w3.org/2000/svg}text")
    )

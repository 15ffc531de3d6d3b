"""The score sheet of a finished match, for a game that declares the ``score_sheet`` capability
(engine/api.py): each seat's points by category (``Result.details["breakdown"]``) and its score
after each round or Eclipse (``"timeline"``), read from the replayed last position, so a record
stored before the engines kept them shows them too."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.web.charts import score_chart
from engine.api import Game, State, capabilities

# Category names that read better spelt out than with their underscores replaced.
_LABELS = {
    "eclipse_avenue": "Eclipse: Avenue",
    "eclipse_pyramid": "Eclipse: Pyramid track",
    "eclipse_masks": "Eclipse: masks",
    "salary": "Eclipse: salary not paid",
    "sacrifice_track": "Sacrifice track (end)",
    "sacrifice_steps": "Sacrifice track steps",
    "trade_tiles": "Trade tiles (Cocijobot, end)",
    "rituals": "Rituals (end)",
    "pyramids": "Pyramids (end)",
}


def category_label(name: str) -> str:
    """A category key as a person reads it: "turn_scoring_round_2" -> "Turn scoring round 2"."""
    return _LABELS.get(name) or name.replace("_", " ").capitalize()


def _sheet_position(name: str, order: list[str]) -> tuple[int, int]:
    """Where a category stands on the sheet: numbered ones ("turn_scoring_round_3") together, by
    number, where the first of them appeared; the others where they appeared."""
    stem, _, number = name.rpartition("_")
    if stem and number.isdigit():
        first = next(i for i, other in enumerate(order) if other.rpartition("_")[0] == stem)
        return first, int(number)
    return order.index(name), 0


def score_sheet(game: Game, last: State, names: Sequence[str]) -> dict[str, Any] | None:
    """The sheet of the match of ``game`` ending in ``last`` (None while it is not over, or when
    the game declares no score sheet, or its result holds none): ``categories`` in the engine's
    order with one value per seat, the ``scores``, the ``timeline`` and the seats' ``names``."""
    if not capabilities(game).score_sheet or not last.terminal():
        return None
    result = last.result()
    breakdown = result.details.get("breakdown")
    if not isinstance(breakdown, list) or len(breakdown) != len(result.scores):
        return None
    order: list[str] = []
    for sheet in breakdown:
        order.extend(name for name in sheet if name not in order)
    seen = list(order)  # list.sort empties the list it sorts while it runs
    order.sort(key=lambda name: _sheet_position(name, seen))
    seats = range(len(result.scores))
    return {
        "names": [names[s] if s < len(names) else f"seat {s}" for s in seats],
        "categories": [
            {
                "name": name,
                "label": category_label(name),
                "points": [int(breakdown[s].get(name, 0)) for s in seats],
            }
            for name in order
        ],
        "scores": list(result.scores),
        "timeline": list(result.details.get("timeline") or []),
    }


def sheet_chart(sheet: dict[str, Any]) -> str:
    """The score-over-time chart of a ``score_sheet``."""
    return score_chart(sheet["timeline"], sheet["names"])

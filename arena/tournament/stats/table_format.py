"""How a leaderboard reads: its columns, their headers and number formats, for `arena leaderboard`
and the web's ladder page alike (the JSON rows keep their keys and full figures).

A rated ladder shows the conservative TrueSkill rating, mu and sigma to 0.01, the MLE Elo to 0.1
with its 95% interval in whole Elo; a solo ladder its margins signed to 0.01 and its win rate in
per cent. A figure that rounds to zero never shows a minus sign (``-0.00``); a missing one is ``-``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Row = Mapping[str, Any]
MISSING = "-"
RETIRED = " (retired)"


def fixed(value: float | None, spec: str) -> str:
    """``value`` formatted with ``spec`` (``".2f"``, ``"+.1f"``), with no sign on a zero and ``-`` for None."""
    if value is None:
        return MISSING
    text = format(value, spec)
    if text.lstrip("+-").strip("0.") == "":  # rounds to zero: "-0.00" and "+0.00" read as "0.00"
        return text.lstrip("+-")
    return text


def interval(low: float | None, high: float | None, digits: int = 0) -> str:
    """``[low, high]`` signed to ``digits`` decimals, or ``-`` when either end is missing."""
    if low is None or high is None:
        return MISSING
    return f"[{fixed(low, f'+.{digits}f')}, {fixed(high, f'+.{digits}f')}]"


def percent(value: float | None) -> str:
    """A rate in [0, 1] as a percentage to 0.1 (``75.0%``)."""
    return MISSING if value is None else f"{100 * value:.1f}%"


def percent_interval(low: float | None, high: float | None) -> str:
    """A rate's interval as percentages, e.g. ``[12.5, 40.0]``."""
    return MISSING if low is None or high is None else f"[{100 * low:.1f}, {100 * high:.1f}]"


@dataclass(frozen=True)
class Column:
    """One column of a leaderboard: its header, its cell's text, what it sorts by, its alignment."""

    header: str
    text: Callable[[Row], str]
    value: Callable[[Row], Any]
    numeric: bool = True
    wide: bool = False  # shown by `arena leaderboard --wide` (and on the page), left out of 100 columns


def _number(key: str, spec: str, wide: bool = False) -> Column:
    return Column(
        key.replace("_", " "), lambda row: fixed(row.get(key), spec), lambda row: row.get(key), wide=wide
    )


def _count(key: str, header: str | None = None) -> Column:
    return Column(
        header or key,
        lambda row: MISSING if row.get(key) is None else str(row[key]),
        lambda row: row.get(key),
    )


def _agent(row: Row) -> str:
    return str(row["agent"]) + (RETIRED if row.get("retired") else "")


AGENT = Column("agent", _agent, lambda row: row["agent"], numeric=False)

RATED = (
    _count("rank"),
    AGENT,
    _number("rating", ".2f"),
    _number("mu", ".2f", wide=True),
    _number("sigma", ".2f", wide=True),
    Column("MLE Elo", lambda row: fixed(row.get("mle"), ".1f"), lambda row: row.get("mle")),
    Column(
        "95% interval",
        lambda row: (
            interval(row.get("mle_low"), row.get("mle_high")) + (" ?" if row.get("uncertain") else "")
        ),
        lambda row: row.get("mle_low"),
        numeric=False,
    ),
    _count("matches"),
    _count("wins"),
    _number("mean_score", ".2f"),
    _count("faults"),
)

SOLO = (
    _count("rank"),
    AGENT,
    _number("mean_margin", "+.2f"),
    Column(
        "95% interval",
        lambda row: interval(row.get("margin_low"), row.get("margin_high"), 1),
        lambda row: row.get("margin_low"),
        numeric=False,
    ),
    Column("gap to above", lambda row: fixed(row.get("gap_above"), "+.2f"), lambda row: row.get("gap_above")),
    Column(
        "95% interval",
        lambda row: interval(row.get("gap_low"), row.get("gap_high"), 1),
        lambda row: row.get("gap_low"),
        numeric=False,
        wide=True,
    ),
    _number("mean_score", ".2f", wide=True),
    Column("win rate", lambda row: percent(row.get("win_rate")), lambda row: row.get("win_rate")),
    Column(
        "95% interval (Wilson)",
        lambda row: percent_interval(row.get("win_low"), row.get("win_high")),
        lambda row: row.get("win_low"),
        numeric=False,
        wide=True,
    ),
    Column("deals", lambda row: str(row.get("deals", MISSING)), lambda row: row.get("deals"), wide=True),
    _count("faults"),
)


def columns(solo: bool, wide: bool = True) -> tuple[Column, ...]:
    """The leaderboard's columns: a solo ladder's (margins against the automaton) or a rated one's;
    all of them when ``wide``, else those that fit a 100-column terminal."""
    return tuple(column for column in (SOLO if solo else RATED) if wide or not column.wide)


def cells(rows: Sequence[Row], solo: bool, wide: bool = True) -> list[list[str]]:
    """Each row's cells as text, in ``columns(solo, wide)`` order."""
    chosen = columns(solo, wide)
    return [[column.text(row) for column in chosen] for row in rows]

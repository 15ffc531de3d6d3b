"""How long a search bot may think on one decision, from the clock the referee announces.

The referee allows ``move_ms`` per decision plus what is left of the game's bank; time over
``move_ms`` is taken from the bank. A bot that answers late forfeits, so it spends a safe share:
half of ``move_ms`` plus a small slice of the bank, minus a margin for the answer's trip.
Also the checks of the search bots' agent options (an int, a number, one of a few words), so
that a bad option is one clear error naming it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

MOVE_SHARE = 0.5
BANK_SHARE = 1 / 60  # a game has a few hundred decisions; a sixtieth at a time leaves plenty
MARGIN_MS = 20.0  # messages, observation rebuild, garbage collection
MIN_MS = 1.0


def think_ms(clock: Mapping[str, Any]) -> float:
    """Milliseconds to think on a decision with this ``clock`` ({move_ms, bank_ms_left})."""
    move = float(clock.get("move_ms", 1000))
    bank = float(clock.get("bank_ms_left", clock.get("bank_ms", 0)))
    return max(MIN_MS, MOVE_SHARE * move + BANK_SHARE * bank - MARGIN_MS)


def int_option(
    options: Mapping[str, Any], name: str, bot: str, default: int | None, least: int = 1
) -> int | None:
    """Agent option ``name`` checked as an int >= ``least`` (or absent: ``default``)."""
    value = options.get(name, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ValueError(f"{bot}: agent option {name!r} must be an int >= {least}, got {value!r}")
    return value


def number(
    options: Mapping[str, Any],
    name: str,
    bot: str,
    default: float,
    valid: Callable[[float], bool],
    expected: str,
) -> float:
    """Agent option ``name`` checked as a number for which ``valid`` holds (or absent: ``default``);
    ``expected`` says which numbers, for the error."""
    value = options.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not valid(value):
        raise ValueError(f"{bot}: agent option {name!r} must be {expected}, got {value!r}")
    return float(value)


def choice_option(
    options: Mapping[str, Any], name: str, bot: str, default: str, choices: Sequence[str]
) -> str:
    """Agent option ``name`` checked as one of ``choices`` (or absent: ``default``)."""
    value = options.get(name, default)
    if value not in choices:
        raise ValueError(f"{bot}: agent option {name!r} must be one of {list(choices)}, got {value!r}")
    return str(value)

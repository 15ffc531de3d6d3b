"""How long a search bot may think on one decision, from the clock the referee announces.

The referee allows ``move_ms`` per decision plus what is left of the game's bank; time over
``move_ms`` is taken from the bank. A bot that answers late forfeits, so it spends a safe share:
half of ``move_ms`` plus a small slice of the bank, minus a margin for the answer's trip.
"""

from __future__ import annotations

from collections.abc import Mapping
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

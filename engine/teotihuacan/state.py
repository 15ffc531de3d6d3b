"""The Teotihuacan State of ``engine.api``: the core (core.py) plus the views of it.

The views (what a seat may know, the text of the board and of the log) live in observation.py
and render.py, which build on the core; this module sits above all three.
"""

from __future__ import annotations

from random import Random

from .core import TeoCore
from .observation import observe, resample
from .render import event_text, render


class TeoState(TeoCore):
    """A Teotihuacan game in progress: the core and its views."""

    def observation(self, seat: int) -> dict:
        """What ``seat`` may know (see observation.py)."""
        return observe(self, seat)

    def determinize(self, seat: int, rng: Random) -> TeoState:
        """A clone with everything hidden from ``seat`` resampled with ``rng``."""
        new = self.clone()
        resample(new, seat, rng)
        return new

    def log(self) -> list[dict]:
        """The choices made since setup, as readable events."""
        return [event_text(self, e) for e in self.events]

    def render(self) -> str:
        """The board as plain text."""
        return render(self)

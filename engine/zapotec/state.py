"""The Zapotec State of ``engine.api``: the core (core.py) plus its decisions, result and views.

The rule modules (turn, scoring) and the views (observation, render) build on the core; this
module sits above them all, so no rule module imports it.
"""

from __future__ import annotations

from random import Random

from engine.api import Decision, IllegalAction, Result

from . import observation as observation_mod
from . import render as render_mod
from . import scoring, turn
from .core import ZapotecCore


class ZapotecState(ZapotecCore):
    """A Zapotec game in progress (see engine.api.State for the contract and core.py for the fields)."""

    __slots__ = ()

    def decision(self, seat: int) -> Decision:
        """The decision ``seat`` faces now."""
        cache = self._cache
        if cache is not None and cache[0] == seat:
            return cache[1]
        if seat not in self.to_act():
            raise IllegalAction(f"seat {seat} does not act now (to act: {list(self.to_act())})")
        decision = turn.decision(self, seat)
        self._cache = (seat, decision)
        return decision

    def option_count(self, seat: int) -> int:
        """How many options ``decision(seat)`` offers (engine.playout.option_count). Zapotec's
        apply takes the option dicts themselves, so this builds the Decision (cached for apply)."""
        return len(self.decision(seat).options)

    def apply(self, seat: int, choice: int) -> None:
        """Apply option ``choice`` of ``decision(seat)``."""
        options = self.decision(seat).options
        if isinstance(choice, bool) or not isinstance(choice, int) or not 0 <= choice < len(options):
            raise IllegalAction(f"choice {choice!r} is not an option index 0..{len(options) - 1}")
        self._cache = None
        turn.apply(self, seat, options[choice])

    def observation(self, seat: int) -> dict:
        """What ``seat`` may know (see observation.py)."""
        return observation_mod.observe(self, seat)

    def result(self) -> Result:
        """Final scores, ranks after the Sacrifice-track tie-break, and the per-seat breakdown."""
        if self.step != "over":
            raise ValueError("the game is not over yet")
        return scoring.result(self)

    def determinize(self, seat: int, rng: Random) -> ZapotecState:
        """A clone with what ``seat`` cannot see resampled with ``rng``."""
        return observation_mod.determinize(self, seat, rng)

    def render(self) -> str:
        """The position as plain text."""
        return render_mod.render(self)

"""The game state: plain lists and ints only, so that ``clone`` is a handful of list copies."""

from __future__ import annotations

from random import Random
from typing import Any

from engine.api import Decision, IllegalAction, Result

from . import observation as observation_mod
from . import render as render_mod
from . import scoring, turn
from .data import ZapotecData, load

# Fields copied by reference (ints, strs, immutables), as a one-level list copy, or as a list of lists.
_SCALAR = (
    "data", "options", "players", "seats", "solo", "difficulty", "round", "step", "current",
    "turn_pos", "sac_clock", "cj_card", "cj_pyramid", "sel_space", "sel_tile", "sel_trade",
    "final", "in_play", "version",
)  # fmt: skip
_LIST = (
    "score", "houses_left", "palace", "palace_tile", "sac", "sac_order", "built_pieces",
    "rituals_counted", "picks", "order", "space_tile", "space_owner", "scoring_avail", "pyr_tile",
    "ritual_cards", "bonus", "offer", "deck", "removed", "discard", "cj_deck", "cj_flipped",
    "cj_tiles", "pending", "events",
)  # fmt: skip
_NESTED = (
    "res", "grid", "houses", "tiles_owned", "tiles_down", "bought", "pieces", "pyr_this_round",
    "hands", "known_hand", "stacks", "display", "pyr_pieces", "ritual_discs", "box",
)  # fmt: skip


class ZapotecState:
    """A Zapotec game in progress (see engine.api.State for the contract).

    Seats 0..players-1 are agents; in solo, seat 1 is Cocijobot and never in ``to_act()``.
    ``step`` names the pending decision: pick, income, capital, resource, free-ritual, build,
    build-kind, tile-space, grid, score-card, draw, over.
    """

    __slots__ = _SCALAR + _LIST + _NESTED + ("rng", "_cache")

    def __init__(self) -> None:
        self._cache: tuple[int, Decision] | None = None

    # ---------------------------------------------------------------- contract
    def to_act(self) -> tuple[int, ...]:
        """Seats deciding now: every seat still to pick in phase 1, else the active seat."""
        if self.step == "over":
            return ()
        if self.step == "pick":
            return tuple(s for s in range(self.players) if self.picks[s] < 0)
        return (self.current,)

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

    def terminal(self) -> bool:
        """True once the five rounds and the final scoring are done."""
        return self.step == "over"

    def result(self) -> Result:
        """Final scores, ranks after the Sacrifice-track tie-break, and the per-seat breakdown."""
        if self.step != "over":
            raise ValueError("the game is not over yet")
        return scoring.result(self)

    def clone(self) -> ZapotecState:
        """An independent copy: scalars shared, lists copied one or two levels deep."""
        other = ZapotecState.__new__(ZapotecState)
        for name in _SCALAR:
            setattr(other, name, getattr(self, name))
        for name in _LIST:
            setattr(other, name, getattr(self, name)[:])
        for name in _NESTED:
            setattr(other, name, [inner[:] for inner in getattr(self, name)])
        rng = Random()
        rng.setstate(self.rng.getstate())
        other.rng = rng
        other._cache = self._cache
        return other

    def determinize(self, seat: int, rng: Random) -> ZapotecState:
        """A clone with what ``seat`` cannot see resampled with ``rng``."""
        return observation_mod.determinize(self, seat, rng)

    def log(self) -> list[dict]:
        """Events since setup, each with a human-readable "text"."""
        return list(self.events)

    def render(self) -> str:
        """The position as plain text."""
        return render_mod.render(self)

    # ---------------------------------------------------------------- helpers
    def event(self, text: str, **fields: Any) -> None:
        """Record a log event for the active round."""
        entry = {"round": self.round, "text": text}
        entry.update(fields)
        self.events.append(entry)

    @property
    def d(self) -> ZapotecData:
        return self.data


def blank_state() -> ZapotecState:
    """A state with every field present and empty (filled by setup or from_observation)."""
    state = ZapotecState()
    state.data = load()
    for name in _SCALAR:
        if name != "data":
            setattr(state, name, None)
    for name in _LIST + _NESTED:
        setattr(state, name, [])
    state.rng = Random(0)
    return state

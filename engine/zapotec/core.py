"""The game state's core: plain lists and ints only, so that ``clone`` is a handful of list
copies, plus the helpers every rule module uses. ``state.ZapotecState`` adds the decisions,
the result and the views, so that the rule modules import this module and nothing imports
upward."""

from __future__ import annotations

from random import Random
from typing import Any, Self

from engine.api import Decision

from .data import ZapotecData

GAME_ID = "zapotec"

# Fields copied by reference (ints, strs, immutables), as a one-level list copy, or as a list of lists.
SCALAR_FIELDS = (
    "data", "options", "players", "seats", "solo", "difficulty", "round", "step", "current",
    "turn_pos", "sac_clock", "cj_card", "cj_pyramid", "sel_space", "sel_tile", "sel_trade",
    "final", "in_play", "version", "keep_log",
)  # fmt: skip
LIST_FIELDS = (
    "score", "houses_left", "palace", "palace_tile", "sac", "sac_order", "built_pieces",
    "rituals_counted", "picks", "order", "space_tile", "space_owner", "scoring_avail", "pyr_tile",
    "ritual_cards", "bonus", "offer", "deck", "removed", "discard", "cj_deck", "cj_flipped",
    "cj_tiles", "pending", "events", "marks",
)  # fmt: skip
NESTED_FIELDS = (
    "res", "grid", "houses", "tiles_owned", "tiles_down", "bought", "pieces", "pyr_this_round",
    "hands", "known_hand", "stacks", "display", "pyr_pieces", "ritual_discs", "box", "sheet",
)  # fmt: skip


class ZapotecCore:
    """A Zapotec game in progress, without its decisions and views (state.ZapotecState).

    Seats 0..players-1 are agents; in solo, seat 1 is Cocijobot and never in ``to_act()``.
    ``step`` names the pending decision: pick, income, capital, resource, free-ritual, build,
    build-kind, tile-space, grid, score-card, draw, over.
    """

    game_id = GAME_ID
    __slots__ = SCALAR_FIELDS + LIST_FIELDS + NESTED_FIELDS + ("rng", "_cache")

    # The fields' types (annotations only: the slots above hold the values; setup.py fills them).
    # Scalars
    data: ZapotecData
    options: dict[str, Any]
    players: int  # agent seats
    seats: int  # players, plus Cocijobot's seat in solo
    solo: bool
    difficulty: str
    round: int
    step: str
    current: int
    turn_pos: int
    sac_clock: int
    cj_card: int
    cj_pyramid: int
    sel_space: int
    sel_tile: int
    sel_trade: int
    final: list[dict[str, int]] | None  # per seat, once the game is scored
    in_play: tuple[bool, ...]  # per board space
    version: str
    keep_log: bool  # False in a search's samples: ``event`` records nothing
    rng: Random
    # Lists (per seat, per space, or piles of card and tile indices)
    score: list[int]
    houses_left: list[int]
    palace: list[int]
    palace_tile: list[int]
    sac: list[int]
    sac_order: list[int]
    built_pieces: list[int]
    rituals_counted: list[int]
    picks: list[int]
    order: list[int]
    space_tile: list[int]
    space_owner: list[int]
    scoring_avail: list[int]
    pyr_tile: list[int]
    ritual_cards: list[int]
    bonus: list[int]
    offer: list[int]
    deck: list[int]
    removed: list[int]
    discard: list[int]
    cj_deck: list[int]
    cj_flipped: list[int]
    cj_tiles: list[int]
    pending: list[str]
    events: list[dict[str, Any]]
    # Lists of lists
    res: list[list[int]]
    grid: list[list[int]]
    houses: list[list[int]]
    tiles_owned: list[list[int]]
    tiles_down: list[list[int]]
    bought: list[list[int]]
    pieces: list[list[int]]
    pyr_this_round: list[list[int]]
    hands: list[list[int]]
    known_hand: list[list[int]]
    stacks: list[list[int]]
    display: list[list[int]]
    pyr_pieces: list[list[int]]
    ritual_discs: list[list[int]]
    box: list[list[int]]
    sheet: list[list[int]]  # per seat, VP per turn-scoring round then per category (rules.add_vp)
    marks: list[tuple[str, tuple[int, ...]]]  # (label, every seat's score) after each round (the chart)

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

    def terminal(self) -> bool:
        """True once the five rounds and the final scoring are done."""
        return self.step == "over"

    def clone(self) -> Self:
        """An independent copy: scalars shared, lists copied one or two levels deep."""
        cls = type(self)
        other = cls.__new__(cls)
        for name in SCALAR_FIELDS:
            setattr(other, name, getattr(self, name))
        for name in LIST_FIELDS:
            setattr(other, name, getattr(self, name)[:])
        for name in NESTED_FIELDS:
            setattr(other, name, [inner[:] for inner in getattr(self, name)])
        # All chance is dealt at setup (the decks are shuffled then): play never draws from
        # ``rng``, so a clone shares it instead of copying its 625-word state.
        other.rng = self.rng
        other._cache = self._cache
        return other

    def log(self) -> list[dict]:
        """Events since setup, each with a human-readable "text"."""
        return list(self.events)

    # ---------------------------------------------------------------- helpers
    def event(self, text: str, **fields: Any) -> None:
        """Record a log event for the active round (unless no log is kept: a search's samples)."""
        if not self.keep_log:
            return
        entry = {"round": self.round, "text": text}
        entry.update(fields)
        self.events.append(entry)

    @property
    def d(self) -> ZapotecData:
        return self.data

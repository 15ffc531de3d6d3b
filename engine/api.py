"""The contract between rules engines and everything around them.

An engine module exposes a ``Game``; ``Game.setup`` returns a ``State``. A turn is broken into
small ``Decision`` objects: every option offered is legal and every legal choice is offered.
All chance comes from one ``random.Random`` owned by the state, so the same game id, version,
seed, options and choices reproduce the same game bit for bit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from random import Random
from typing import Any, Protocol, runtime_checkable

# Re-exported: a game's option schema and its check (engine/options.py, shared with agents' options).
from engine.options import BadOptions as BadOptions
from engine.options import validate_options as validate_options


class IllegalAction(ValueError):
    """A choice that is not one of the options of the seat's current decision."""


@dataclass(frozen=True)
class Decision:
    """One small decision for one seat.

    ``kind`` names the decision ("turn", "worship-space", "choose-card", ...), ``prompt`` is one
    line a person understands, ``options`` are msgpack-able dicts each with a short "label".
    """

    kind: str
    prompt: str
    options: tuple[dict, ...]


@dataclass(frozen=True)
class Result:
    """The end of a game: per-seat scores and ranks (1 = best, equal ranks = a true tie)."""

    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    details: Mapping[str, Any] = field(default_factory=dict)


@runtime_checkable
class State(Protocol):
    """A game in progress. Seats are 0-based; automaton seats never appear in ``to_act``."""

    def to_act(self) -> tuple[int, ...]:
        """Seats that must decide now; several = simultaneous; () = the game is over."""

    def decision(self, seat: int) -> Decision:
        """The decision ``seat`` faces now (``seat`` must be in ``to_act()``)."""

    def apply(self, seat: int, choice: int) -> None:
        """Apply option ``choice`` of ``decision(seat)``; raises IllegalAction otherwise."""

    def observation(self, seat: int) -> dict:
        """Everything ``seat`` may know, msgpack-able, enough for ``Game.from_observation``."""

    def terminal(self) -> bool:
        """True once the game is over."""

    def result(self) -> Result:
        """Scores and ranks; only valid when ``terminal()``."""

    def clone(self) -> State:
        """A cheap, independent copy (for search bots)."""

    def determinize(self, seat: int, rng: Random) -> State:
        """A clone with everything hidden from ``seat`` resampled with ``rng``."""

    def log(self) -> list[dict]:
        """Human-readable events since setup."""

    def render(self) -> str:
        """The position as plain text a person can follow (used by `arena replay`)."""


@runtime_checkable
class Game(Protocol):
    """A rules engine, registered with the arena through the ``tlachtli_games`` hook."""

    id: str
    version: str
    min_players: int
    max_players: int
    automata: tuple[str, ...]

    def setup(self, players: int, seed: int, options: Mapping[str, Any]) -> State:
        """A new game for ``players`` agent seats (an automaton, if any, takes the next seat)."""

    def option_schema(self) -> Mapping[str, Any]:
        """The options this game accepts, in the format checked by ``validate_options``."""

    def from_observation(self, observation: dict, rng: Random) -> State:
        """A full state consistent with one seat's observation, hidden parts sampled with rng."""


def competition_ranks(keys: Sequence[Any]) -> tuple[int, ...]:
    """Ranks (1 = best) from per-seat sort keys, higher key better; equal keys share a rank."""
    ranks = []
    for key in keys:
        ranks.append(1 + sum(1 for other in keys if other > key))
    return tuple(ranks)

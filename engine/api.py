"""The contract between rules engines and everything around them.

An engine module exposes a ``Game``; ``Game.setup`` returns a ``State``. A turn is broken into
small ``Decision`` objects: every option offered is legal and every legal choice is offered.
All chance comes from one ``random.Random`` owned by the state, so the same game id, version,
seed, options and choices reproduce the same game bit for bit.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
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


@dataclass(frozen=True)
class Capabilities:
    """The optional things a game offers beyond ``Game`` and ``State``, declared by the game as
    ``capabilities = Capabilities(...)`` and checked when it registers. Each is None (or False)
    where the game has none; a function that takes a state is given one of this game's states.

    - ``picture(state, viewer, names)``: the position as an SVG document, as seat ``viewer`` sees it
      (None: everything), ``names`` the seats' names (possibly empty); the web pages draw it, and
      show ``State.render``'s text where a game has none.
    - ``phase(state)``: the part of the game the position is in ("Round 3"), a heading the match
      viewer groups moves under.
    - ``score_sheet``: ``Result.details`` holds ``"breakdown"`` (per seat, category -> points) and
      ``"timeline"`` (the scores over the game), drawn as the match page's score sheet.
    - ``from_observation``: ``Game.from_observation`` rebuilds a state from an observation (a game
      without it raises NotImplementedError there): what the search bots play from, and how a
      human seat's page draws the board its seat sees.
    - ``observation_sampler(observation)``: ``rng -> state``, the states
      ``from_observation(observation, rng)`` makes, made faster for a search that samples one
      observation many times (a log need not be kept).
    - ``observation_vector(observation)``: the observation as a fixed-length sequence of numbers
      (the reinforcement-learning environment's ``observation``, arena/match/envs.py).
    - ``option_count(state, seat)`` and ``option_labels(state, seat)``: ``len(decision.options)``
      and the options' labels, without building the Decision (playouts need only the number,
      a search keys its tree by the labels).
    """

    picture: Callable[[Any, int | None, Sequence[str]], str] | None = None
    phase: Callable[[Any], str] | None = None
    score_sheet: bool = False
    from_observation: bool = False
    observation_sampler: Callable[[dict], Callable[[Random], State]] | None = None
    observation_vector: Callable[[dict], Sequence[float]] | None = None
    option_count: Callable[[Any, int], int] | None = None
    option_labels: Callable[[Any, int], list[str]] | None = None

    def offered(self) -> tuple[str, ...]:
        """The names of the capabilities declared, in declaration order."""
        return tuple(spec.name for spec in fields(self) if getattr(self, spec.name))


NO_CAPABILITIES = Capabilities()
# What each function capability is called with (its shape, checked at registration).
_PARAMETERS: dict[str, tuple[str, ...]] = {
    "picture": ("state", "viewer", "names"),
    "phase": ("state",),
    "observation_sampler": ("observation",),
    "observation_vector": ("observation",),
    "option_count": ("state", "seat"),
    "option_labels": ("state", "seat"),
}


def capabilities(game: Game) -> Capabilities:
    """What ``game`` declares (``NO_CAPABILITIES`` for a game that declares none)."""
    declared = getattr(game, "capabilities", NO_CAPABILITIES)  # optional: older engines have none
    return declared if isinstance(declared, Capabilities) else NO_CAPABILITIES


def capability_problem(game: Game) -> str | None:
    """Why ``game``'s declared capabilities cannot be used (one line), or None: a declaration
    that is not a ``Capabilities``, a capability that is not callable or does not take what it
    is given, or ``from_observation`` declared by a game without that method."""
    declared = getattr(game, "capabilities", NO_CAPABILITIES)
    if not isinstance(declared, Capabilities):
        return f"its capabilities are {type(declared).__name__}, not engine.api.Capabilities"
    for name, parameters in _PARAMETERS.items():
        function = getattr(declared, name)
        if function is None:
            continue
        if not callable(function):
            return f"capability {name!r} is {function!r}, not a function"
        try:
            inspect.signature(function).bind(*parameters)
        except TypeError:
            return (
                f"capability {name!r} must take ({', '.join(parameters)}), not {inspect.signature(function)}"
            )
        except ValueError:
            pass  # a builtin without a signature to read: taken on trust
    if declared.from_observation and not callable(getattr(game, "from_observation", None)):
        return "declares from_observation but has no from_observation method"
    return None


@runtime_checkable
class Game(Protocol):
    """A rules engine, registered with the arena through the ``tlachtli_games`` hook. A game may
    declare what it offers beyond this as ``capabilities`` (a ``Capabilities``)."""

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
        """A full state consistent with one seat's observation, hidden parts sampled with rng
        (a game without it raises NotImplementedError and leaves ``from_observation`` undeclared)."""


def competition_ranks(keys: Sequence[Any]) -> tuple[int, ...]:
    """Ranks (1 = best) from per-seat sort keys, higher key better; equal keys share a rank."""
    ranks = []
    for key in keys:
        ranks.append(1 + sum(1 for other in keys if other > key))
    return tuple(ranks)

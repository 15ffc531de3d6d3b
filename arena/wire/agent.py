"""The base class of Python bots, and a typed view of what they receive.

``arena.wire.host`` speaks the wire protocol on a bot's behalf and calls ``setup(hello)``,
``act(observation, decision)`` and ``end(result)`` with the protocol's messages as plain dicts
(docs/protocol.md). ``Hello.from_wire`` and ``DecisionView.from_wire`` read the same messages as
frozen, typed objects, for bots that prefer ``decision.options[0].label`` to dict lookups.
(``DecisionView`` is the agent's view of a ``decide`` message; ``engine.api.Decision`` is the
engine's decision it was made from.) Bot authors import all of this from ``arena.bot``.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any


class Agent:
    """Subclass this and override ``act`` (and ``setup``/``end`` if needed).

    One instance plays one seat of one match. ``hello`` is the protocol's hello message (game,
    game_version, seat, players, options, clock, agent_options).
    """

    name: str = "agent"
    version: str = "0"
    _info: str | None = None  # set by ``explain`` during ``act``, taken with the answer

    def setup(self, hello: dict[str, Any]) -> None:
        """Called once before the first decision."""

    def act(self, observation: dict[str, Any], decision: dict[str, Any]) -> int | Answer:
        """Return the index of the chosen option in ``decision["options"]``, or an ``Answer``
        (the index with a short ``info`` text shown beside the move: an evaluation, a plan)."""
        raise NotImplementedError

    def end(self, result: dict[str, Any]) -> None:
        """Called once when the match is over (``result`` holds scores and ranks)."""

    def explain(self, info: str) -> None:
        """Attach a short ``info`` text (an evaluation, visits, a plan) to the answer ``act`` is
        making: it is stored with the move and shown beside it on the match page (as
        ``Answer.info``; docs/protocol.md)."""
        self._info = info

    def take_info(self) -> str | None:
        """The info text ``explain`` attached to the answer just made, forgotten once taken."""
        info, self._info = self._info, None
        return info


@dataclass(frozen=True)
class Answer:
    """A choice with the bot's own view of it: ``info`` is a short text (an evaluation, visits, a
    principal variation) stored with the move in the record and shown beside it on the match
    page; the referee keeps its first 2048 characters, control characters escaped."""

    choice: int
    info: str = ""


def split_answer(agent: Any, answer: Any) -> tuple[Any, str | None]:
    """(choice, info) of what ``agent.act`` returned: an ``Answer``, or a bare choice with the
    text the agent gave ``explain`` while deciding, if any."""
    take = getattr(agent, "take_info", None)
    explained = take() if callable(take) else None
    if isinstance(answer, Answer):
        return answer.choice, answer.info
    return answer, explained


@dataclass(frozen=True)
class Clock:
    """A decision's clock: ``move_ms`` per decision, then ``bank_ms_left`` of the game's bank."""

    move_ms: int
    bank_ms_left: int


@dataclass(frozen=True)
class Option:
    """One legal choice: its ``index`` (what ``act`` returns), its ``label``, and the game's ``fields``.

    ``fields`` is the option as the engine wrote it (read-only), label included, e.g.
    ``{"label": "bid 2", "card": 2}``; ``option["card"]`` reads one field.
    """

    index: int
    label: str
    fields: Mapping[str, Any]

    def __getitem__(self, key: str) -> Any:
        return self.fields[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.fields.get(key, default)


@dataclass(frozen=True)
class DecisionView:
    """A ``decide`` message, typed: what to decide (``kind``, ``prompt``), among which ``options``.

    ``observation`` is everything the seat may know now (game specific: see the game's docs),
    ``id`` the decision's protocol id (``arena.wire.host`` echoes it for you).
    """

    id: int
    kind: str
    prompt: str
    options: tuple[Option, ...]
    clock: Clock
    observation: Mapping[str, Any]

    @classmethod
    def from_wire(cls, decide: Mapping[str, Any]) -> DecisionView:
        """The typed view of a ``decide`` message (the ``decision`` argument of ``Agent.act``)."""
        options = tuple(
            Option(i, str(raw.get("label", "")), MappingProxyType(dict(raw)))
            for i, raw in enumerate(decide["options"])
        )
        clock = decide["clock"]
        return cls(
            id=decide["id"],
            kind=decide["kind"],
            prompt=decide["prompt"],
            options=options,
            clock=Clock(clock["move_ms"], clock["bank_ms_left"]),
            observation=MappingProxyType(decide["obs"]),
        )

    def option(self, label: str) -> Option:
        """The option with this label; KeyError naming the labels offered if there is none."""
        for option in self.options:
            if option.label == label:
                return option
        raise KeyError(f"no option {label!r} in {self.kind!r}; offered: {[o.label for o in self.options]}")


@dataclass(frozen=True)
class Hello:
    """A ``hello`` message, typed: the match a bot is about to play."""

    game: str
    game_version: str
    seat: int
    players: int
    options: Mapping[str, Any]
    clock_move_ms: int
    clock_bank_ms: int
    agent_options: Mapping[str, Any]

    @classmethod
    def from_wire(cls, hello: Mapping[str, Any]) -> Hello:
        """The typed view of a ``hello`` message (the argument of ``Agent.setup``)."""
        return cls(
            game=hello["game"],
            game_version=hello["game_version"],
            seat=hello["seat"],
            players=hello["players"],
            options=MappingProxyType(dict(hello["options"])),
            clock_move_ms=hello["clock"]["move_ms"],
            clock_bank_ms=hello["clock"]["bank_ms"],
            agent_options=MappingProxyType(dict(hello["agent_options"])),
        )


def __getattr__(name: str) -> Any:
    """``arena.wire.agent.Decision``, the view's old name, still works for bots written before the rename."""
    if name == "Decision":
        warnings.warn(
            "arena.wire.agent.Decision is now arena.bot.DecisionView (engine.api.Decision is the engine's)",
            DeprecationWarning,
            stacklevel=2,
        )
        return DecisionView
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

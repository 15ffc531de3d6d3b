"""The ``Game`` object: id, version, options, the ways to get a state and its capabilities."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from copy import deepcopy
from random import Random
from typing import Any

from engine.api import BadOptions, Capabilities, validate_options

from .core import GAME_ID
from .observation import determinize
from .render import phase
from .setup import from_observation, new_game
from .state import ZapotecState
from .svg import svg

OPTION_SCHEMA: dict[str, dict[str, Any]] = {
    "automaton": {
        "type": "str",
        "default": None,
        "choices": ["cocijobot"],
        "help": "solo opponent (players=1 only; solo always uses cocijobot)",
    },
    "difficulty": {
        "type": "str",
        "default": "normal",
        "choices": ["normal", "easier", "harder"],
        "help": "solo only: easier = you gain 2 VP whenever your House blocks Cocijobot; "
        "harder = Cocijobot gains 2 VP for every House it fails to build",
    },
}


def observation_sampler(observation: dict) -> Callable[[Random], ZapotecState]:
    """``rng -> from_observation(observation, rng)`` for a search's many samples of one
    observation: the same states (``determinize`` of one parse draws as parsing does),
    neither parsed nor compared again, and without a log."""
    parsed = from_observation(observation, Random(0))
    parsed.keep_log = False
    seat = observation["seat"]
    return lambda rng: determinize(parsed, seat, rng)


class ZapotecGame:
    """Zapotec for 2-4 players, or solo (players=1) against Cocijobot in seat 1."""

    id = GAME_ID
    version = "1.2.0"  # 1.2.0: rules corrections (Z34/Z36 purchase, the Ritual limit, easier-mode VP)
    min_players = 1
    max_players = 4
    automata: tuple[str, ...] = ("cocijobot",)
    capabilities = Capabilities(
        picture=svg,
        phase=phase,
        score_sheet=True,
        from_observation=True,
        observation_sampler=observation_sampler,
        option_count=ZapotecState.option_count,
    )

    def option_schema(self) -> Mapping[str, Any]:
        """Options: the solo automaton and its difficulty adjustment."""
        return OPTION_SCHEMA

    def setup(self, players: int, seed: int, options: Mapping[str, Any] | None = None) -> ZapotecState:
        """A new game; ``players`` counts agent seats (1 = solo, Cocijobot takes seat 1)."""
        checked = validate_options(OPTION_SCHEMA, dict(options or {}))
        if not isinstance(players, int) or not self.min_players <= players <= self.max_players:
            raise BadOptions(f"Zapotec is played by 1 (solo against Cocijobot) to 4 players, not {players!r}")
        if players == 1:
            checked["automaton"] = "cocijobot"
        elif checked["automaton"] is not None:
            raise BadOptions("option 'automaton' is for solo games only: use players=1")
        elif checked["difficulty"] != "normal":
            raise BadOptions("option 'difficulty' adjusts Cocijobot: use players=1, or drop it")
        return new_game(players, seed, checked, self.version)

    def __init__(self) -> None:
        # The last observation parsed (a private copy) and a state built from it: search bots
        # sample the same observation thousands of times per decision.
        self._parsed: tuple[dict, ZapotecState] | None = None

    def from_observation(self, observation: dict, rng: Random) -> ZapotecState:
        """A full state consistent with one seat's observation, hidden parts sampled with ``rng``.

        The observation is parsed once: asked again for an equal one, this re-deals the hidden
        parts of a copy of the state parsed before (``determinize``), which draws from ``rng``
        exactly as parsing would, so the state is the same and only the parsing time is saved.
        """
        parsed = self._parsed
        if parsed is not None and parsed[0] == observation:
            return determinize(parsed[1], observation["seat"], rng)
        state = from_observation(observation, rng)
        self._parsed = (deepcopy(observation), state.clone())
        return state


GAME = ZapotecGame()

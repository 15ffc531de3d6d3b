"""The Teotihuacan ``Game``: options, setup, rebuilding a state from an observation, and its
capabilities."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from random import Random
from typing import Any

from engine.api import BadOptions, Capabilities, validate_options

from . import modules, teotibot
from .core import GAME_ID
from .render import phase
from .rulebook import for_modules
from .rules.setup import from_observation, new_game
from .rules.setup import observation_sampler as rules_sampler
from .state import TeoState
from .svg import svg

OPTION_SCHEMA: dict[str, dict[str, Any]] = {
    "first_game": {
        "type": "bool",
        "default": False,
        "help": "first-game setup: printed boards and tiles, fixed starting resources and workers",
    },
    "starting_tile_draft": {
        "type": "bool",
        "default": False,
        "help": "Starting Tile Draft variant: a face-up pool drafted in snake order",
    },
    "dark_eclipse": {
        "type": "bool",
        "default": False,
        "help": "Dark Eclipse (sudden death): Eclipses score right after the triggering turn",
    },
    "automaton": {
        "type": "str",
        "default": None,
        "choices": ["teotibot"],
        "help": "solo opponent: 'teotibot' plays the seat after the single agent seat",
    },
    "modules": {
        "type": "str",
        "default": "",
        "help": "Late Preclassic Period modules, comma-separated: "
        + ", ".join(modules.MODULES)
        + ", or 'all' (default: none, the base game)",
    },
    "expert_pyramid": {
        "type": "bool",
        "default": False,
        "help": "Late Preclassic optional rule: pyramid tiles score 1/2/3/4 VP by level instead of 1/3/5/7",
    },
    "expert_setup": {
        "type": "bool",
        "default": False,
        "help": "Late Preclassic optional rule: the expert Pyramid start patterns (reconstructed, assumed)",
    },
    **teotibot.option_schema(),
}
DIFFICULTY_OPTIONS = tuple(name for name in OPTION_SCHEMA if name.startswith("teotibot_"))


def observation_sampler(observation: dict) -> Callable[[Random], TeoState]:
    """``rng -> from_observation(observation, rng)`` for a search's many samples of one
    observation: the same states, made faster, without a log (rules/setup.py)."""
    return rules_sampler(observation, for_modules(observation["public"]["mods"]))


class TeotihuacanGame:
    """Teotihuacan: City of Gods, base game for 2-4 players, or 1 player against Teotibot."""

    id = GAME_ID
    # 0.2.0: random first player, claim-first Worship, mid-turn tile use; 0.3.0: Teotibot;
    # 0.4.0: rules corrections (Teotibot's Nobles space and lost any-temple step, Technology 15's discount);
    # 0.5.0: Late Preclassic readings (Huītzilōpōchtli and the Technologies' VP, the orange temple's 1-2 is a move)
    version = "0.5.0"
    min_players = 1  # only with the automaton
    max_players = 4
    automata: tuple[str, ...] = ("teotibot",)
    capabilities = Capabilities(
        picture=svg,
        phase=phase,
        score_sheet=True,
        from_observation=True,
        observation_sampler=observation_sampler,
        option_count=TeoState.option_count,
        option_labels=TeoState.option_labels,
    )

    def option_schema(self) -> Mapping[str, Any]:
        """Options: first_game, starting_tile_draft, dark_eclipse, automaton, the Late Preclassic
        modules and optional rules, Teotibot difficulty."""
        return OPTION_SCHEMA

    def check_options(self, players: int, options: Mapping[str, Any]) -> dict:
        """Validated options completed with defaults; BadOptions on anything unsupported."""
        checked = validate_options(OPTION_SCHEMA, options)
        checked["modules"] = modules.canonical(modules.parse(checked["modules"]))
        if checked["automaton"] == "teotibot":
            if players != 1:
                raise BadOptions(
                    f"Teotibot is a solo opponent: play 1 agent seat with it, got {players}; "
                    "drop the 'automaton' option for 2-4 players"
                )
        else:
            if players == 1:
                raise BadOptions("a 1-player game needs the solo automaton: pass {'automaton': 'teotibot'}")
            if not 2 <= players <= self.max_players:
                raise BadOptions(f"teotihuacan takes 2 to 4 players (or 1 with Teotibot), got {players}")
            changed = [name for name in DIFFICULTY_OPTIONS if checked[name]]
            if changed:
                raise BadOptions(
                    f"option {changed[0]!r} adjusts Teotibot: it needs {{'automaton': 'teotibot'}}"
                )
        if checked["first_game"] and checked["starting_tile_draft"]:
            raise BadOptions(
                "first_game and starting_tile_draft exclude each other: the first game has no Starting tiles"
            )
        return checked

    def setup(self, players: int, seed: int, options: Mapping[str, Any]) -> TeoState:
        """A new game for ``players`` seats, all chance from ``Random(seed)``."""
        checked = self.check_options(players, options)
        rules = for_modules(modules.parse(checked["modules"]))
        return new_game(players, seed, checked, self.version, rules)

    def from_observation(self, observation: dict, rng: Random) -> TeoState:
        """A full state consistent with one seat's observation, hidden parts sampled with rng."""
        return from_observation(observation, rng, for_modules(observation["public"]["mods"]))


GAME = TeotihuacanGame()

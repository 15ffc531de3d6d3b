"""From a MatchSpec to what the referee needs: the game's initial state and how to start each seat.

Everything here fails early and clearly (``MatchSetupError``), before any process starts: unknown
game or agent, wrong seat count, bad options, a path that is not an executable.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Any

from arena.match.spec import HUMAN, HUMAN_VERSION, MatchSpec
from arena.process.spawn import agent_start_method
from arena.registry.manifest import ManifestError, is_package, package_spec
from arena.registry.plugins import AgentSpec, PluginError, Registry
from engine.api import BadOptions, Game, State

ONLY_ARENA_PLAY = f"agent {HUMAN!r} is a person playing in the browser: only `arena play` can seat it"


class MatchSetupError(ValueError):
    """A match that cannot start: unknown game or agent, wrong seat count, bad options."""


@dataclass(frozen=True)
class SeatPlan:
    """How one agent seat is played: the name it was asked by, how to start it, what it claims.

    A Python plugin agent has both ``argv`` (``python -m arena.wire.host NAME MODULE``) and, when it is to
    be forked from the referee (the default start method, see arena/process/spawn.py), ``hosted``.
    """

    seat: int
    agent: str  # as given in the MatchSpec: a plugin name or a path
    argv: tuple[str, ...]
    kind: str  # "python" (hosted by arena.wire.host), "external", or "human" (a person, arena/match/human.py)
    version: str
    hosted: AgentSpec | None = None  # the plugin agent to fork; None: exec argv
    package: str | None = None  # a bot package's folder, mounted in its sandbox (kind "package")


def host_argv(spec: AgentSpec) -> tuple[str, ...]:
    """The command running plugin agent ``spec`` behind the wire protocol: with its plugin's
    module where discovery knew it, for the agent process to import alone."""
    return (sys.executable, "-m", "arena.wire.host", spec.name, *([spec.plugin] if spec.plugin else []))


def resolve_agent(name: str, registry: Registry, game_id: str | None = None) -> AgentSpec | str:
    """A registered agent's spec, a bot package folder's spec (from its manifest), or the absolute
    path of an executable file; else MatchSetupError."""
    if name == HUMAN:  # seated by plan_seat, for `arena play` only: not a bot to check or compare
        raise MatchSetupError(ONLY_ARENA_PLAY)
    if name in registry.agents:
        spec = registry.agents[name]
        if game_id is not None and not spec.plays(game_id):
            raise MatchSetupError(
                f"agent {name!r} does not play {game_id!r} (it plays: {', '.join(spec.games)})"
            )
        return spec
    if os.sep in name or os.path.exists(name):
        if is_package(name):
            return _package(name, game_id)
        if os.path.isdir(name):
            raise MatchSetupError(f"agent {name!r} is a folder; name the executable in it")
        if not os.path.isfile(name):
            raise MatchSetupError(
                f"agent {name!r}: no such file (a path must name an executable speaking the protocol)"
            )
        if not os.access(name, os.X_OK):
            raise MatchSetupError(f"agent {name!r} is not executable (chmod +x it)")
        return os.path.abspath(name)
    try:
        registry.agent(name)
    except PluginError as error:
        raise MatchSetupError(f"{error}, or a path to an executable") from None
    raise AssertionError("unreachable")


def _package(folder: str, game_id: str | None) -> AgentSpec:
    """The spec of the bot package in ``folder`` (its manifest read, its code never run here)."""
    try:
        spec = package_spec(folder)
    except (ManifestError, OSError) as error:
        raise MatchSetupError(f"bot package {folder!r}: {error}") from None
    if game_id is not None and not spec.plays(game_id):
        raise MatchSetupError(
            f"bot package {folder!r} does not play {game_id!r} (it plays: {', '.join(spec.games)})"
        )
    return spec


def plan_seat(seat: int, name: str, registry: Registry, game_id: str) -> SeatPlan:
    """Resolve agent ``name`` for ``seat`` into the command that plays it (``human``: a person, no command)."""
    if name == HUMAN:
        return SeatPlan(seat, name, (), "human", HUMAN_VERSION)
    resolved = resolve_agent(name, registry, game_id)
    if isinstance(resolved, str):
        return SeatPlan(seat, name, (resolved,), "external", "?")
    if resolved.package:
        return SeatPlan(
            seat, name, tuple(resolved.argv or ()), "package", resolved.version, package=resolved.package
        )
    if resolved.factory is not None:
        try:
            fork = agent_start_method() == "fork"
        except ValueError as error:
            raise MatchSetupError(str(error)) from None
        hosted = resolved if fork else None
        return SeatPlan(seat, name, host_argv(resolved), "python", resolved.version, hosted)
    assert resolved.argv is not None
    return SeatPlan(seat, name, tuple(resolved.argv), "external", resolved.version)


def setup_state(spec: MatchSpec, registry: Registry) -> tuple[Game, State, dict[str, Any]]:
    """The game, its initial state and the options given to ``setup``; MatchSetupError if impossible."""
    try:
        game = registry.game(spec.game)
    except PluginError as error:
        raise MatchSetupError(str(error)) from None
    players = len(spec.agents)
    options = dict(spec.options)
    if spec.automaton is not None:
        if spec.automaton not in game.automata:
            known = ", ".join(game.automata) or "none"
            raise MatchSetupError(f"game {game.id!r} has no automaton {spec.automaton!r} (automata: {known})")
        options["automaton"] = spec.automaton
        seats_ok = 1 <= players <= game.max_players  # the engine says whether the automaton fits
    else:
        seats_ok = game.min_players <= players <= game.max_players
        if game.automata and players == 1:
            # A solo game is played against the automaton, which then has its own seat in the
            # table and the record: it must be asked for, never added quietly by the engine.
            low = max(2, game.min_players)
            raise MatchSetupError(
                f"{game.id} needs {low}-{game.max_players} agents, or 1 with --automaton {game.automata[0]}"
            )
    if not seats_ok:
        raise MatchSetupError(
            f"{game.id} takes {game.min_players}-{game.max_players} players, got {players} agent(s)"
            + (f" plus the automaton {spec.automaton}" if spec.automaton else "")
        )
    try:
        state = game.setup(players, spec.seed, options)
    except (BadOptions, ValueError, KeyError, TypeError) as error:
        raise MatchSetupError(f"{game.id}: {error}") from None
    return game, state, options

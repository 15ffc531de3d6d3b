"""Plugin discovery: hook specifications, the plugin manager and the registry of agents and games.

Bundled engines and agents register through the entry-point group ``tlachtli`` exactly as a
third-party bot package does: an entry point names a module (or object) holding hook
implementations marked with ``hookimpl``.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pluggy

from engine.api import Game

PROJECT = "tlachtli"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)
# Comma-separated importable modules loaded as plugins without packaging (quick experiments, tests).
PLUGINS_ENV = "TLACHTLI_PLUGINS"


class PluginError(RuntimeError):
    """A plugin that cannot be loaded or that clashes with another one."""


@dataclass(frozen=True)
class AgentSpec:
    """An agent a plugin offers.

    Exactly one of ``factory`` (a callable returning an ``arena.agent.Agent``, hosted by
    ``arena.host``) and ``argv`` (an external executable speaking the wire protocol) is set.
    ``games`` is empty when the agent plays any game. ``source`` is filled in by discovery.
    """

    name: str
    description: str
    games: tuple[str, ...] = ()
    factory: Callable[[], Any] | None = None
    argv: tuple[str, ...] | None = None
    version: str = "0"
    players: tuple[int, ...] = ()  # seat counts the agent claims; empty = any the game allows
    source: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if (self.factory is None) == (self.argv is None):
            raise PluginError(f"agent {self.name!r}: give exactly one of factory= or argv=")

    def plays(self, game_id: str) -> bool:
        """Whether this agent claims to play ``game_id``."""
        return not self.games or game_id in self.games


@dataclass(frozen=True)
class EvaluatorSpec:
    """A position evaluator for one game, used by search bots (``ismcts``, ``greedy``).

    ``evaluate(state)`` returns one number per seat (automaton seats included, as in
    ``Result.scores``): an estimate of that seat's final score, in the game's score units, so
    it can stand in for ``Result.scores`` at a playout cut-off. ``scale`` is a typical final
    score margin between two seats (it turns margins into rewards). ``source`` is filled in
    by whoever collects the specs.
    """

    game: str
    evaluate: Callable[[Any], Any]
    description: str = ""
    scale: float = 10.0
    source: str = field(default="", compare=False)


class HookSpecs:
    """The hooks a Tlachtli plugin may implement."""

    @hookspec
    def tlachtli_agents(self) -> list[AgentSpec]:
        """Return the agents this plugin offers, as ``AgentSpec`` objects.

        A Python bot gives ``factory=MyAgentClass``; a bot in another language gives
        ``argv=("path/to/bot", "--flag")`` and speaks the wire protocol on stdin/stdout.
        """

    @hookspec
    def tlachtli_games(self) -> list[Game]:
        """Return the rules engines (``engine.api.Game`` objects) this plugin offers."""

    @hookspec
    def tlachtli_evaluators(self) -> list[EvaluatorSpec]:
        """Return position evaluators (``EvaluatorSpec``, one per game id) for search bots.

        Bot knowledge, not rules: a game package may offer one so that ``ismcts`` can cut its
        playouts short and ``greedy`` can play it (docs/bots.md).
        """


@dataclass
class Registry:
    """What discovery found: agents and games by name, and the plugin each came from."""

    agents: dict[str, AgentSpec]
    games: dict[str, Game]
    game_sources: dict[str, str]

    def agent(self, name: str) -> AgentSpec:
        """The agent called ``name``, or a PluginError listing the known ones."""
        try:
            return self.agents[name]
        except KeyError:
            known = ", ".join(sorted(self.agents)) or "none"
            raise PluginError(f"unknown agent {name!r}; known agents: {known} (see `arena agents`)") from None

    def game(self, name: str) -> Game:
        """The game called ``name``, or a PluginError listing the known ones."""
        try:
            return self.games[name]
        except KeyError:
            known = ", ".join(sorted(self.games)) or "none"
            raise PluginError(f"unknown game {name!r}; known games: {known} (see `arena games`)") from None


def plugin_manager(extra_plugins: dict[str, object] | None = None) -> pluggy.PluginManager:
    """A plugin manager with every ``tlachtli`` entry point loaded (plus ``extra_plugins``)."""
    manager = pluggy.PluginManager(PROJECT)
    manager.add_hookspecs(HookSpecs)
    for entry_point in importlib.metadata.entry_points(group=PROJECT):
        source = _describe(entry_point)
        try:
            plugin = entry_point.load()
        except Exception as error:
            raise PluginError(f"plugin {source} failed to import: {type(error).__name__}: {error}") from error
        if manager.is_registered(plugin):
            continue  # the same module listed twice (e.g. an editable and a regular install)
        manager.register(plugin, name=source)
    for module_name in filter(None, os.environ.get(PLUGINS_ENV, "").split(",")):
        source = f"{module_name!r} (from ${PLUGINS_ENV})"
        try:
            plugin = importlib.import_module(module_name.strip())
        except Exception as error:
            raise PluginError(f"plugin {source} failed to import: {type(error).__name__}: {error}") from error
        if not manager.is_registered(plugin):
            manager.register(plugin, name=source)
    for name, plugin in (extra_plugins or {}).items():
        manager.register(plugin, name=name)
    return manager


def _describe(entry_point: importlib.metadata.EntryPoint) -> str:
    dist = entry_point.dist
    where = f"{dist.name} {dist.version}" if dist is not None else "unknown distribution"
    return f"{entry_point.name!r} ({entry_point.value}, from {where})"


def discover(extra_plugins: dict[str, object] | None = None, games: bool = True) -> Registry:
    """Load every plugin and collect its agents and games; duplicate names are an error.

    ``games=False`` skips the ``tlachtli_games`` hooks, so an agent process (``arena.host``)
    does not pay for importing every rules engine at each match's start.
    """
    manager = plugin_manager(extra_plugins)
    agents: dict[str, AgentSpec] = {}
    found_games: dict[str, Game] = {}
    game_sources: dict[str, str] = {}
    for impl in manager.hook.tlachtli_agents.get_hookimpls():
        source = impl.plugin_name
        for spec in _call(impl, source, "tlachtli_agents"):
            if not isinstance(spec, AgentSpec):
                raise PluginError(f"plugin {source}: tlachtli_agents returned {spec!r}, not an AgentSpec")
            if spec.name in agents:
                raise PluginError(
                    f"agent name {spec.name!r} is registered twice: by {agents[spec.name].source} and by {source}"
                )
            agents[spec.name] = _with_source(spec, source)
    for impl in manager.hook.tlachtli_games.get_hookimpls() if games else ():
        source = impl.plugin_name
        for game in _call(impl, source, "tlachtli_games"):
            if game.id in found_games:
                raise PluginError(
                    f"game id {game.id!r} is registered twice: by {game_sources[game.id]} and by {source}"
                )
            found_games[game.id] = game
            game_sources[game.id] = source
    return Registry(agents=agents, games=found_games, game_sources=game_sources)


def _call(impl: pluggy.HookImpl, source: str, hook: str) -> list:
    try:
        return list(impl.function() or [])
    except Exception as error:
        raise PluginError(f"plugin {source}: {hook}() raised {type(error).__name__}: {error}") from error


def _with_source(spec: AgentSpec, source: str) -> AgentSpec:
    from dataclasses import replace

    return replace(spec, source=source)

"""Plugin discovery: the plugin manager and the registry of agents and games (hooks: arena/hookspecs.py).

Bundled engines and agents register through the entry-point group ``tlachtli`` exactly as a
third-party bot package does: an entry point names a module (or object) holding hook
implementations marked with ``hookimpl``.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
from dataclasses import dataclass, replace

import pluggy

from arena import hookspecs
from arena.hookspecs import PROJECT, AgentSpec, EvaluatorSpec, PluginError, hookimpl, hookspec
from engine.api import Game

# Re-exported: plugins and bots import these from here, as before arena/hookspecs.py existed.
__all__ = ["PROJECT", "AgentSpec", "EvaluatorSpec", "PluginError", "Registry", "discover", "hookimpl", "hookspec"]

# Comma-separated importable modules loaded as plugins without packaging (quick experiments, tests).
PLUGINS_ENV = "TLACHTLI_PLUGINS"


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
    manager.add_hookspecs(hookspecs)
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
    return replace(spec, source=source)

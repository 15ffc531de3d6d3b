"""Plugin discovery: the plugin manager and the registry of agents and games (hooks: arena/hookspecs.py).

Bundled engines and agents register through the entry-point group ``tlachtli`` exactly as a
third-party bot package does: an entry point names a module (or object) holding hook
implementations marked with ``hookimpl``.
"""

from __future__ import annotations

import functools
import importlib
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pluggy

from arena import hookspecs
from arena.hookspecs import PROJECT, AgentSpec, EvaluatorSpec, PluginError, hookimpl, hookspec
from engine.api import Game

if TYPE_CHECKING:
    import importlib.metadata

# Re-exported: plugins and bots import these from here, as before arena/hookspecs.py existed.
__all__ = [
    "PROJECT",
    "AgentSpec",
    "EvaluatorSpec",
    "PluginError",
    "Registry",
    "discover",
    "hookimpl",
    "hookspec",
    "load_plugins",
]

# Comma-separated importable modules loaded as plugins without packaging (quick experiments, tests).
PLUGINS_ENV = "TLACHTLI_PLUGINS"
# Comma-separated distribution names: load only their entry points (tests ignore what a user installed).
ONLY_ENV = "TLACHTLI_ENTRY_POINTS_ONLY"


@dataclass
class Registry:
    """What discovery found: agents and games by name, the plugin each came from, and the plugins
    that could not load (``broken``: one line each, naming the plugin and its error; they were skipped)."""

    agents: dict[str, AgentSpec]
    games: dict[str, Game]
    game_sources: dict[str, str]
    broken: list[str] = field(default_factory=list)

    def agent(self, name: str) -> AgentSpec:
        """The agent called ``name``, or a PluginError listing the known ones (and the broken plugins)."""
        try:
            return self.agents[name]
        except KeyError:
            known = ", ".join(sorted(self.agents)) or "none"
            raise PluginError(
                f"unknown agent {name!r}; known agents: {known} (see `arena agents`){self._maybe_broken()}"
            ) from None

    def game(self, name: str) -> Game:
        """The game called ``name``, or a PluginError listing the known ones (and the broken plugins)."""
        try:
            return self.games[name]
        except KeyError:
            known = ", ".join(sorted(self.games)) or "none"
            raise PluginError(
                f"unknown game {name!r}; known games: {known} (see `arena games`){self._maybe_broken()}"
            ) from None

    def _maybe_broken(self) -> str:
        """A name not found may belong to a plugin that failed to load: say which ones did."""
        return "".join(f"; perhaps from the broken {problem}" for problem in self.broken)


def plugin_manager(extra_plugins: dict[str, object] | None = None) -> pluggy.PluginManager:
    """A plugin manager with every loadable ``tlachtli`` plugin registered (plus ``extra_plugins``)."""
    return load_plugins(extra_plugins)[0]


def load_plugins(
    extra_plugins: dict[str, object] | None = None, module: str | None = None
) -> tuple[pluggy.PluginManager, list[str]]:
    """A plugin manager with the ``tlachtli`` entry points and $TLACHTLI_PLUGINS modules registered
    (plus ``extra_plugins``), and one line per plugin that failed to load and was skipped.
    ``module``: that plugin module alone instead of the entry points and $TLACHTLI_PLUGINS.

    A broken plugin (a syntax error, a missing import, a bad hook) must not take down the agents
    and games of the others: only what needs it fails, with its line.
    """
    manager = pluggy.PluginManager(PROJECT)
    manager.add_hookspecs(hookspecs)
    broken: list[str] = []
    if module is not None:
        _load(manager, functools.partial(importlib.import_module, module), repr(module), broken)
        return manager, broken
    for entry_point, source in installed_entry_points():
        _load(manager, entry_point.load, source, broken)
    for module_name in filter(None, (name.strip() for name in os.environ.get(PLUGINS_ENV, "").split(","))):
        source = f"{module_name!r} (from ${PLUGINS_ENV})"
        _load(manager, functools.partial(importlib.import_module, module_name), source, broken)
    for name, plugin in (extra_plugins or {}).items():
        manager.register(plugin, name=name)
    return manager, broken


_METADATA_FOLDERS = (".dist-info", ".egg-info")


def installed_entry_points() -> list[tuple[importlib.metadata.EntryPoint, str]]:
    """The ``tlachtli`` entry points of the installed distributions, each with where it comes from,
    or only of those named in $TLACHTLI_ENTRY_POINTS_ONLY (comma-separated distribution names: the
    test suite's way to ignore the bots a user installed)."""
    found = _entry_points(_path_stamp())
    only = {_normalise(name) for name in os.environ.get(ONLY_ENV, "").split(",") if name.strip()}
    if not only:
        return [(entry_point, source) for entry_point, _, source in found]
    return [(entry_point, source) for entry_point, dist, source in found if _normalise(dist) in only]


def _path_stamp() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """sys.path with the distributions' metadata folders in each: installing, upgrading or removing
    a distribution adds, renames or removes one (a folder's modification time, counted in clock
    ticks, could miss two changes in one tick)."""
    stamp = []
    for folder in sys.path:
        try:
            names = os.listdir(folder or ".")
        except OSError:
            names = []
        stamp.append((folder, tuple(sorted(name for name in names if name.endswith(_METADATA_FOLDERS)))))
    return tuple(stamp)


@functools.lru_cache(maxsize=4)
def _entry_points(
    stamp: tuple[tuple[str, int], ...],
) -> tuple[tuple[importlib.metadata.EntryPoint, str, str], ...]:
    """Each entry point with its distribution's name and its description, read once per ``stamp``:
    reading every distribution's metadata took ~40 ms, paid by every match run in a process.
    Imported here, not above: importlib.metadata costs an agent process ~50 ms of CPU at its start
    (arena.host loads its own plugin module alone)."""
    import importlib.metadata

    found = []
    for entry_point in importlib.metadata.entry_points(group=PROJECT):
        dist = entry_point.dist
        metadata = dist.metadata if dist is not None else None  # parsed once, not per field
        name = metadata["Name"] if metadata is not None else ""
        where = f"{name} {metadata['Version']}" if metadata is not None else "unknown distribution"
        found.append((entry_point, name, f"{entry_point.name!r} ({entry_point.value}, from {where})"))
    return tuple(found)


def _normalise(distribution: str) -> str:
    """A distribution name as packaging compares them (PEP 503: case, '-', '_' and '.' alike)."""
    return re.sub(r"[-_.]+", "-", distribution.strip()).lower()


def _load(manager: pluggy.PluginManager, load: Callable[[], object], source: str, broken: list[str]) -> None:
    """Import a plugin with ``load`` and register it as ``source``; a failure is one line in ``broken``."""
    try:
        plugin = load()
    except Exception as error:
        broken.append(f"plugin {source} failed to import: {_one_line(error)}")
        return
    _register(manager, plugin, source, broken)


def _register(manager: pluggy.PluginManager, plugin: object, source: str, broken: list[str]) -> None:
    if manager.is_registered(plugin):
        return  # the same module listed twice (e.g. an editable and a regular install)
    try:
        manager.register(plugin, name=source)
    except Exception as error:  # pluggy refuses a hook implementation that matches no hook
        broken.append(f"plugin {source} cannot be registered: {_one_line(error)}")


def _one_line(error: BaseException) -> str:
    return " ".join(f"{type(error).__name__}: {error}".split())


def discover(
    extra_plugins: dict[str, object] | None = None, games: bool = True, module: str | None = None
) -> Registry:
    """Load every plugin and collect its agents and games; duplicate names are an error.

    A plugin that fails to import or whose hook raises is skipped and listed in ``broken``.
    ``games=False`` skips the ``tlachtli_games`` hooks, so an agent process (``arena.host``)
    does not pay for importing every rules engine at each match's start. ``module``: that plugin
    module alone (an agent process told its agent's ``plugin``).
    """
    manager, broken = load_plugins(extra_plugins, module)
    agents: dict[str, AgentSpec] = {}
    found_games: dict[str, Game] = {}
    game_sources: dict[str, str] = {}
    for impl in manager.hook.tlachtli_agents.get_hookimpls():
        source = impl.plugin_name
        try:
            specs = _call(impl, source, "tlachtli_agents")
            for spec in specs:
                if not isinstance(spec, AgentSpec):
                    raise PluginError(f"plugin {source}: tlachtli_agents returned {spec!r}, not an AgentSpec")
        except PluginError as error:
            broken.append(str(error))
            continue
        for spec in specs:
            if spec.name in agents:
                raise PluginError(
                    f"agent name {spec.name!r} is registered twice: by {agents[spec.name].source} and by {source}"
                )
            agents[spec.name] = replace(spec, source=source, plugin=_module_name(impl.plugin))
    for impl in manager.hook.tlachtli_games.get_hookimpls() if games else ():
        source = impl.plugin_name
        try:
            plugin_games = _call(impl, source, "tlachtli_games")
        except PluginError as error:
            broken.append(str(error))
            continue
        for game in plugin_games:
            if game.id in found_games:
                raise PluginError(
                    f"game id {game.id!r} is registered twice: by {game_sources[game.id]} and by {source}"
                )
            found_games[game.id] = game
            game_sources[game.id] = source
    return Registry(agents=agents, games=found_games, game_sources=game_sources, broken=broken)


def _call(impl: pluggy.HookImpl, source: str, hook: str) -> list:
    try:
        produced: Any = impl.function()  # pluggy types a hook's return as object; list() checks it
        return list(produced or [])
    except Exception as error:
        raise PluginError(f"plugin {source}: {hook}() raised {_one_line(error)}") from error


def _module_name(plugin: object) -> str:
    """The importable name of a plugin that is a module ("" for another object: an entry point
    naming a class or instance, a plugin registered in process)."""
    return plugin.__name__ if isinstance(plugin, ModuleType) else ""

"""Plugin discovery: the plugin manager and the registry of agents and games (hooks: arena/registry/hookspecs.py).

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
from dataclasses import astuple, dataclass, field, replace
from types import ModuleType
from typing import Any

import pluggy

from arena.registry import hookspecs
from arena.registry.hookspecs import PROJECT, AgentSpec, EvaluatorSpec, PluginError, hookimpl, hookspec
from engine.api import Game, capability_problem
from engine.toml_tables import TAG as _TAG
from engine.toml_tables import keep, read_kept

# Re-exported: plugins and bots import these from here, as before arena/registry/hookspecs.py existed.
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
    for entry_point in installed_entry_points():
        _load(manager, entry_point.load, entry_point.source, broken)
    for module_name in filter(None, (name.strip() for name in os.environ.get(PLUGINS_ENV, "").split(","))):
        source = f"{module_name!r} (from ${PLUGINS_ENV})"
        _load(manager, functools.partial(importlib.import_module, module_name), source, broken)
    for name, plugin in (extra_plugins or {}).items():
        manager.register(plugin, name=name)
    return manager, broken


_METADATA_FOLDERS = (".dist-info", ".egg-info")
# An entry point's value: "module", "module:attribute", extras after it (importlib.metadata's pattern).
_ENTRY_POINT_VALUE = re.compile(r"(?P<module>[\w.]+)\s*(:\s*(?P<attr>[\w.]+)\s*)?((?P<extras>\[.*\])\s*)?$")


@dataclass(frozen=True)
class InstalledEntryPoint:
    """A ``tlachtli`` entry point of an installed distribution, as its metadata lists it."""

    name: str
    value: str  # "module" or "module:attribute"
    distribution: str
    source: str  # how discovery names it: "'name' (value, from distribution version)"
    metadata_folder: str  # the distribution's .dist-info (or .egg-info) folder; "" if unknown

    @property
    def module(self) -> str:
        found = _ENTRY_POINT_VALUE.match(self.value)
        return found["module"] if found else self.value

    def load(self) -> object:
        """Import what it names (as ``importlib.metadata.EntryPoint.load`` does)."""
        found = _ENTRY_POINT_VALUE.match(self.value)
        if found is None:
            raise ValueError(f"malformed entry point value {self.value!r}")
        target: object = importlib.import_module(found["module"])
        for attribute in filter(None, (found["attr"] or "").split(".")):
            target = getattr(target, attribute)
        return target


def installed_entry_points() -> list[InstalledEntryPoint]:
    """The ``tlachtli`` entry points of the installed distributions, or only of those named in
    $TLACHTLI_ENTRY_POINTS_ONLY (comma-separated distribution names: the test suite's way to
    ignore the bots a user installed)."""
    found = all_installed_entry_points()
    only = {_normalise(name) for name in os.environ.get(ONLY_ENV, "").split(",") if name.strip()}
    return [entry for entry in found if not only or _normalise(entry.distribution) in only]


def all_installed_entry_points() -> tuple[InstalledEntryPoint, ...]:
    """Every installed ``tlachtli`` entry point, $TLACHTLI_ENTRY_POINTS_ONLY or not."""
    return _entry_points(_path_stamp())


def _path_stamp() -> tuple[tuple[str, tuple[tuple[str, int], ...]], ...]:
    """The folders of sys.path that hold distributions' metadata, in order, each with its metadata
    folders and their entry_points.txt's modification time: installing, upgrading or removing a
    distribution adds, renames or removes one, a reinstall rewrites its file. Folders without
    any are left out: a process's own folder (its working directory, a sandbox's home) changes
    no entry point, and every process of an environment shares the kept ones."""
    stamp = []
    for folder in sys.path:
        try:
            names = sorted(name for name in os.listdir(folder or ".") if name.endswith(_METADATA_FOLDERS))
        except OSError:
            continue
        if names:
            stamp.append(
                (
                    folder,
                    tuple(
                        (name, _modified(os.path.join(folder or ".", name, "entry_points.txt")))
                        for name in names
                    ),
                )
            )
    return tuple(stamp)


def _modified(path: str) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return 0


@functools.lru_cache(maxsize=4)
def _entry_points(stamp: tuple) -> tuple[InstalledEntryPoint, ...]:
    """The entry points, read once per ``stamp``: from what an earlier process kept (engine's
    toml_tables helpers), else from every distribution's metadata with importlib.metadata, which
    cost each `arena` command, runner worker and zygote ~70 ms of CPU (importing it and reading)."""
    kept = read_kept(_kept_entry_points(), stamp)
    if kept is not None:
        return tuple(InstalledEntryPoint(*fields) for fields in kept)
    import importlib.metadata

    found = []
    for entry_point in importlib.metadata.entry_points(group=PROJECT):
        dist = entry_point.dist
        metadata = dist.metadata if dist is not None else None  # parsed once, not per field
        name = metadata["Name"] if metadata is not None else ""
        where = f"{name} {metadata['Version']}" if metadata is not None else "unknown distribution"
        folder = getattr(dist, "_path", None)  # the .dist-info folder (no public name for it)
        found.append(
            InstalledEntryPoint(
                entry_point.name,
                entry_point.value,
                name,
                f"{entry_point.name!r} ({entry_point.value}, from {where})",
                os.path.abspath(str(folder)) if folder is not None else "",
            )
        )
    keep(_kept_entry_points(), stamp, [astuple(entry) for entry in found])
    return tuple(found)


def _kept_entry_points() -> str:
    """Where the entry points read are kept between processes: beside the environment's bytecode."""
    import sysconfig  # here: an agent's host, told its plugin module, never reads entry points

    return os.path.join(sysconfig.get_paths()["purelib"], "__pycache__", f"tlachtli-entry-points.{_TAG}")


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

    A plugin that fails to import or whose hook raises is skipped and listed in ``broken``, and so
    is a game whose declared capabilities it does not provide (engine.api.capability_problem).
    ``games=False`` skips the ``tlachtli_games`` hooks, so an agent process (``arena.wire.host``)
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
            problem = capability_problem(game)
            if problem is not None:  # refused alone: the plugin's other games stay
                broken.append(f"plugin {source}: game {game.id!r} is refused: {problem}")
                continue
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

"""What an agent sees of the referee's machine: the paths bound into its sandbox, and its environment.

Paths: the Python installation (prefixes, site-packages, standard library, the import path's
site folders), the directory of its program, and, for plugins, each plugin package's own folder
(or module file) and its installed metadata, found with ``importlib.util.find_spec``; never a
whole ``PYTHONPATH`` entry, never the working directory or a folder holding it (where the store
and ladders usually are). Relative ``PYTHONPATH`` entries are resolved against the referee's
working directory, and the sandbox's own ``PYTHONPATH`` lists only the folders the plugins were
found in (with nothing else of them visible). Environment: only the variables of ``AGENT_ENV``
(and those named in ``$TLACHTLI_AGENT_ENV``), nothing else of the referee's. See docs/security.md.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import site
import sys
import sysconfig

from arena.registry.plugins import PLUGINS_ENV, all_installed_entry_points

# Variables passed on from the referee's environment (docs/security.md lists them); HOME, TMPDIR
# and PYTHONPATH are set by the sandbox, never passed on.
AGENT_ENV = (
    "PATH", "LANG", "LANGUAGE", "TZ", PLUGINS_ENV, "PYTHONHASHSEED", "PYTHONUTF8", "PYTHONIOENCODING",
    "PYTHONDONTWRITEBYTECODE", "PYTHONWARNINGS", "PYTHONFAULTHANDLER", "PYTHONDEVMODE", "PYTHONNOUSERSITE",
)  # fmt: skip
AGENT_ENV_PREFIXES = ("LC_",)  # the locale's categories
EXTRA_ENV = "TLACHTLI_AGENT_ENV"  # comma-separated names of more variables to pass on (the operator's choice)
DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"
CORE_PACKAGES = ("arena", "engine", "plugins")  # Tlachtli's own: every Python agent imports them


def agent_environment(home: str, pythonpath: list[str]) -> dict[str, str]:
    """The whole environment of an agent whose private directory is ``home`` (as the agent sees it)."""
    extra = {name.strip() for name in os.environ.get(EXTRA_ENV, "").split(",") if name.strip()}
    env = {
        name: value
        for name, value in os.environ.items()
        if name in AGENT_ENV or name.startswith(AGENT_ENV_PREFIXES) or name in extra
    }
    env.setdefault("PATH", DEFAULT_PATH)
    env.update(HOME=home, TMPDIR=home)
    if pythonpath:
        env["PYTHONPATH"] = os.pathsep.join(pythonpath)
    return env


def visible_paths(program: str) -> list[str]:
    """Absolute paths (folders or files) to bind read-only into the sandbox of ``program``: no path
    inside another, none that is the referee's working directory or holds it."""
    paths = set(installation_paths())
    paths.update(_site_paths())
    paths.update(plugin_locations())
    folder = os.path.dirname(os.path.realpath(program))
    paths.add(
        os.path.realpath(program) if _holds_cwd(folder) else folder
    )  # a bot beside the store: itself only
    keep = sorted(p for p in paths if p != "/" and not _holds_cwd(p) and os.path.exists(p))
    return [p for p in keep if not any(p != q and p.startswith(q + "/") for q in keep)]


def sandbox_pythonpath() -> list[str]:
    """The sandbox's PYTHONPATH: the referee's import-path folders (absolute) where a plugin was
    found, in the referee's order. Only the plugins' own folders and files are visible in them.

    Found again only when what it depends on changed (every agent's start asks: ~0.5 ms).
    """
    inputs = (os.getcwd(), os.environ.get("PYTHONPATH", ""), os.environ.get(PLUGINS_ENV, ""), tuple(sys.path))
    return list(_sandbox_pythonpath(*inputs))


@functools.lru_cache(maxsize=16)
def _sandbox_pythonpath(cwd: str, pythonpath: str, plugins: str, path: tuple[str, ...]) -> tuple[str, ...]:
    roots = {os.path.dirname(location) for location in plugin_locations()}
    installed = installation_paths()
    found = []
    for entry in [*_pythonpath_entries(), *sys.path]:
        entry = os.path.abspath(entry) if entry else ""
        if entry in roots and entry not in installed and entry not in found:
            found.append(entry)
    return tuple(found)


def _site_paths() -> set[str]:
    """The import path's folders that ``$PYTHONPATH`` did not add: site directories (a virtual
    environment layered on another one through a .pth file, say). A ``$PYTHONPATH`` folder is
    never bound whole: only the plugins found in it are."""
    given = set(_pythonpath_entries())
    return {os.path.abspath(entry) for entry in sys.path if entry and os.path.abspath(entry) not in given}


def _pythonpath_entries() -> list[str]:
    """The referee's ``$PYTHONPATH`` entries, resolved against its working directory."""
    return [os.path.abspath(entry) for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep) if entry]


def _holds_cwd(path: str) -> bool:
    """Whether ``path`` is the referee's working directory or a folder above it."""
    cwd = os.getcwd()
    return cwd == path or cwd.startswith(path.rstrip("/") + "/")


@functools.cache
def installation_paths() -> frozenset[str]:
    """The Python installation an agent runs: prefixes, the interpreter's home, site-packages, stdlib."""
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    paths.add(os.path.dirname(os.path.dirname(os.path.realpath(sys.executable))))
    # the virtual environment the interpreter was started from (its bin/python is a symlink): under
    # `python -S`, which skips the site module, sys.prefix names the base installation instead
    paths.add(os.path.dirname(os.path.dirname(os.path.abspath(sys.executable))))
    paths.update(site.getsitepackages())
    if site.ENABLE_USER_SITE:
        paths.add(site.getusersitepackages())
    paths.update(sysconfig.get_paths()[name] for name in ("stdlib", "platstdlib", "purelib", "platlib"))
    return frozenset(os.path.abspath(path) for path in paths if path)


def plugin_locations() -> frozenset[str]:
    """Where Tlachtli's packages and the plugins live: each package's folder or module's file, and
    the metadata folder of each installed plugin (its entry points). Found again on each call: a
    module of ``$TLACHTLI_PLUGINS`` may be found through a relative import path."""
    names = set(CORE_PACKAGES)
    names.update(
        name.strip().split(".")[0] for name in os.environ.get(PLUGINS_ENV, "").split(",") if name.strip()
    )
    locations = set(_entry_point_locations())
    for name in names:
        locations.update(_module_locations(name))
    return frozenset(locations)


@functools.cache
def _entry_point_locations() -> frozenset[str]:
    """The installed plugins' packages (``pip install -e`` ones too) and their ``.dist-info`` folders."""
    locations = set()
    for entry in all_installed_entry_points():
        locations.update(_module_locations(entry.module.split(".")[0]))
        if entry.metadata_folder:
            locations.add(entry.metadata_folder)
    return frozenset(locations)


def _module_locations(name: str) -> set[str]:
    """The folder(s) of top-level package ``name``, or its module file; empty if it cannot be found."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return set()  # a broken plugin: discovery reports it, the agent's import fails visibly
    if spec is None:
        return set()
    if spec.submodule_search_locations:
        return {os.path.abspath(location) for location in spec.submodule_search_locations}
    if spec.origin and os.path.isfile(spec.origin):
        return {os.path.abspath(spec.origin)}
    return set()

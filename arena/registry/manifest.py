"""The bot package manifest, ``tlachtli.toml``: read, never run, to learn everything the referee needs.

```toml
name = "my-bot"                  # the agent name it plays under
version = "1.0"
games = ["zapotec"]              # the games it plays (at least one)
players = [2]                    # optional: the seat counts it claims
author = "Ana <ana@example.org>" # optional
description = "..."              # optional

[start]                          # exactly one of:
python = "my_bot:Bot"            #   a module (importable from the package's root) and an arena.bot Agent class
# command = ["./run", "--fast"]  #   an executable speaking the wire protocol ("./x": in the package)
path = ["deps"]                  # optional, python only: more import folders inside the package

[build]                          # optional: run once, in the sandbox, before the package is frozen
command = ["make"]

[options.depth]                  # optional: the agent options it takes, as AgentSpec declares them
type = "int"
default = 2
help = "search depth"
```

Unknown keys are refused with the nearest known name. A package folder is read-only once
frozen; inside the sandbox it is mounted at ``PACKAGE_MOUNT``.
"""

from __future__ import annotations

import difflib
import functools
import os
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.registry.hookspecs import AgentSpec
from arena.text.files import TextFileError, data_problem, read_utf8
from engine.options import check_schema

PACKAGE_MOUNT = "/bot"  # where a package is, read-only, inside its sandbox

MANIFEST = "tlachtli.toml"
MAX_MANIFEST_BYTES = 64 * 1024
NAME = re.compile(r"[a-z][a-z0-9_-]{0,39}")  # as `arena new-bot` names bots
VERSION = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,31}")
PYTHON_START = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*")
# a path inside the package: relative, no '.' or '..' part, no spaces
RELATIVE = re.compile(r"(?!\.\.?(/|$))[\w.-]+(/(?!\.\.?(/|$))[\w.-]+)*")

TOP_KEYS = {"name", "version", "games", "players", "author", "description", "start", "build", "options"}
START_KEYS = {"python", "command", "path"}
BUILD_KEYS = {"command"}


class ManifestError(ValueError):
    """A manifest that cannot be used; the message names the key and what to write."""


@dataclass(frozen=True)
class Manifest:
    """What a package's ``tlachtli.toml`` says (checked)."""

    name: str
    version: str
    games: tuple[str, ...]
    players: tuple[int, ...] = ()
    author: str = ""
    description: str = ""
    python: str | None = None  # "module:Class"
    command: tuple[str, ...] | None = None  # an executable's argv, relative to the package
    path: tuple[str, ...] = ()  # more import folders (python), relative to the package
    build: tuple[str, ...] | None = None
    options: Mapping[str, Mapping[str, Any]] | None = field(default=None, hash=False)


def _unknown(key: str, known: set[str], where: str) -> ManifestError:
    guess = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.6)
    hint = f"; did you mean {guess[0]!r}?" if guess else f"; known keys: {', '.join(sorted(known))}"
    return ManifestError(f"{MANIFEST}: unknown key {key!r} in {where}{hint}")


def _check_keys(table: Mapping[str, Any], known: set[str], where: str) -> None:
    for key in table:
        if key not in known:
            raise _unknown(key, known, where)


def _string(data: Mapping[str, Any], key: str, pattern: re.Pattern[str] | None, what: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or pattern is not None and not pattern.fullmatch(value):
        raise ManifestError(f"{MANIFEST}: {key!r} must be {what}, got {value!r}")
    return value


def _strings(
    value: Any, key: str, pattern: re.Pattern[str] | None = None, minimum: int = 0
) -> tuple[str, ...]:
    if (
        not isinstance(value, list)
        or len(value) < minimum
        or len(value) > 64
        or not all(isinstance(item, str) and item and len(item) <= 256 for item in value)
        or pattern is not None
        and not all(pattern.fullmatch(item) for item in value)
    ):
        shape = "a list of paths inside the package" if pattern is RELATIVE else "a list of strings"
        raise ManifestError(
            f"{MANIFEST}: {key!r} must be {shape}"
            + (" (at least one)" if minimum else "")
            + f", got {value!r}"
        )
    return tuple(value)


def parse_manifest(text: str) -> Manifest:
    """The manifest in ``text`` (TOML), checked; ManifestError naming the first problem."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ManifestError(f"{MANIFEST}: TOML syntax error: {error}") from None
    except RecursionError:
        raise ManifestError(f"{MANIFEST}: nested too deep") from None
    problem = data_problem(data)
    if problem:
        raise ManifestError(f"{MANIFEST}: {problem}")
    _check_keys(data, TOP_KEYS, "the manifest")
    name = _string(data, "name", NAME, "lower-case letters, digits, '-' and '_', a letter first, at most 40")
    version = _string(data, "version", VERSION, 'a version such as "1.0" (letters, digits, . _ + -)')
    games = _strings(data.get("games"), "games", minimum=1)
    players = data.get("players", [])
    if not isinstance(players, list) or not all(
        isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= 8 for n in players
    ):
        raise ManifestError(f"{MANIFEST}: 'players' must be a list of seat counts, got {players!r}")
    for key in ("author", "description"):
        if not isinstance(data.get(key, ""), str) or len(data.get(key, "")) > 200:
            raise ManifestError(f"{MANIFEST}: {key!r} must be a string of at most 200 characters")
    start = data.get("start")
    if not isinstance(start, dict):
        raise ManifestError(
            f'{MANIFEST}: a [start] table is needed: python = "module:Class" or command = ["./bot"]'
        )
    _check_keys(start, START_KEYS, "[start]")
    if ("python" in start) == ("command" in start):
        raise ManifestError(
            f'{MANIFEST}: [start] needs exactly one of python = "module:Class" and command = [...]'
        )
    python = _string(start, "python", PYTHON_START, '"module:Class"') if "python" in start else None
    command = _strings(start["command"], "start.command", minimum=1) if "command" in start else None
    if command is not None and command[0].startswith("./") and not RELATIVE.fullmatch(command[0][2:]):
        raise ManifestError(
            f"{MANIFEST}: start.command's program {command[0]!r} must stay inside the package"
        )
    path = _strings(start.get("path", []), "start.path", RELATIVE)
    if path and python is None:
        raise ManifestError(f"{MANIFEST}: start.path is for a python start only")
    build = data.get("build")
    if build is not None:
        if not isinstance(build, dict):
            raise ManifestError(f"{MANIFEST}: [build] must be a table with command = [...]")
        _check_keys(build, BUILD_KEYS, "[build]")
        build = _strings(build.get("command"), "build.command", minimum=1)
    options = data.get("options")
    if options is not None:
        problems = check_schema(options)
        if problems:
            raise ManifestError(f"{MANIFEST}: [options]: {'; '.join(problems)}")
    return Manifest(
        name, version, games, tuple(players), data.get("author", ""), data.get("description", ""),
        python, command, path, build, options,
    )  # fmt: skip


def read_manifest(folder: str | os.PathLike[str]) -> Manifest:
    """The manifest of the package in ``folder``; ManifestError if absent or bad."""
    path = os.path.join(folder, MANIFEST)
    if os.path.islink(path):
        raise ManifestError(f"{MANIFEST} must be a regular file, not a link")
    try:
        return parse_manifest(read_utf8(path, "bot manifest", MAX_MANIFEST_BYTES))
    except TextFileError as error:
        raise ManifestError(str(error)) from None


def is_package(path: str) -> bool:
    """Whether ``path`` is a bot package folder (it holds a ``tlachtli.toml``)."""
    return os.path.isdir(path) and os.path.isfile(os.path.join(path, MANIFEST))


def launch_argv(manifest: Manifest) -> tuple[str, ...]:
    """The command that plays ``manifest``'s bot inside its sandbox, where the package is at PACKAGE_MOUNT."""
    if manifest.python is not None:
        import sys

        return (
            sys.executable, "-m", "arena.wire.package_host", PACKAGE_MOUNT,
            manifest.python, manifest.name, manifest.version, *manifest.path,
        )  # fmt: skip
    assert manifest.command is not None
    program = manifest.command[0]
    if program.startswith("./"):
        program = f"{PACKAGE_MOUNT}/{program[2:]}"
    return (program, *manifest.command[1:])


def package_spec(folder: str) -> AgentSpec:
    """The AgentSpec of the package in ``folder`` (absolute), from its manifest alone; ManifestError if bad."""
    folder = os.path.abspath(folder)
    stat = os.stat(os.path.join(folder, MANIFEST))
    return _package_spec(folder, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=256)
def _package_spec(folder: str, _mtime: int, _size: int) -> AgentSpec:
    manifest = read_manifest(folder)
    return AgentSpec(
        name=manifest.name,
        description=manifest.description or f"bot package {manifest.name} {manifest.version}",
        games=manifest.games,
        argv=launch_argv(manifest),
        version=manifest.version,
        players=manifest.players,
        options=manifest.options,
        source=f"package {folder}",
        package=folder,
    )


def package_games(spec: AgentSpec, known: Sequence[str]) -> list[str]:
    """The games ``spec`` claims that are not installed (empty: all are)."""
    return [game for game in spec.games if game not in known]

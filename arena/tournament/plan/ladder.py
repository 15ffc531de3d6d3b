"""Ladder files: a tournament described in TOML, parsed and validated into a ``Ladder``.

The format is documented in docs/ladders.md. Every error is a ``LadderError`` naming the file,
the line and the bad key, so a user can fix the file without reading this code.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from arena.match.spec import MatchSpec
from arena.process.sandbox import SANDBOXES
from arena.registry.plugins import AgentSpec, Registry
from arena.text.files import MAX_NESTING, TextFileError, data_problem, read_utf8
from arena.tournament.formats import FORMATS, LADDER_FORMATS, owner
from engine.api import BadOptions, validate_options

# `seed = "secret"`: `arena run` draws the base seed at random and keeps it in the database only.
SECRET_SEED = "secret"
# The most matches one ladder may schedule: every match is a database row made at the run's
# start, so a mistyped matches_per_pairing must be refused, not fill the disk.
MAX_MATCHES = 100_000
MAX_LADDER_BYTES = 1024 * 1024  # a ladder of a thousand agents is ~100 KiB

# Allowed keys per table, with the type each value must have (checked before any meaning).
TOP_KEYS: dict[str, type | tuple[type, ...]] = {
    "name": str,
    "description": str,
    "game": str,
    "players": int,
    "format": str,
    "challenger": str,
    "automaton": str,
    "matches_per_pairing": int,
    "seed": (int, str),  # an integer, or "secret" (see SECRET_SEED)
    "concurrency": int,
    "options": dict,
    "clock": dict,
    "limits": dict,
    "sandbox": str,
    "ponder": bool,
    "agents": list,
    "target_interval": (int, float),  # swiss only (see arena/tournament/plan/swiss.py)
    "max_matches": int,  # swiss only
    "submissions": dict,  # what submitted bots may be (arena/tournament/plan/submission_limits.py)
    "season": dict,  # season only: matchmaking knobs (arena/tournament/plan/season_keys.py)
}
KEY_KINDS = {
    "seed": f'an integer or "{SECRET_SEED}"',
    "target_interval": "a number",
}  # what to say of a key whose type is wrong
CLOCK_KEYS: dict[str, type] = {"move_ms": int, "bank_ms": int, "handshake_ms": int}
LIMIT_KEYS: dict[str, type] = {"memory_mb": int, "cpu_seconds": int, "cpus": int}
AGENT_KEYS: dict[str, type] = {"name": str, "agent": str, "options": dict}
REQUIRED_TOP = ("name", "game", "agents")
# Clock defaults are the MatchSpec's, so a ladder and a single match agree.
SPEC_DEFAULTS: dict[str, Any] = {f.name: f.default for f in fields(MatchSpec)}


class LadderError(ValueError):
    """A ladder file that cannot be used; the message names the file, line and key."""


@dataclass(frozen=True)
class Entrant:
    """One agent entered in a ladder under its own display ``name``.

    ``agent`` is a plugin agent name or an absolute path to an executable; ``options`` are the
    agent options sent in its hello message. The same plugin agent may enter several times
    under different names (e.g. two randoms with different seeds).
    """

    name: str
    agent: str
    options: dict[str, Any] = field(default_factory=dict)
    version: str | None = None  # a plugin agent's version (a new one enters as name@version)
    # a submitted bot's: the entrant (base name) whose latest rating mean a new version starts from
    inherits: str | None = None


@dataclass(frozen=True)
class Ladder:
    """A validated tournament definition. ``digest`` identifies its content for resume."""

    name: str
    game: str
    players: int
    format: str
    entrants: tuple[Entrant, ...]
    options: dict[str, Any]
    matches_per_pairing: int = 1
    seed: int = 0
    secret_seed: bool = False  # seed = "secret": the run draws its base seed (``seed`` unused)
    challenger: str | None = None
    automaton: str | None = None
    move_ms: int = SPEC_DEFAULTS["move_ms"]
    bank_ms: int = SPEC_DEFAULTS["bank_ms"]
    handshake_ms: int = SPEC_DEFAULTS["handshake_ms"]
    memory_mb: int | None = None
    cpu_seconds: int | None = None
    cpus: int = SPEC_DEFAULTS["cpus"]
    ponder: bool = SPEC_DEFAULTS["ponder"]  # may bots run while not deciding (see docs/security.md)
    sandbox: str | None = None  # "bwrap" or "none"; None: the strongest available
    concurrency: int | None = None
    target_interval: float | None = None  # swiss: stop once every 95% interval is narrower (Elo)
    max_matches: int | None = None  # swiss: stop after this many matches at most
    description: str = ""
    digest: str = ""
    source: str = ""
    submissions: dict[str, Any] = field(default_factory=dict)  # the [submissions] table (limits)
    season: dict[str, Any] = field(default_factory=dict)  # the [season] table (a season's knobs)
    sprt: dict[str, float] | None = (
        None  # an `arena compare` run's test (elo0, elo1, alpha, beta), for the web view
    )

    @property
    def match_count(self) -> int:
        """How many matches the schedule holds: groups x seat rotations x matches_per_pairing."""
        groups = FORMATS[self.format].count_groups(len(self.entrants), self.players)
        return groups * self.players * self.matches_per_pairing

    def match_spec(self, agents: Sequence[str], seed: int, **fields: Any) -> MatchSpec:
        """A match of this ladder's game, options, clocks and limits between ``agents``; ``fields``:
        what this match has of its own (its seats' agent options and names, another sandbox)."""
        settings: dict[str, Any] = dict(
            game=self.game,
            agents=tuple(agents),
            seed=seed,
            options=dict(self.options),
            automaton=self.automaton,
            move_ms=self.move_ms,
            bank_ms=self.bank_ms,
            handshake_ms=self.handshake_ms,
            memory_mb=self.memory_mb,
            cpu_seconds=self.cpu_seconds,
            cpus=self.cpus,
            ponder=self.ponder,
            sandbox=self.sandbox,
        )
        return MatchSpec(**(settings | fields))

    def entrant(self, name: str) -> Entrant:
        """The entrant with display name ``name``."""
        for entrant in self.entrants:
            if entrant.name == name:
                return entrant
        raise KeyError(name)


def content_digest(data: Mapping[str, Any]) -> str:
    """A hash of the ladder's parsed content: comments, layout and key order do not count."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def load_ladder(path: str | os.PathLike[str], registry: Registry) -> Ladder:
    """Read, parse and validate the ladder file at ``path`` against ``registry``."""
    path = Path(path)
    try:
        text = read_utf8(path, "ladder file", MAX_LADDER_BYTES)
    except TextFileError as error:
        raise LadderError(str(error)) from None
    return parse_ladder(text, registry, source=str(path), base_dir=path.resolve().parent)


def parse_ladder(
    text: str, registry: Registry, source: str = "<ladder>", base_dir: Path | None = None
) -> Ladder:
    """Parse ladder TOML ``text``; relative executable paths are resolved from ``base_dir``."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        # tomllib ends its message with "(at line L, column C)"; put the line in front instead.
        message = str(error)
        found = re.search(r"\(at line (\d+), column \d+\)$", message)
        line = found.group(1) if found else "?"
        message = re.sub(r"\s*\(at line \d+, column \d+\)$", "", message)
        raise LadderError(f"{source}:{line}: TOML syntax error: {message}") from None
    except RecursionError:  # tomllib recurses per level of nesting
        raise LadderError(f"{source}: nested more than {MAX_NESTING} deep") from None
    problem = data_problem(data)  # deep nesting, 2**70, TOML dates: refused here, not mid-run
    if problem:
        raise LadderError(f"{source}: {problem}")
    return _Validator(data, text, registry, source, base_dir or Path.cwd()).ladder()


class _Validator:
    """Turns parsed TOML into a Ladder, raising LadderError with the line of the bad key."""

    def __init__(self, data: dict, text: str, registry: Registry, source: str, base_dir: Path) -> None:
        self.data = data
        self.lines = text.splitlines()
        self.registry = registry
        self.source = source
        self.base_dir = base_dir

    def fail(self, path: Sequence[str | int], message: str) -> LadderError:
        line = find_key_line(self.lines, path)
        where = f"{self.source}:{line}" if line else self.source
        return LadderError(f"{where}: {message}")

    def check_keys(
        self, table: Mapping[str, Any], allowed: Mapping[str, Any], path: tuple, label: str
    ) -> None:
        for key, value in table.items():
            if key not in allowed:
                known = ", ".join(allowed)
                raise self.fail((*path, key), f"unknown key {key!r} in {label}; known keys: {known}")
            expected = allowed[key]
            if expected is int and isinstance(value, bool) or not isinstance(value, expected):
                names = {
                    int: "an integer",
                    str: "a string",
                    dict: "a table",
                    list: "an array",
                    bool: "true or false",
                }
                kinds = expected if isinstance(expected, tuple) else (expected,)
                name = KEY_KINDS.get(key) or " or ".join(names[kind] for kind in kinds)
                raise self.fail((*path, key), f"key {key!r} in {label} must be {name}, got {value!r}")

    def positive(self, value: int, path: tuple, label: str) -> int:
        if value < 1:
            raise self.fail(path, f"{label} must be at least 1, got {value}")
        return value

    def ladder(self) -> Ladder:
        data = self.data
        self.check_keys(data, TOP_KEYS, (), "the ladder")
        for key in REQUIRED_TOP:
            if key not in data:
                raise self.fail((), f"missing required key {key!r}")
        if not data["name"].strip():
            raise self.fail(("name",), "key 'name' must not be empty")
        game_id = data["game"]
        if game_id not in self.registry.games:
            known = ", ".join(sorted(self.registry.games)) or "none"
            raise self.fail(("game",), f"unknown game {game_id!r}; known games: {known} (see `arena games`)")
        game = self.registry.games[game_id]

        fmt = data.get("format", "round-robin")
        if fmt not in LADDER_FORMATS:
            raise self.fail(
                ("format",), f"unknown format {fmt!r}; known formats: {', '.join(LADDER_FORMATS)}"
            )
        automaton = self.automaton(fmt, game)
        players = data.get("players", FORMATS[fmt].default_players)
        # Without an automaton a match needs two agents; solo adds the automaton's seat.
        low = max(game.min_players, FORMATS[fmt].min_players)
        if not low <= players <= game.max_players:
            raise self.fail(
                ("players",),
                f"game {game_id!r} takes {low} to {game.max_players} players, got players = {players}",
            )
        if "automaton" in data.get("options", {}):
            raise self.fail(
                ("options", "automaton"),
                f"set the automaton with the top-level keys format = '{owner('automaton')}' and automaton = NAME, not in [options]",
            )
        try:
            options = validate_options(game.option_schema(), data.get("options", {}))
        except BadOptions as error:
            found = re.search(r"option '([^']+)'", str(error))
            raise self.fail(
                ("options", found.group(1)) if found else ("options",), f"[options]: {error}"
            ) from None
        self.try_setup(game, players, options, automaton)
        clock = data.get("clock", {})
        self.check_keys(clock, CLOCK_KEYS, ("clock",), "[clock]")
        limits = data.get("limits", {})
        self.check_keys(limits, LIMIT_KEYS, ("limits",), "[limits]")
        for table, values in (("clock", clock), ("limits", limits)):
            for key, value in values.items():
                self.positive(value, (table, key), f"{table}.{key}")

        entrants = self.entrants(game_id, players, automaton)
        challenger = self.challenger(fmt, entrants, players)
        if len(entrants) < players:
            raise self.fail(
                ("agents",),
                f"format {fmt!r} with players = {players} needs at least {players} agents, got {len(entrants)}",
            )
        seed = data.get("seed", SECRET_SEED)  # no seed: a secret one, so no deal can be computed in advance
        if isinstance(seed, str) and seed != SECRET_SEED:
            raise self.fail(("seed",), f"key 'seed' in the ladder must be {KEY_KINDS['seed']}, got {seed!r}")
        ladder = Ladder(
            name=data["name"],
            description=data.get("description", ""),
            game=game_id,
            players=players,
            format=fmt,
            entrants=entrants,
            options=options,
            matches_per_pairing=self.positive(
                data.get("matches_per_pairing", 1), ("matches_per_pairing",), "matches_per_pairing"
            ),
            seed=0 if seed == SECRET_SEED else seed,
            secret_seed=seed == SECRET_SEED,
            challenger=challenger,
            automaton=automaton,
            move_ms=clock.get("move_ms", SPEC_DEFAULTS["move_ms"]),
            bank_ms=clock.get("bank_ms", SPEC_DEFAULTS["bank_ms"]),
            handshake_ms=clock.get("handshake_ms", SPEC_DEFAULTS["handshake_ms"]),
            memory_mb=limits.get("memory_mb"),
            cpu_seconds=limits.get("cpu_seconds"),
            cpus=limits.get("cpus", SPEC_DEFAULTS["cpus"]),
            ponder=data.get("ponder", SPEC_DEFAULTS["ponder"]),
            sandbox=self.sandbox(data.get("sandbox")),
            concurrency=self.positive(data["concurrency"], ("concurrency",), "concurrency")
            if "concurrency" in data
            else None,
            submissions=self.submissions(),
            season=self.season(fmt, players, low, game.max_players),
            digest=content_digest(data),
            source=self.source,
            **self.adaptive_keys(fmt),
        )
        if FORMATS[fmt].adaptive:  # plays rounds until settled, at most max_matches (swiss.max_matches)
            if (ladder.max_matches or 0) > MAX_MATCHES:
                raise self.fail(
                    ("max_matches",),
                    f"max_matches = {ladder.max_matches} is over the limit of {MAX_MATCHES:,} per ladder; lower it",
                )
        elif ladder.match_count > MAX_MATCHES:
            raise self.fail(
                ("matches_per_pairing",),
                f"matches_per_pairing = {ladder.matches_per_pairing} schedules {ladder.match_count:,} matches, "
                f"over the limit of {MAX_MATCHES:,} per ladder; lower it, or split the tournament into several ladders",
            )
        return ladder

    def submissions(self) -> dict[str, Any]:
        """The ``[submissions]`` table, checked (arena/tournament/plan/submission_limits.py)."""
        from arena.tournament.plan.submission_limits import limits_problem

        table = self.data.get("submissions", {})
        problem = limits_problem(table)
        if problem:
            raise self.fail(("submissions",), problem)
        return dict(table)

    def season(self, fmt: str, players: int, low: int, high: int) -> dict[str, Any]:
        """The ``[season]`` table, checked (arena/tournament/plan/season_keys.py); refused with
        any other format."""
        from arena.tournament.plan.season_keys import SeasonKeyError, season_settings

        if "season" not in self.data:
            return {}
        if "season" not in FORMATS[fmt].keys:
            raise self.fail(("season",), f"table [season] is only used with format = '{owner('season')}'")
        table = self.data["season"]
        try:
            settings = season_settings(table, players)
        except SeasonKeyError as error:
            raise self.fail(("season", error.key) if error.key else ("season",), str(error)) from None
        outside = [n for n in settings.policy.seats if not low <= n <= high]
        if outside:
            raise self.fail(
                ("season", "seats"),
                f"[season] seats {outside} are outside the game's {low} to {high} players",
            )
        return dict(table)

    def adaptive_keys(self, fmt: str) -> dict[str, Any]:
        """The swiss format's stopping keys, each positive; refused with any other format."""
        found: dict[str, Any] = {}
        for key in ("target_interval", "max_matches"):
            if key not in self.data:
                continue
            if key not in FORMATS[fmt].keys:
                raise self.fail((key,), f"key {key!r} is only used with format = '{owner(key)}'")
            if self.data[key] <= 0:
                raise self.fail((key,), f"{key} must be above 0, got {self.data[key]}")
            found[key] = self.data[key]
        return found

    def sandbox(self, name: str | None) -> str | None:
        """The ladder's ``sandbox`` key: one of arena.process.sandbox.SANDBOXES (None: the strongest available)."""
        if name is not None and name not in SANDBOXES:
            raise self.fail(("sandbox",), f'sandbox = {name!r}: use "bwrap" or "none" (see docs/security.md)')
        return name

    def try_setup(self, game: Any, players: int, options: dict[str, Any], automaton: str | None) -> None:
        """Set up one game now, so options the engine refuses in combination fail here, not per match."""
        trial = dict(options, automaton=automaton) if automaton else dict(options)
        try:
            game.setup(players, 0, trial)
        except (BadOptions, ValueError) as error:
            raise self.fail(
                ("options",), f"game {game.id!r} cannot be set up with these options: {error}"
            ) from None

    def automaton(self, fmt: str, game: Any) -> str | None:
        if not FORMATS[fmt].automaton:
            if "automaton" in self.data:
                raise self.fail(
                    ("automaton",), f"key 'automaton' is only used with format = '{owner('automaton')}'"
                )
            return None
        if not game.automata:
            raise self.fail(
                ("format",), f"game {game.id!r} has no automaton, so format '{fmt}' cannot be used"
            )
        automaton = self.data.get("automaton", game.automata[0])
        if automaton not in game.automata:
            known = ", ".join(game.automata)
            raise self.fail(
                ("automaton",), f"unknown automaton {automaton!r} for game {game.id!r}; known: {known}"
            )
        return automaton

    def challenger(self, fmt: str, entrants: tuple[Entrant, ...], players: int) -> str | None:
        challenger = self.data.get("challenger")
        if "challenger" not in FORMATS[fmt].keys:
            if challenger is not None:
                raise self.fail(
                    ("challenger",), f"key 'challenger' is only used with format = '{owner('challenger')}'"
                )
            return None
        if challenger is None and "challenger" in FORMATS[fmt].required:
            raise self.fail(("format",), f"format '{fmt}' needs a 'challenger' key naming one of the agents")
        names = [entrant.name for entrant in entrants]
        if challenger not in names:
            raise self.fail(
                ("challenger",), f"challenger {challenger!r} is not one of the agents: {', '.join(names)}"
            )
        return challenger

    def entrants(self, game_id: str, players: int, automaton: str | None) -> tuple[Entrant, ...]:
        entrants: list[Entrant] = []
        for index, entry in enumerate(self.data["agents"]):
            path = ("agents", index)
            if not isinstance(entry, dict):
                raise self.fail(
                    ("agents",), f"agents[{index}] must be a table with keys name, agent, options"
                )
            self.check_keys(entry, AGENT_KEYS, path, f"agents[{index}]")
            if "agent" not in entry:
                raise self.fail(
                    path, f"agents[{index}] is missing the key 'agent' (a plugin agent or a path)"
                )
            agent = self.resolve_agent(entry["agent"], game_id, players, (*path, "agent"))
            name: str = entry["name"] if "name" in entry else entry["agent"]  # strings: check_keys
            if any(other.name == name for other in entrants):
                raise self.fail(
                    (*path, "name" if "name" in entry else "agent"),
                    f"agent name {name!r} is entered twice; give each entry a distinct 'name'",
                )
            if name == automaton:
                raise self.fail((*path, "name"), f"agent name {name!r} is the automaton's; choose another")
            spec = self.registry.agents.get(agent)
            version = spec.version if spec is not None else None
            options = dict(entry.get("options", {}))
            if spec is not None:
                self.check_agent_options(spec, options, (*path, "options"))
            entrants.append(Entrant(name, agent, options, version))
        return tuple(entrants)

    def check_agent_options(self, spec: AgentSpec, options: dict[str, Any], path: tuple) -> None:
        """Refuse an option ``spec`` does not declare, or of the wrong type or range, at its line
        (the options are kept as written: the agent reads them)."""
        try:
            spec.check_options(options)
        except BadOptions as error:
            found = re.search(r"option '([^']+)'", str(error))
            where = (*path, found.group(1)) if found else path
            raise self.fail(where, f"{error} (see `arena agents {spec.name}`)") from None

    def resolve_agent(self, agent: str, game_id: str, players: int, path: tuple) -> str:
        """A plugin agent's name (checked against the registry) or an executable's absolute path."""
        if "/" in agent or os.sep in agent:
            file = (self.base_dir / agent).resolve()
            if not file.is_file() or not os.access(file, os.X_OK):
                raise self.fail(path, f"agent path {agent!r} is not an executable file (looked at {file})")
            return str(file)
        if agent not in self.registry.agents:
            known = ", ".join(sorted(self.registry.agents)) or "none"
            raise self.fail(path, f"unknown agent {agent!r}; known agents: {known} (see `arena agents`)")
        spec = self.registry.agents[agent]
        if not spec.plays(game_id):
            raise self.fail(
                path, f"agent {agent!r} does not play {game_id!r} (it plays {', '.join(spec.games)})"
            )
        if spec.players and players not in spec.players:
            raise self.fail(path, f"agent {agent!r} does not play {players}-player games")
        return agent


_HEADER = re.compile(r"^\s*(\[\[?)\s*([A-Za-z0-9_.\-\"' ]+?)\s*\]\]?\s*(#.*)?$")


def find_key_line(lines: Sequence[str], path: Sequence[str | int]) -> int | None:
    """The 1-based line where the key at ``path`` is written, or the nearest enclosing one.

    ``path`` is a key path such as ("clock", "move_ms") or ("agents", 2, "name"). Handles
    the plain layouts ladders use (tables, arrays of tables, dotted/inline values); when a key
    cannot be found, falls back to its parent's line so the message still points somewhere.
    """
    for depth in range(len(path), 0, -1):
        found = _find_exact(lines, list(path[:depth]))
        if found:
            return found
    return None


def _find_exact(lines: Sequence[str], path: list[str | int]) -> int | None:
    table: list[str | int] = []
    array_counts: dict[str, int] = {}
    for number, line in enumerate(lines, start=1):
        header = _HEADER.match(line)
        if header:
            name = header.group(2).strip().strip("\"'")
            if header.group(1) == "[[":
                array_counts[name] = array_counts.get(name, -1) + 1
                table = [*name.split("."), array_counts[name]]
            else:
                table = [*name.split(".")]
            if table == path:
                return number
            continue
        key = re.match(r"^\s*([A-Za-z0-9_\-\"'.]+)\s*=", line)
        if not key:
            continue
        full = table + [part.strip("\"'") for part in key.group(1).split(".")]
        # A key inside an inline table (options = {seed = 1}) is found at its parent's line.
        if full == path or (len(path) > len(full) and path[: len(full)] == full):
            return number
    return None

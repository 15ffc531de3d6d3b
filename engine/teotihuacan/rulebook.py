"""The rules of one game as a ``Rulebook``: the base rules' parts and those of the Late Preclassic
modules in play, built once per module set and held by the state (shared by its clones).

The base rules files and the modules are listed here once, in the order their parts are read:
at a hook point shared by several modules, the hooks run in ``ORDER`` (then the ``last``
adjusters, in the same order).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache
from typing import Any

from . import teotibot
from .data import DATA
from .hooks import (
    POINTS,
    SEAT_POINTS,
    Auto,
    Automaton,
    Board,
    BotStep,
    BotTile,
    Choice,
    Hook,
    MainRule,
    Part,
    SeatTable,
    Simultaneous,
    TurnOption,
    Watcher,
)
from .modules import BIT, MODULES
from .preclassic import height, newboards, priests, seasons
from .rules import actions, calendar, effects, setup, turn, worship

# The base rules, every game.
BASE: tuple[tuple[Part, ...], ...] = (
    actions.PARTS,
    calendar.PARTS,
    effects.PARTS,
    setup.PARTS,
    turn.PARTS,
    worship.PARTS,
    teotibot.PARTS,
)
# The Late Preclassic modules' parts, each read while one of its modules is in play, in the order
# their hooks run at a shared point.
ORDER: tuple[tuple[tuple[str, ...], tuple[Part, ...]], ...] = (
    (("seasons",), seasons.PARTS),
    (("height",), height.PARTS),
    (("priests",), priests.PARTS),
    (("architecture",), newboards.ARCHITECTURE),
    (("development",), newboards.DEVELOPMENT),
    (("architecture", "development"), newboards.EITHER),
)
assert {name for names, _ in ORDER for name in names} == set(MODULES)


class Rulebook:
    """Every part of one game's rules, looked up by kind, point, board or number.

    ``mods``: the module set (a bit mask, see modules.py); the hooks found per seat condition
    (``seat_hooks``) and the per-set values (``modules.per_set``) are kept here, found once."""

    def __init__(self, parts: Iterable[Part], mods: int = 0) -> None:
        self.mods = mods
        self.auto: dict[str, Callable[[Any, tuple], None]] = {}
        self.choice: dict[str, Choice] = {}
        self.automaton: dict[str, Callable[[Any, tuple, list[tuple]], tuple]] = {}
        self.simultaneous: dict[str, Callable[[Any], tuple[int, ...]]] = {}
        self.watchers: tuple[Watcher, ...] = ()
        self.main: dict[int, MainRule] = {}
        self.turn: dict[str, TurnOption] = {}
        self.bot_tiles: dict[int, Callable[[Any, int], None]] = {}
        self.bot_steps: dict[int, Callable[[Any, int], list | None]] = {}
        self.hooks: dict[str, tuple[Hook, ...]] = {point: () for point in POINTS}
        self.per_set: dict[str, Any] = {}
        self._seat_tables: dict[tuple[int, int, int, int], tuple[SeatTable, SeatTable]] = {}
        last: list[Hook] = []
        for part in parts:
            if isinstance(part, Hook):
                point = POINTS.get(part.point)
                if point is None:
                    raise ValueError(
                        f"unknown hook point {part.point!r} ({part.fn.__qualname__}); see hooks.POINTS"
                    )
                if point.kind != part.kind:
                    raise ValueError(
                        f"{part.fn.__qualname__}: point {part.point!r} takes {point.kind} hooks, not {part.kind}"
                    )
                if part.last:
                    last.append(part)
                else:
                    self.hooks[part.point] += (part,)
            else:
                self._add(part)
        for hook in last:
            self.hooks[hook.point] += (hook,)
        self.board_names = dict(DATA.board_names) | {board: rule.name for board, rule in self.main.items()}

    def __reduce__(self) -> tuple[Callable[[int], Rulebook], tuple[int]]:
        """Pickled by its module set (states travel to processes and cluster workers); a
        rulebook built by hand (a test's) has no name to be found by, and does not pickle."""
        if for_modules(self.mods) is not self:
            raise TypeError("a rulebook built by hand does not pickle; only rulebook.for_modules(mods)'s do")
        return for_modules, (self.mods,)

    def _add(self, part: Part) -> None:
        if isinstance(part, Auto):
            _put(self.auto, part.kind, part.run, False, "automatic frame")
        elif isinstance(part, Choice):
            _put(self.choice, part.kind, part, False, "choice frame")
        elif isinstance(part, Automaton):
            _put(self.automaton, part.kind, part.pick, part.replaces, "automaton policy")
        elif isinstance(part, Simultaneous):
            _put(self.simultaneous, part.kind, part.pending, False, "simultaneous choice")
        elif isinstance(part, Watcher):
            self.watchers += (part,)
        elif isinstance(part, Board):
            _put(self.main, part.board, part.rule, False, "Action Board")
        elif isinstance(part, TurnOption):
            _put(self.turn, part.name, part, False, "turn option")
        elif isinstance(part, BotTile):
            _put(self.bot_tiles, part.number, part.act, part.replaces, "Teotibot Action tile")
        elif isinstance(part, BotStep):
            _put(self.bot_steps, part.board, part.step, part.replaces, "Teotibot board step")
        else:
            raise TypeError(f"not a rulebook part: {part!r}")

    def seat_hooks(
        self, tile: int, abilities: int, season: int, bot_tile: int
    ) -> tuple[SeatTable, SeatTable]:
        """(point -> adjusters, point -> listeners) that run for a seat keeping player tile ``tile``
        (0: none) with ``abilities``, under Season tile ``season``, Teotibot keeping ``bot_tile``."""
        key = (tile, abilities, season, bot_tile)
        found = self._seat_tables.get(key)
        if found is None:
            adjusters: SeatTable = dict.fromkeys(SEAT_POINTS, ())
            listeners: SeatTable = dict.fromkeys(SEAT_POINTS, ())
            for point in SEAT_POINTS:
                table = listeners if POINTS[point].kind == "fire" else adjusters
                table[point] = tuple(
                    h.fn for h in self.hooks[point] if h.when.holds(tile, abilities, season, bot_tile)
                )
            found = self._seat_tables[key] = (adjusters, listeners)
        return found

    def each(self, st: Any, point: str, *args: Any) -> None:
        """Call every hook at an 'each' point."""
        for hook in self.hooks[point]:
            hook.fn(st, *args)

    def lines(self, st: Any, point: str = "render") -> list[str]:
        """The lines every hook at a 'lines' point adds."""
        return [line for hook in self.hooks[point] for line in hook.fn(st)]


def _put(table: dict, key: Any, value: Any, replaces: bool, what: str) -> None:
    """One part per key: a second one only where it says it replaces the first."""
    if (key in table) != replaces:
        raise ValueError(
            f"{what} {key!r} is declared twice" if not replaces else f"{what} {key!r} replaces nothing"
        )
    table[key] = value


def module_parts(mods: int) -> list[Part]:
    """The parts of the base rules and of the modules of ``mods``, in ``ORDER``."""
    parts: list[Part] = [part for table in BASE for part in table]
    for names, table in ORDER:
        if any(mods & BIT[name] for name in names):
            parts.extend(table)
    return parts


@cache
def for_modules(mods: int) -> Rulebook:
    """The rulebook of module set ``mods`` (built once, then shared)."""
    return Rulebook(module_parts(mods), mods)

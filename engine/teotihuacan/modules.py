"""The Late Preclassic Period modules: their names, the `modules` option, and the hooks through
which a module changes the base rules.

A game's modules are a bit mask on the state (``st.mods``; 0 = the base game, which then never
calls a hook, so its records and results stay exactly as before). A module plugs in by
registering functions here when its file is imported (``seasons.py``, ``newboards.py``, ...):

- ``SETUP``: ``fn(st, rng)`` at the end of the board setup, before the first decision;
- ``ECLIPSE_START`` / ``ECLIPSE_END``: ``fn(st)`` before an Eclipse is scored / after a
  non-final Eclipse, before the next turn (e.g. swapping the Season tile);
- ``RENDER``: ``fn(st) -> lines`` added to ``render()``;
- ``MAIN``: a module that replaces Action Board 6, 7 or 8 registers ``MainRule`` for it;
- ``adjust(st, point, seat, value, *args)``: named numbers a module may change (a cost, a
  salary, the move distances); ``fire(st, point, seat, *args)``: named moments at which a
  module adds frames (after an Avenue step, after a temple step, after Ascension).

Every hook is called only while its module is in play, and a hook may name when else it
matters (``When``): for a seat keeping one of some player priest tiles (M1, ``tiles=``), while
Teotibot keeps one of some bot tiles (``bot_tiles=``), while one Season tile is active (M3,
``season=``), for a seat holding one Special Ability (M2, ``ability=``). The hook still tests
its own rule; the condition only spares calling it where it would change nothing. The list of
points is ``POINTS``.

The hooks that run are found per seat and kept on the state (``st.adjusters[seat][point]``,
``st.listeners[seat][point]``; index -1, one past the seats, is for no seat), as a game asks
``adjust`` some 800 times: ``refresh(st)`` finds them again and must follow every change of
what they depend on (the priest tiles kept, the Season tile, a seat's abilities).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from engine.api import BadOptions

from .data import DATA
from .expansion_data import EXP
from .frames import WATCHERS

MODULES = ("priests", "height", "seasons", "architecture", "development")
BIT = {name: 1 << i for i, name in enumerate(MODULES)}
ALL = (1 << len(MODULES)) - 1
TITLES = {
    "priests": "M1 Priests and Priestesses",
    "height": "M2 Height of Development",
    "seasons": "M3 Seasons of Progress",
    "architecture": "M4 Architecture",
    "development": "M5 Development",
}
# Modules whose rules are built; the option refuses the others with a clear message.
IMPLEMENTED: set[str] = set()

# Adjustment points (adjust) and moments (fire), with what they receive and return.
POINTS = {
    "move": "adjust: the tuple of distances a normal move may take (base (1, 2, 3))",
    "main_cost": "adjust: cocoa cost of a Main action; args (board, excluded workers)",
    "collect_cocoa": "adjust: cocoa from Collect Cocoa; args (board, excluded workers)",
    "salary": "adjust: cocoa salary due at an Eclipse",
    "virtual_workers": "adjust: virtual workers of seat on a Main action; args (board,)",
    "pyramid_step_vp": "adjust: VP per Pyramid-track step at this Eclipse",
    "avenue": "fire: frames after seat's Avenue marker advanced one step",
    "temple": "fire: frames after seat advanced on temple t; args (t,)",
    "ascend": "fire: frames after worker w Ascended (after its reward); args (w,)",
    "starting_tiles_chosen": "fire: frames after every seat kept its Starting tiles, before they resolve (seat -1)",
    "temple_gate": "fire: frames that replace a temple step (a price first); args (t,); empty = step as usual",
    "may_claim": "adjust: whether seat may claim discovery tile tid; args (tid, where)",
    "can_pay_claim": "adjust: whether seat can pay tile tid (base: its cost); args (tid,)",
    "claim": "fire: frames after seat claimed discovery tile tid (called before paying); args (tid,)",
    "worship_fee": "adjust: cocoa of a Worship; args (unlock 0/1, both 0/1)",
    "may_worship": "adjust: whether seat may Worship at all",
    "unlock_cost": "adjust: cocoa to unlock all own workers (-1: not allowed)",
    "turn_options": "adjust: the turn's option list; a module adds ('mod', name, ...) handled by TURN[name]",
    "moved": "fire: frames after seat moved worker w (a turn's move, the orange temple's 1-2); args (w,)",
    "own_vp": "adjust: VP of a gain of its own inside a step (a Technology's after-action VP)",
    "main_wood": "adjust: extra wood paid for a Main action; args (board,)",
    "resource_main": "fire: frames replacing the Main action of board 2-4 (a choice first); args (board,)",
    "tech_gold": "adjust: gold price of a Technology",
    "alchemy_any_row": "adjust: whether one worker may research any Technology",
    "build_extra": "adjust: resources of one's choice added to a Building's or Pyramid tile's price",
    "score_vp": "adjust: positive VP of one Eclipse scoring category",
    "bot_roll": "fire: frames replacing Teotibot's action for the tile at position pos; args (pos,)",
    "orange_step": "fire: frames of the orange temple's ability / move-back step (M2); args (step,)",
    "eclipse_avenue": "adjust: the Avenue position an Eclipse scores",
    "eclipse_masks": "adjust: VP of seat's mask sets at an Eclipse",
    "worship_spaces": "adjust: the (space, board) pairs of the Worship spaces (per_set: seat -1)",
}
# Ways to take a turn a module adds ("turn_options"): name -> (label(st, payload), resolve(st, seat, payload)).
TURN: dict[str, tuple[Callable, Callable]] = {}


def parse(value: Any) -> int:
    """The `modules` option as a bit mask: '' or None = none, 'all' (every module built), or a
    comma-separated list of names."""
    if value is None:
        return 0
    if not isinstance(value, str):
        raise BadOptions(
            f"option 'modules' must be a comma-separated string of {', '.join(MODULES)} or 'all'"
        )
    names = [part.strip().lower() for part in value.split(",") if part.strip()]
    if names == ["all"]:  # every module built (all five once M1 and M2 are in)
        names = [name for name in MODULES if name in IMPLEMENTED]
    mask = 0
    for name in names:
        if name not in BIT:
            raise BadOptions(
                f"option 'modules': unknown module {name!r}; valid: {', '.join(MODULES)} or 'all' "
                "(comma-separated)"
            )
        if name not in IMPLEMENTED:
            raise BadOptions(
                f"option 'modules': {TITLES[name]} is not built yet; built: "
                f"{', '.join(m for m in MODULES if m in IMPLEMENTED) or 'none'}"
            )
        mask |= BIT[name]
    return mask


def canonical(mask: int) -> str:
    """The module names of a mask, in rulebook order, comma-separated ('' for none)."""
    return ",".join(name for name in MODULES if mask & BIT[name])


def active(st: Any, name: str) -> bool:
    """Whether module ``name`` is in play."""
    return bool(st.mods & BIT[name])


# ---- the hook registries ----------------------------------------------------------------------------
SETUP: list[tuple[int, Callable]] = []
ECLIPSE_START: list[tuple[int, Callable]] = []
ECLIPSE_END: list[tuple[int, Callable]] = []
RENDER: list[tuple[int, Callable]] = []
ADJUST: dict[str, list[tuple[int, Callable]]] = {p: [] for p in POINTS}
ADJUST_LAST: dict[str, list[tuple[int, Callable]]] = {p: [] for p in POINTS}
FIRE: dict[str, list[tuple[int, Callable]]] = {p: [] for p in POINTS}


@dataclass(frozen=True)
class When:
    """When a hook can matter, besides its module in play (empty / 0: always)."""

    tiles: frozenset[int] = frozenset()  # the seat keeps one of these player tiles (1-based)
    bot_tiles: frozenset[int] = frozenset()  # Teotibot keeps one of these bot tiles (1-based)
    season: int = 0  # this Season tile is active
    ability: int = 0  # the seat holds this Special Ability (its bit in ``st.ability``)

    def holds(self, tile: int, abilities: int, season: int, bot_tile: int) -> bool:
        return (
            (not self.tiles or tile in self.tiles)
            and (not self.bot_tiles or bot_tile in self.bot_tiles)
            and (not self.season or season == self.season)
            and (not self.ability or abilities & self.ability != 0)
        )


# The hooks registered with a condition: fn -> When.
WHEN: dict[Callable, When] = {}


@dataclass(frozen=True)
class MainRule:
    """A module's replacement of an Action Board's Main action (board 6, 7 or 8)."""

    name: str  # the board's new name ("Architecture")
    possible: Callable  # (st, seat, board, extra) -> bool, its cocoa cost aside
    start: Callable  # (st, seat, board, extra) -> None: push the action's frames


MAIN: dict[int, tuple[int, MainRule]] = {}


def on_setup(module: str) -> Callable:
    """Register ``fn(st, rng)`` as a set-up step of ``module``."""
    return _register(SETUP, module)


def on_eclipse_start(module: str) -> Callable:
    """Register ``fn(st)`` to run when an Eclipse begins, before its scoring."""
    return _register(ECLIPSE_START, module)


def on_eclipse_end(module: str) -> Callable:
    """Register ``fn(st)`` to run after a non-final Eclipse, before the next turn."""
    return _register(ECLIPSE_END, module)


def on_render(module: str) -> Callable:
    """Register ``fn(st) -> list of lines`` for ``render()`` (after the players' lines)."""
    return _register(RENDER, module)


def adjuster(point: str, module: str, last: bool = False, **when: Any) -> Callable:
    """Register ``fn(st, seat, value, *args) -> value`` at an adjustment point; ``last``: after
    every ordinary one (a rule that overrides the others, e.g. "always exactly 1 cocoa");
    ``when``: tiles, bot_tiles, season, ability (see ``When``)."""
    return _register((ADJUST_LAST if last else ADJUST)[point], module, **when)


def listener(point: str, module: str, **when: Any) -> Callable:
    """Register ``fn(st, seat, *args) -> list of frames`` at a moment (``when``: as ``adjuster``)."""
    return _register(FIRE[point], module, **when)


def replace_board(board: int, module: str, rule: MainRule) -> None:
    """``module`` replaces Action Board ``board``'s Main action with ``rule``."""
    MAIN[board] = (BIT[module], rule)
    registries_changed()


def _register(
    registry: list,
    module: str,
    tiles: tuple[str, ...] = (),
    bot_tiles: tuple[str, ...] = (),
    season: str = "",
    ability: str = "",
) -> Callable:
    bit = BIT[module]
    when = When(
        frozenset(EXP.priests.index(pid) + 1 for pid in tiles),
        frozenset(EXP.bot_priests.index(pid) + 1 for pid in bot_tiles),
        EXP.season_by_id[season] if season else 0,
        1 << EXP.ability_index[ability] if ability else 0,
    )

    def register(fn: Callable) -> Callable:
        registry.append((bit, fn))
        if when != When():
            WHEN[fn] = when
        registries_changed()
        return fn

    return register


def registries_changed() -> None:
    """Forget the hooks found per module set: call after changing a registry by hand (a test),
    then ``refresh`` the states in use."""
    _seat_hooks.cache_clear()
    _set_hooks.cache_clear()
    _PER_SET.clear()
    _board_names.cache_clear()


def refresh(st: Any) -> None:
    """Find the hooks that run for each seat of ``st`` (and for no seat, at index -1), and the
    step watchers (``frames.WATCHERS``). Call after any change of what a ``When`` tests: the
    priest tiles kept, the Season tile, a seat's abilities (and once a state is made)."""
    bot_tile = st.priest[st.bot] if st.bot >= 0 else 0
    tables = [
        _seat_hooks(st.mods, st.priest[s] if s != st.bot else 0, st.ability[s], st.season, bot_tile)
        for s in range(st.n)
    ]
    tables.append(_seat_hooks(st.mods, 0, 0, st.season, bot_tile))  # no seat (index -1)
    st.adjusters = tuple(adjusters for adjusters, _ in tables)
    st.listeners = tuple(listeners for _, listeners in tables)
    st.watchers = tuple((fn, s) for seats, fn in WATCHERS for s in seats(st)) if st.mods else ()


@cache
def _seat_hooks(mods: int, tile: int, abilities: int, season: int, bot_tile: int) -> tuple[dict, dict]:
    """(point -> adjusters, point -> listeners) that run for a seat keeping player tile ``tile``
    (0: none) with ``abilities``, in registration order (the ``last`` adjusters after the others).
    (A plain loop: a game meets a few new seat conditions, each found in one pass.)"""
    tables = []
    for hooks in _set_hooks(mods):
        table = dict.fromkeys(POINTS, ())
        for point, fn, when in hooks:
            if when is None or when.holds(tile, abilities, season, bot_tile):
                table[point] += (fn,)
        tables.append(table)
    return tables[0], tables[1]


@cache
def _set_hooks(mods: int) -> tuple[tuple, tuple]:
    """The adjusters, then the listeners, of the module set: (point, hook, its ``When`` or None),
    in the order they run at each point."""

    def in_play(registry: dict) -> tuple[tuple[str, Callable, When | None], ...]:
        return tuple((p, fn, WHEN.get(fn)) for p in POINTS for bit, fn in registry[p] if mods & bit)

    adjusters = in_play({p: [*ADJUST[p], *ADJUST_LAST[p]] for p in POINTS})
    return adjusters, in_play(FIRE)


# ---- calling the hooks (only ever with st.mods != 0) -------------------------------------------------
def run_all(st: Any, registry: list, *args: Any) -> None:
    """Call every hook of ``registry`` whose module is in play."""
    for bit, fn in registry:
        if st.mods & bit:
            fn(st, *args)


def adjust(st: Any, point: str, seat: int, value: Any, *args: Any) -> Any:
    """``value`` passed through every active module's adjuster at ``point``."""
    hooks = st.adjusters[seat][point]
    if hooks:  # (most often none: a loop over nothing would still cost an iterator)
        for fn in hooks:
            value = fn(st, seat, value, *args)
    return value


_PER_SET: dict[tuple[int, str], Any] = {}


def per_set(st: Any, point: str, base: Any) -> Any:
    """``adjust`` at a point whose value depends on the module set alone (seat -1, ``base`` a
    constant): found once per module set, then looked up."""
    key = (st.mods, point)
    value = _PER_SET.get(key)
    if value is None:
        value = _PER_SET[key] = adjust(st, point, -1, base)
    return value


def fire(st: Any, point: str, seat: int, *args: Any) -> list[tuple]:
    """The frames every active module adds at ``point``, in registration order."""
    hooks = st.listeners[seat][point]
    if not hooks:
        return []
    out: list[tuple] = []
    for fn in hooks:
        out.extend(fn(st, seat, *args))
    return out


def main_rule(st: Any, board: int) -> MainRule | None:
    """The module rule replacing ``board``'s Main action in this game, if any."""
    entry = MAIN.get(board)
    if entry is not None and st.mods & entry[0]:
        return entry[1]
    return None


def board_name(st: Any, board: int) -> str:
    """The board's name in this game (a replaced board goes by its new name)."""
    return _board_names(st.mods)[board] if st.mods else DATA.board_names[board]


@cache
def _board_names(mods: int) -> dict[int, str]:
    names = dict(DATA.board_names)
    for board, (bit, rule) in MAIN.items():
        if mods & bit:
            names[board] = rule.name
    return names

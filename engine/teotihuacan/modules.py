"""The Late Preclassic Period modules: their names, the `modules` option, and calling the hooks
through which a module changes the base rules.

A game's modules are a bit mask on the state (``st.mods``; 0 = the base game, which then never
calls a hook, so its records and results stay exactly as before). The state's rulebook
(``st.rules``, rulebook.py) holds the hooks of the modules in play, declared by each module in
its ``PARTS`` (hooks.py has the table of hook points): ``adjust(st, point, seat, value, *args)``
passes a named number through them (a cost, a salary, the move distances), ``fire(st, point,
seat, *args)`` collects the frames they add at a named moment (after an Avenue step, a temple
step, an Ascension).

A hook may name when else it matters (``hooks.When``): for a seat keeping one of some player
priest tiles (M1), while Teotibot keeps one of some bot tiles, while one Season tile is active
(M3), for a seat holding one Special Ability (M2). The hook still tests its own rule; the
condition only spares calling it where it would change nothing.

The hooks that run are found per seat and kept on the state (``st.adjusters[seat][point]``,
``st.listeners[seat][point]``; index -1, one past the seats, is for no seat), as a game asks
``adjust`` some 800 times: ``refresh(st)`` finds them again and must follow every change of
what they depend on (the priest tiles kept, the Season tile, a seat's abilities).
"""

from __future__ import annotations

from typing import Any

from engine.api import BadOptions

from .data import DATA
from .hooks import MainRule

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
# Modules whose rules are built (rulebook.ORDER has the parts of each); the option refuses others.
IMPLEMENTED = frozenset(MODULES)


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


# ---- calling the hooks (only ever with st.mods != 0) -------------------------------------------------
def refresh(st: Any) -> None:
    """Find the hooks that run for each seat of ``st`` (and for no seat, at index -1), and the
    step watchers. Call after any change of what a ``When`` tests: the priest tiles kept, the
    Season tile, a seat's abilities (and once a state is made)."""
    rules = st.rules
    bot_tile = st.priest[st.bot] if st.bot >= 0 else 0
    tables = [
        rules.seat_hooks(st.priest[s] if s != st.bot else 0, st.ability[s], st.season, bot_tile)
        for s in range(st.n)
    ]
    tables.append(rules.seat_hooks(0, 0, st.season, bot_tile))  # no seat (index -1)
    st.adjusters = tuple(adjusters for adjusters, _ in tables)
    st.listeners = tuple(listeners for _, listeners in tables)
    st.watchers = tuple((w.watch, s) for w in rules.watchers for s in w.seats(st)) if st.mods else ()


def run_all(st: Any, point: str, *args: Any) -> None:
    """Call every hook at an 'each' point (setup, eclipse_start, eclipse_end)."""
    st.rules.each(st, point, *args)


def render_lines(st: Any) -> list[str]:
    """The lines the modules in play add to ``render()``."""
    return st.rules.lines(st)


def adjust(st: Any, point: str, seat: int, value: Any, *args: Any) -> Any:
    """``value`` passed through every active module's adjuster at ``point``."""
    hooks = st.adjusters[seat][point]
    if hooks:  # (most often none: a loop over nothing would still cost an iterator)
        for fn in hooks:
            value = fn(st, seat, value, *args)
    return value


def per_set(st: Any, point: str, base: Any) -> Any:
    """``adjust`` at a point whose value depends on the module set alone (seat -1, ``base`` a
    constant): found once per rulebook, then looked up."""
    found = st.rules.per_set
    value = found.get(point)
    if value is None:
        value = found[point] = adjust(st, point, -1, base)
    return value


def fire(st: Any, point: str, seat: int, *args: Any) -> list[tuple]:
    """The frames every active module adds at ``point``, in ``rulebook.ORDER``."""
    hooks = st.listeners[seat][point]
    if not hooks:
        return []
    out: list[tuple] = []
    for fn in hooks:
        out.extend(fn(st, seat, *args))
    return out


def main_rule(st: Any, board: int) -> MainRule | None:
    """The module rule replacing ``board``'s Main action in this game, if any."""
    return st.rules.main.get(board)


def board_name(st: Any, board: int) -> str:
    """The board's name in this game (a replaced board goes by its new name)."""
    return st.rules.board_names[board] if st.mods else DATA.board_names[board]

"""What a rules file declares: the parts it adds to a rulebook (rulebook.py), the table of
the hook points at which a Late Preclassic module changes the base rules, and ``Rules``: what a
state sees of its rulebook.

A rules file lists its parts in a ``PARTS`` tuple; importing it registers nothing. The parts:

- ``Auto`` / ``Choice``: the handler of an automatic / a choice frame kind (flow.py);
- ``Automaton``: how Teotibot answers a choice kind; ``Simultaneous``: a choice every listed seat
  makes at once, hidden from the others; ``Watcher``: a function run after every step;
- ``Hook``: a function at a hook point of ``POINTS`` (``adjuster``, ``listener``, ``each``,
  ``renderer``);
- ``Board``: a module's replacement of an Action Board's Main action; ``TurnOption``: a module's
  own way to take a turn; ``BotTile`` / ``BotStep``: Teotibot's Action tiles and board steps.

A part keyed by a kind, board or number is one per rulebook; a module's part that replaces the
base rules' says so (``replaces=True``), and the rulebook refuses any other clash.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from .expansion_data import EXP

Frame = tuple
Payload = tuple
State = Any  # the rules run on a ``core.TeoCore``; typed loosely here to keep this module below it


@dataclass(frozen=True)
class Point:
    """A hook point: how its hooks are called, and what they receive and return."""

    kind: Literal["adjust", "fire", "each", "lines"]
    text: str


# The hook points. adjust: ``fn(st, seat, value, *args) -> value``; fire: ``fn(st, seat, *args) ->
# frames``; each: ``fn(st, *args)``; lines: ``fn(st) -> lines``.
POINTS: dict[str, Point] = {
    "move": Point("adjust", "the tuple of distances a normal move may take (base (1, 2, 3))"),
    "main_cost": Point("adjust", "cocoa cost of a Main action; args (board, excluded workers)"),
    "collect_cocoa": Point("adjust", "cocoa from Collect Cocoa; args (board, excluded workers)"),
    "salary": Point("adjust", "cocoa salary due at an Eclipse"),
    "virtual_workers": Point("adjust", "virtual workers of seat on a Main action; args (board,)"),
    "pyramid_step_vp": Point("adjust", "VP per Pyramid-track step at this Eclipse"),
    "avenue": Point("fire", "frames after seat's Avenue marker advanced one step"),
    "temple": Point("fire", "frames after seat advanced on temple t; args (t,)"),
    "ascend": Point("fire", "frames after worker w Ascended (after its reward); args (w,)"),
    "starting_tiles_chosen": Point(
        "fire", "frames after every seat kept its Starting tiles, before they resolve (seat -1)"
    ),
    "temple_gate": Point(
        "fire", "frames that replace a temple step (a price first); args (t,); empty = step as usual"
    ),
    "may_claim": Point("adjust", "whether seat may claim discovery tile tid; args (tid, where)"),
    "can_pay_claim": Point("adjust", "whether seat can pay tile tid (base: its cost); args (tid,)"),
    "claim": Point(
        "fire", "frames after seat claimed discovery tile tid (called before paying); args (tid,)"
    ),
    "worship_fee": Point("adjust", "cocoa of a Worship; args (unlock 0/1, both 0/1)"),
    "may_worship": Point("adjust", "whether seat may Worship at all"),
    "unlock_cost": Point("adjust", "cocoa to unlock all own workers (-1: not allowed)"),
    "turn_options": Point(
        "adjust", "the turn's option list; a module adds ('mod', name, ...) (a TurnOption)"
    ),
    "moved": Point(
        "fire", "frames after seat moved worker w (a turn's move, the orange temple's 1-2); args (w,)"
    ),
    "own_vp": Point("adjust", "VP of a gain of its own inside a step (a Technology's after-action VP)"),
    "main_wood": Point("adjust", "extra wood paid for a Main action; args (board,)"),
    "resource_main": Point(
        "fire", "frames replacing the Main action of board 2-4 (a choice first); args (board,)"
    ),
    "tech_gold": Point("adjust", "gold price of a Technology"),
    "alchemy_any_row": Point("adjust", "whether one worker may research any Technology"),
    "build_extra": Point("adjust", "resources of one's choice added to a Building's or Pyramid tile's price"),
    "score_vp": Point("adjust", "positive VP of one Eclipse scoring category"),
    "bot_roll": Point("fire", "frames replacing Teotibot's action for the tile at position pos; args (pos,)"),
    "orange_step": Point("fire", "frames of the orange temple's ability / move-back step (M2); args (step,)"),
    "eclipse_avenue": Point("adjust", "the Avenue position an Eclipse scores"),
    "eclipse_masks": Point("adjust", "VP of seat's mask sets at an Eclipse"),
    "worship_spaces": Point("adjust", "the (space, board) pairs of the Worship spaces (per_set: seat -1)"),
    "setup": Point("each", "fn(st, rng) at the end of the board setup, before the first decision"),
    "eclipse_start": Point("each", "fn(st) when an Eclipse begins, before its scoring"),
    "eclipse_end": Point("each", "fn(st) after a non-final Eclipse, before the next turn"),
    "render": Point("lines", "fn(st) -> lines added to render() after the players' lines"),
}
# The points called per seat (adjust, fire), in table order.
SEAT_POINTS = tuple(name for name, point in POINTS.items() if point.kind in ("adjust", "fire"))


@dataclass(frozen=True)
class When:
    """When a hook can matter, besides its module in play (empty / 0: always)."""

    tiles: frozenset[int] = frozenset()  # the seat keeps one of these player tiles (1-based)
    bot_tiles: frozenset[int] = frozenset()  # Teotibot keeps one of these bot tiles (1-based)
    season: int = 0  # this Season tile is active
    ability: int = 0  # the seat holds this Special Ability (its bit in ``st.ability``)

    def holds(self, tile: int, abilities: int, season: int, bot_tile: int) -> bool:
        """Whether a seat keeping ``tile`` with ``abilities`` under ``season`` meets it."""
        return (
            (not self.tiles or tile in self.tiles)
            and (not self.bot_tiles or bot_tile in self.bot_tiles)
            and (not self.season or season == self.season)
            and (not self.ability or abilities & self.ability != 0)
        )


ALWAYS = When()


@dataclass(frozen=True)
class Hook:
    """A function at hook point ``point``; ``last``: an adjuster run after every ordinary one
    (a rule that overrides the others, e.g. "always exactly 1 cocoa")."""

    point: str
    kind: Literal["adjust", "fire", "each", "lines"]  # the point's kind, checked by the rulebook
    fn: Callable[..., Any]
    when: When = ALWAYS
    last: bool = False


def when(
    tiles: tuple[str, ...] = (), bot_tiles: tuple[str, ...] = (), season: str = "", ability: str = ""
) -> When:
    """The ``When`` of priest tiles, bot tiles, a Season tile and an ability named by their ids."""
    return When(
        frozenset(EXP.priests.index(pid) + 1 for pid in tiles),
        frozenset(EXP.bot_priests.index(pid) + 1 for pid in bot_tiles),
        EXP.season_by_id[season] if season else 0,
        1 << EXP.ability_index[ability] if ability else 0,
    )


def adjuster(point: str, fn: Callable[..., Any], last: bool = False, **condition: Any) -> Hook:
    """``fn(st, seat, value, *args) -> value`` at an adjust point (``condition``: see ``when``)."""
    return Hook(point, "adjust", fn, when(**condition), last)


def listener(point: str, fn: Callable[..., Any], **condition: Any) -> Hook:
    """``fn(st, seat, *args) -> list of frames`` at a fire point (``condition``: see ``when``)."""
    return Hook(point, "fire", fn, when(**condition))


def each(point: str, fn: Callable[..., Any]) -> Hook:
    """``fn(st, *args)`` at an 'each' point (setup, eclipse_start, eclipse_end)."""
    return Hook(point, "each", fn)


def renderer(fn: Callable[..., Any]) -> Hook:
    """``fn(st) -> lines`` added to ``render()``."""
    return Hook("render", "lines", fn)


@dataclass(frozen=True)
class Auto:
    """An automatic frame kind: ``run(st, frame)`` as soon as it reaches the top of the stack."""

    kind: str
    run: Callable[[State, Frame], None]


@dataclass(frozen=True)
class Choice:
    """How one kind of choice frame lists, describes and resolves its options.

    ``describe`` labels each option on its own (the label of an option does not depend on the
    others offered), so one option can be labelled alone: ``describe(st, frame, [p])``."""

    kind: str
    options: Callable[[State, Frame], list[Payload]]
    describe: Callable[[State, Frame, list[Payload]], tuple[str, list[str]]]
    resolve: Callable[[State, Frame, Payload], None]


@dataclass(frozen=True)
class Automaton:
    """How Teotibot answers a choice kind: ``pick(st, frame, options) -> payload``."""

    kind: str
    pick: Callable[[State, Frame, list[Payload]], Payload]
    replaces: bool = False


@dataclass(frozen=True)
class Simultaneous:
    """A choice every listed seat makes at once, hidden from the others (the Starting tiles, the
    priest tiles): ``pending(st)``, the seats that have not chosen yet. Such a frame's options
    and resolver get the frame ``(kind, seat)`` of the seat choosing."""

    kind: str
    pending: Callable[[State], tuple[int, ...]]


@dataclass(frozen=True)
class Watcher:
    """``watch(st, seat, kind)`` after every step while its module is in play (``kind`` of the
    frame just run, '' for a decision applied), for each seat of ``seats(st)``; ``seats`` may
    read only what ``modules.refresh`` follows (the priest tiles kept)."""

    seats: Callable[[State], list[int]]
    watch: Callable[[State, int, str], None]


@dataclass(frozen=True)
class MainRule:
    """A module's replacement of an Action Board's Main action (board 6, 7 or 8)."""

    name: str  # the board's new name ("Architecture")
    possible: Callable[[State, int, int, int], bool]  # (st, seat, board, extra), its cocoa cost aside
    start: Callable[[State, int, int, int], None]  # (st, seat, board, extra): push the action's frames


@dataclass(frozen=True)
class Board:
    """A module replaces Action Board ``board``'s Main action with ``rule``."""

    board: int
    rule: MainRule


@dataclass(frozen=True)
class TurnOption:
    """A module's own way to take a turn, offered as ``('mod', name, ...)`` by a ``turn_options``
    adjuster: ``label(st, payload)``, ``resolve(st, seat, payload)``."""

    name: str
    label: Callable[[State, Payload], str]
    resolve: Callable[[State, int, Payload], None]


@dataclass(frozen=True)
class BotTile:
    """Teotibot's Action tile ``number``: ``act(st, seat)``."""

    number: int
    act: Callable[[State, int], None]
    replaces: bool = False


@dataclass(frozen=True)
class BotStep:
    """Teotibot's step on Action Board ``board``: ``step(st, seat) -> frames``, None if it fails."""

    board: int
    step: Callable[[State, int], list | None]
    replaces: bool = False


Part = Auto | Choice | Automaton | Simultaneous | Watcher | Hook | Board | TurnOption | BotTile | BotStep


SeatTable = dict[str, tuple[Callable[..., Any], ...]]


class Rules(Protocol):
    """What a state and the rules files see of a rulebook (``st.rules``): its parts by kind,
    point, board or number. ``rulebook.Rulebook`` is the one built from the rules files: it
    imports them, so they (and the state) know it by this protocol, declared below them."""

    mods: int  # the module set it was built for (a bit mask, modules.py)
    auto: dict[str, Callable[[Any, tuple], None]]
    choice: dict[str, Choice]
    automaton: dict[str, Callable[[Any, tuple, list[tuple]], tuple]]
    simultaneous: dict[str, Callable[[Any], tuple[int, ...]]]
    watchers: tuple[Watcher, ...]
    main: dict[int, MainRule]
    turn: dict[str, TurnOption]
    bot_tiles: dict[int, Callable[[Any, int], None]]
    bot_steps: dict[int, Callable[[Any, int], list | None]]
    hooks: dict[str, tuple[Hook, ...]]
    per_set: dict[str, Any]
    board_names: dict[int, str]

    def seat_hooks(
        self, tile: int, abilities: int, season: int, bot_tile: int
    ) -> tuple[SeatTable, SeatTable]:
        """(point -> adjusters, point -> listeners) that run for a seat keeping player tile ``tile``
        with ``abilities``, under Season tile ``season``, Teotibot keeping ``bot_tile``."""
        ...

    def each(self, st: Any, point: str, *args: Any) -> None:
        """Call every hook at an 'each' point."""
        ...

    def lines(self, st: Any, point: str = "render") -> list[str]:
        """The lines every hook at a 'lines' point adds."""
        ...

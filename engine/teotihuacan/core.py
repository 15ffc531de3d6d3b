"""The game state's core: flat per-player lists and ints, a frame stack, the decision methods
and the helpers every rule module uses. ``state.TeoState`` adds the views (observation,
determinize, log, render), so that the rule modules, observation.py and render.py import
this module and nothing imports upward.

Workers are 16 slots: colour ``c`` owns slots ``4c .. 4c+3``; seats 0..n-1 are colours 0..n-1
and the unused colours hold the neutral workers (3 each). Per worker: ``wb`` board number
(0 = not in play, e.g. on the Ascension wheel), ``wp`` power, ``ws`` worship space (-1 = in the
general area, i.e. unlocked). The first player (seat ``first``, drawn at setup) holds Player
Order token 1; the seats after it clockwise (seat order) hold 2, 3, ...; ``order(seat)`` gives
the 0-based position and ``last_seat()`` the holder of the Last Player token.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import itemgetter
from random import Random
from typing import Any, Self

from engine.api import Decision, IllegalAction, Result, competition_ranks

from .data import DATA
from .flow import run
from .hooks import Rules

GAME_ID = "teotihuacan"

# Lists copied by clone(); everything else is an int/bool/None or an immutable value.
LIST_FIELDS = (
    "place_board",
    "board_place",
    "royal",
    "tech",
    "tech_marks",
    "bonus",
    "nob_taken",
    "wb",
    "wp",
    "ws",
    "space_occ",
    "cocoa",
    "res",
    "vp",
    "avenue",
    "ptrack",
    "temple",
    "d_owner",
    "d_used",
    "d_deck",
    "d_offer",
    "pyr_pos",
    "grid",
    "pyr_offer",
    "pyr_deck",
    "deco_space",
    "deco_offer",
    "deco_deck",
    "start_deck",
    "start_disc",
    "start_pick",
    "draft_pool",
    "stack",
    "events",
    "cat_vp",
    "ecl_vp",
    "sheet_vp",
    "vp_marks",
    "neutral_draws",
    "act_pyr",
    "dirs",
    # Late Preclassic modules (empty in the base game): see modules.py and docs/teotihuacan.md
    "season_deck",
    "season_used",
    "priest",
    "priest_pick",
    "priest_deck",
    "ability",
    "vp_seen",
)
NESTED_FIELDS = ("d_avenue", "d_temple", "start_dealt", "kept", "priest_dealt")
# What clone() copies: every list above but FIXED_FIELDS (drawn at setup, never changed after:
# clones share them), and of a nested list only the outer one, as its inner lists are replaced,
# never changed in place.
FIXED_FIELDS = ("place_board", "board_place", "royal", "tech", "bonus")
COPIED_FIELDS = tuple(name for name in LIST_FIELDS + NESTED_FIELDS if name not in FIXED_FIELDS)
SCALAR_FIELDS = (
    "n",
    "first_game",
    "draft",
    "dark_variant",
    "light",
    "dark",
    "eclipses",
    "pending",
    "pyramid_done",
    "buildings_taken",
    "over",
    "turns",
    "chance",
    "nt",
    "first",
    "bot",
    "act_aside",
    "roll",
    "mods",
    "season",
)
COPIED = itemgetter(*COPIED_FIELDS)
# Score categories kept per seat for Result.details.
CATEGORIES = ("avenue", "pyramid", "masks", "salary", "bonus")
# VP gained outside the Eclipse scoring, per seat, booked by ``TeoCore.add_vp`` (``sheet_vp``):
# with the Eclipse's CATEGORIES they make the score sheet (``Result.details["breakdown"]``).
PLAY_CATEGORIES = (
    "temple_rewards",
    "discovery_tiles",
    "starting_tiles",
    "action_rewards",
    "nobles",
    "pyramid_tiles",
    "decorations",
    "technologies",
    "royal_tiles",
    "ascension",
    "season_tiles",
    "huitzilopochtli",
    "xolotl",
    "teotibot_extras",
)
_PLAY_INDEX = {name: k for k, name in enumerate(PLAY_CATEGORIES)}


class TeoCore:
    """A Teotihuacan game in progress (see the module docstring for the layout)."""

    game_id = GAME_ID
    version: str  # the engine version that made it (set by setup)
    rules: Rules  # the rulebook of its module set (shared by clones)
    options: dict[str, Any]  # the checked options
    # -- scalars (SCALAR_FIELDS)
    n: int  # seats (the automaton's included)
    first_game: bool
    draft: bool  # the Starting Tile Draft variant
    dark_variant: bool  # Dark Eclipse
    light: int  # the Calendar's light disc position
    dark: int  # the Calendar's dark disc position
    eclipses: int  # Eclipses scored
    pending: int  # the seat whose turn triggered an Eclipse (-1: none)
    pyramid_done: bool
    buildings_taken: int
    over: bool
    turns: int
    chance: int  # the seed of the next chance event
    nt: int  # temples in play (4 with M2's orange temple)
    first: int  # the seat holding Player Order token 1
    bot: int  # Teotibot's seat (-1: none)
    act_aside: int  # Teotibot's set-aside Action tile
    roll: int  # Teotibot's last dice sum
    mods: int  # the modules in play (modules.py)
    season: int  # M3: the active Season tile's number (0: none)
    # -- lists (LIST_FIELDS; FIXED_FIELDS shared by clones)
    place_board: list[int]  # place (1-8) -> board
    board_place: list[int]  # board (1-8) -> place
    royal: list[int]  # the Palace's Royal tiles
    tech: list[int]  # the Technology tile at each of the 6 positions
    tech_marks: list[int]  # per position, bit s: seat s's marker
    bonus: list[int]  # the Temple Bonus tiles
    nob_taken: list[int]  # per Nobles row, bit k: a Building on its k-th space
    wb: list[int]  # per worker slot: its board (0: not in play)
    wp: list[int]  # per worker slot: its power
    ws: list[int]  # per worker slot: its Worship space (-1: unlocked)
    space_occ: list[int]  # per Worship space: the worker locked there (-1: none)
    cocoa: list[int]
    res: list[int]  # wood, stone, gold per seat
    vp: list[int]
    avenue: list[int]
    ptrack: list[int]  # the Pyramid track
    temple: list[int]  # per seat, nt temple steps
    d_owner: list[int]  # per discovery tile: its owner (-1: none, -2: discarded)
    d_used: list[int]
    d_deck: list[int]
    d_offer: list[int]  # the tiles beside the Worship spaces
    pyr_pos: list[int]  # per pyramid position: tile * 4 + rotation (-1: empty)
    grid: list[str]  # the pyramid's icons
    pyr_offer: list[int]
    pyr_deck: list[int]
    deco_space: list[int]
    deco_offer: list[int]
    deco_deck: list[int]
    start_deck: list[int]
    start_disc: list[int]  # per Starting tile: its discovery tile
    start_pick: list[Any]  # per seat: the pair of Starting tiles kept (None: not chosen)
    draft_pool: list[int]
    stack: list[tuple]  # the frames to run (flow.py)
    events: list[tuple]  # (seat, kind, text) since setup
    cat_vp: list[int]  # per seat, VP per score category
    ecl_vp: list[int]  # per seat, VP of each Eclipse
    sheet_vp: list[int]  # per seat, VP per PLAY_CATEGORIES entry (add_vp: the score sheet)
    vp_marks: list[list[Any]]  # [label, every seat's VP] after each round / Eclipse (mark_vp)
    neutral_draws: list[int]
    act_pyr: list[int]  # Teotibot's action pyramid
    dirs: list[int]  # Teotibot's Direction tiles
    season_deck: list[int]  # M3
    season_used: list[int]  # M3
    priest: list[int]  # M1: each seat's kept priest tile (1-based; 0: none or hidden)
    priest_pick: list[int]  # M1
    priest_deck: list[int]  # M1
    ability: list[int]  # M2: per seat, bit i: Special Ability i
    vp_seen: list[int]  # M1: VP as last seen by Huītzilōpōchtli's watcher
    # -- lists of lists (NESTED_FIELDS)
    d_avenue: list[list[int]]
    d_temple: list[list[int]]
    start_dealt: list[list[int]]
    kept: list[list[int]]
    priest_dealt: list[list[int]]
    # -- the hooks found per seat (modules.refresh)
    adjusters: tuple[dict[str, tuple[Callable[..., Any], ...]], ...]
    listeners: tuple[dict[str, tuple[Callable[..., Any], ...]], ...]
    watchers: tuple[tuple[Callable[[Any, int, str], None], int], ...]

    # False in a search's samples (rules/setup.py observation_sampler): no event is logged, as
    # labelling every step costs a playout much and nothing in play reads the log.
    keep_log = True

    def __init__(self) -> None:
        self.opts: list | None = None  # cached options of the top choice frame
        self.dec: tuple | None = None  # (seat, Decision) last built, until the next apply

    # ---- copying -------------------------------------------------------------------------
    def clone(self) -> Self:
        """An independent copy: shallow copies of the lists that play changes (COPIED_FIELDS),
        everything else (ints, immutable values, FIXED_FIELDS) shared."""
        new = object.__new__(type(self))
        d = new.__dict__
        d.update(self.__dict__)
        d.update(zip(COPIED_FIELDS, map(list.copy, COPIED(d)), strict=True))
        return new

    def chance_rng(self) -> Random:
        """A generator for the next chance event. The state keeps only an int seed between
        events (drawn from the setup's Random(seed)), so clone() copies no generator."""
        rng = Random(self.chance)
        self.chance = rng.getrandbits(64)
        return rng

    # ---- contract ------------------------------------------------------------------------
    def to_act(self) -> tuple[int, ...]:
        """Seats deciding now: one seat, or every seat still choosing its Starting tiles."""
        if not self.stack:
            return ()
        top = self.stack[-1]
        pending = self.rules.simultaneous.get(top[0])
        if pending is not None:
            return pending(self)
        return (top[1],)

    def _options(self, seat: int) -> list:
        top = self.stack[-1] if self.stack else None
        if top is not None and top[1] == seat and top[0] != "start-pick" and self.opts is not None:
            return self.opts  # the usual case, without building to_act()
        if seat not in self.to_act():
            raise IllegalAction(f"seat {seat} does not act now; seats to act: {list(self.to_act())}")
        top = self.stack[-1]
        if top[0] in self.rules.simultaneous:
            return self.rules.choice[top[0]].options(self, (top[0], seat))
        return self.opts or []

    def decision(self, seat: int) -> Decision:
        """The decision ``seat`` faces now, options labelled for a person."""
        cached = self.dec
        if cached is not None and cached[0] == seat:
            return cached[1]
        opts = self._options(seat)
        top = self.stack[-1]
        frame = (top[0], seat) if top[0] in self.rules.simultaneous else top
        prompt, labels = self.rules.choice[frame[0]].describe(self, frame, opts)
        options = tuple({"label": label, "act": list(p)} for label, p in zip(labels, opts, strict=True))
        decision = Decision(frame[0], prompt, options)
        self.dec = (seat, decision)
        return decision

    def option_labels(self, seat: int) -> list[str]:
        """The labels of ``decision(seat)``'s options, in order, without building the Decision
        (a search names its tree's moves by them)."""
        cached = self.dec
        if cached is not None and cached[0] == seat:
            return [option["label"] for option in cached[1].options]
        opts = self._options(seat)
        top = self.stack[-1]
        frame = (top[0], seat) if top[0] in self.rules.simultaneous else top
        return self.rules.choice[frame[0]].describe(self, frame, opts)[1]

    def option_count(self, seat: int) -> int:
        """How many options ``decision(seat)`` offers, without labelling them (for playouts)."""
        return len(self._options(seat))

    def apply(self, seat: int, choice: int) -> None:
        """Apply option ``choice`` of ``decision(seat)``; raises IllegalAction otherwise."""
        opts = self._options(seat)
        if type(choice) is not int or not 0 <= choice < len(opts):
            raise IllegalAction(f"choice {choice!r} out of range 0..{len(opts) - 1}")
        top = self.stack[-1]
        payload = opts[choice]
        if top[0] in self.rules.simultaneous:
            self.dec = None
            self.rules.choice[top[0]].resolve(self, (top[0], seat), payload)
        else:
            if self.keep_log:
                cached = self.dec
                if cached is not None and cached[0] == seat:
                    label = cached[1].options[choice]["label"]
                else:  # label the chosen option only (a playout never asked for the others)
                    label = self.rules.choice[top[0]].describe(self, top, [payload])[1][0]
                self.events.append((seat, top[0], label))
            self.dec = None
            self.stack.pop()
            self.rules.choice[top[0]].resolve(self, top, payload)
        run(self)

    def agent_seats(self) -> list[int]:
        """Seats played by agents, in player order (the automaton's seat left out)."""
        return [s for s in self.seats_in_order() if s != self.bot]

    def turn_frame(self, seat: int) -> tuple:
        """The frame that starts ``seat``'s turn (the automaton plays its own)."""
        return ("bot-turn", seat) if seat == self.bot else ("turn", seat)

    def terminal(self) -> bool:
        """True once the final Eclipse has been scored."""
        return self.over

    def result(self) -> Result:
        """Scores and ranks after the tie-breaks (cocoa, then Player Order; reversed order
        tie-break under Dark Eclipse)."""
        if not self.over:
            raise IllegalAction("the game is not over yet")
        sign = 1 if self.dark_variant else -1
        keys: list[tuple] = [(self.vp[s], self.cocoa[s], sign * self.order(s)) for s in range(self.n)]
        if self.bot >= 0:  # solo: the player wins only with more VP; a tie is a loss
            keys = [(self.vp[s], s == self.bot) for s in range(self.n)]
        details = {
            "per_seat": [self._details(s) for s in range(self.n)],
            "breakdown": [self.breakdown(s) for s in range(self.n)],
            "timeline": self.timeline(),
        }
        return Result(tuple(self.vp), competition_ranks(keys), details)

    def _details(self, seat: int) -> dict:
        k = len(CATEGORIES)
        cats = dict(zip(CATEGORIES, self.cat_vp[seat * k : seat * k + k], strict=True))
        eclipses = self.ecl_vp[seat * 3 : seat * 3 + 3]
        cats["during_play"] = self.vp[seat] - sum(eclipses)
        return {
            "vp": self.vp[seat],
            "cocoa": self.cocoa[seat],
            "eclipses": eclipses,
            "categories": cats,
            "breakdown": self.breakdown(seat),
        }

    def breakdown(self, seat: int) -> dict[str, int]:
        """``seat``'s score sheet: category -> VP (non-zero ones), adding up to its VP."""
        k, m = len(CATEGORIES), len(PLAY_CATEGORIES)
        play = zip(PLAY_CATEGORIES, self.sheet_vp[seat * m : seat * m + m], strict=True)
        eclipse = zip(CATEGORIES, self.cat_vp[seat * k : seat * k + k], strict=True)
        names = {"avenue": "eclipse_avenue", "pyramid": "eclipse_pyramid", "masks": "eclipse_masks"}
        names["bonus"] = "teotibot_final_scoring" if seat == self.bot else "temple_bonus_tiles"
        sheet = {name: vp for name, vp in play if vp}
        sheet.update((names.get(name, name), vp) for name, vp in eclipse if vp)
        return sheet

    def timeline(self) -> list[dict]:
        """Every seat's VP after each round and each Eclipse (its salary paid), in play order."""
        rounds = 0
        out = []
        for label, scores in self.vp_marks:
            if label == "round":
                rounds += 1
                label = f"round {rounds}"
            out.append({"after": label, "scores": list(scores)})
        return out

    def add_vp(self, seat: int, vp: int, category: str) -> None:
        """Add ``vp`` (negative: a loss) to ``seat``'s score, booked under ``category`` (one of
        PLAY_CATEGORIES) for the score sheet."""
        self.vp[seat] += vp
        self.sheet_vp[seat * len(PLAY_CATEGORIES) + _PLAY_INDEX[category]] += vp

    def mark_vp(self, label: str) -> None:
        """Note every seat's VP now, for the score-over-time chart (``timeline``)."""
        self.vp_marks.append([label, list(self.vp)])  # lists: the observation survives msgpack

    # ---- small shared helpers --------------------------------------------------------------
    def order(self, seat: int) -> int:
        """``seat``'s place in the player order, 0-based (its Player Order token minus 1)."""
        return (seat - self.first) % self.n

    def last_seat(self) -> int:
        """The seat holding the Last Player token (the one before the first player)."""
        return (self.first - 1) % self.n

    def seats_in_order(self) -> list[int]:
        """Every seat in player order, from the first player."""
        return [(self.first + k) % self.n for k in range(self.n)]

    def has_tech(self, seat: int, number: int) -> bool:
        """Whether ``seat`` has a marker on Technology ``number``."""
        tech = self.tech
        for pos in range(6):
            if tech[pos] == number:
                return bool(self.tech_marks[pos] >> seat & 1)
        return False

    def tech_count(self, seat: int) -> int:
        """Technologies with ``seat``'s marker."""
        return sum(1 for m in self.tech_marks if m >> seat & 1)

    def holds(self, seat: int, kind: str) -> int:
        """An unused discovery tile of ``kind`` held by ``seat`` (its id), or 0."""
        owner = self.d_owner
        used = self.d_used
        for tid in KIND_IDS[kind]:
            if owner[tid] == seat and not used[tid]:
                return tid
        return 0

    def holds_count(self, seat: int, kind: str) -> int:
        """How many unused discovery tiles of ``kind`` ``seat`` holds."""
        owner = self.d_owner
        used = self.d_used
        return sum(1 for tid in KIND_IDS[kind] if owner[tid] == seat and not used[tid])

    def unlocked_workers(self, seat: int, board: int = 0) -> list[int]:
        """Slots of ``seat``'s unlocked workers in play (on ``board`` if given)."""
        wb, ws = self.wb, self.ws
        out = []
        for w in range(seat * 4, seat * 4 + 4):
            if wb[w] and ws[w] < 0 and (not board or wb[w] == board):
                out.append(w)
        return out

    def colours_on(self, board: int, exclude: tuple[int, ...] = ()) -> int:
        """Different colours among the unlocked workers on ``board``, ignoring ``exclude``."""
        wb, ws = self.wb, self.ws
        mask = 0
        for w in range(16):
            if wb[w] == board and ws[w] < 0 and w not in exclude:
                mask |= 1 << (w >> 2)
        return bin(mask).count("1")

    def note(self, seat: int, text: str) -> None:
        """Record an automatic event (scoring, refills) in the log."""
        if self.keep_log:
            self.events.append((seat, "event", text))


KIND_IDS: dict[str, tuple[int, ...]] = {}
for _tile in DATA.discoveries.values():
    KIND_IDS.setdefault(_tile.kind, ())
    KIND_IDS[_tile.kind] = KIND_IDS[_tile.kind] + (_tile.id,)

"""M1 Priests and Priestesses: 10 player tiles (2 dealt, 1 kept, chosen by every seat at once and
hidden until all have chosen) and 6 Teotibot tiles (1 dealt to the bot, public), each with the
ongoing effects of the expansion's appendix.

``st.priest[seat]`` is the kept tile, a 1-based index into ``EXP.priests`` (the bot's into
``EXP.bot_priests``); 0 until revealed. The choice (``priest-pick``) comes after the Starting
tiles are chosen or drafted and before they are resolved (Tōnacāihuātl keeps all four). The
effects plug into the module points of ``modules.py``; readings: docs/teotihuacan.md.
"""

from __future__ import annotations

from random import Random

from .. import modules
from ..core import TeoCore
from ..data import DATA
from ..expansion_data import EXP, TEMPLE_NAMES
from ..flow import Frame, Payload, push
from ..hooks import (
    Auto,
    Automaton,
    BotStep,
    BotTile,
    Choice,
    Part,
    Simultaneous,
    TurnOption,
    Watcher,
    adjuster,
    each,
    listener,
    renderer,
)
from ..rules import effects, turn
from ..rules.actions import resource_grid
from ..rules.setup import start_tile_benefits, start_tile_text
from ..teotibot import actions as bot_actions
from ..teotibot.rules import ascension_reward
from . import seasons

M = "priests"

TITLES = {
    "quetzalcoatl": "Quetzalcohuātl",
    "tlaloc": "Tlāloc",
    "chalchiuhtlicue": "Chalchiuhtlicue",
    "oxomoco": "Oxomoco",
    "xipe_totec": "Xipe Totēc",
    "xolotl": "Xolotl",
    "ehecatl": "Ehēcatl",
    "tonacacihuatl": "Tōnacāihuātl",
    "huitzilopochtli": "Huītzilōpōchtli",
    "xochipilli": "Xōchipilli",
    "metzli": "Metzli",
    "tlahuizcalpantecuh": "Tlāhuizcalpantecuh",
    "itzpapalotl": "Itzpāpālōtl",
    "tezcatlipoca": "Tezcatlipōca",
    "chantico": "Chantico",
    "mictecacihuatl": "Mictēcacihuātl",
}
# The appendix's effects in short (the labels of the choice and the render).
EFFECTS = {
    "quetzalcoatl": "after claiming a mask: a temple step and 1 resource of your choice; never claim non-mask tiles",
    "tlaloc": "Forest/Stone/Gold Main action: count one other player's unlocked worker there as yours; "
    "pay 1 more resource of your choice per Building or Pyramid tile",
    "chalchiuhtlicue": "every Main action costs exactly 1 cocoa",
    "oxomoco": "Nobles (6) and Decorations/Architecture (7) Main actions: one additional (virtual) worker",
    "xipe_totec": "no cocoa to unlock another's worker or for both Worship options; "
    "unlocking your own workers costs 2 cocoa each, at most 5",
    "xolotl": "two Ascension rewards; pay 1 cocoa or 3 VP before each temple step, or lose it",
    "ehecatl": "move 1-4 boards (or pay 3 cocoa: to any board); Collect Cocoa gives 1 less; never pay to unlock",
    "tonacacihuatl": "keep all 4 Starting tiles: 2 now, the 3rd after Eclipse 1, the 4th after Eclipse 2; "
    "1 more wood for the Main actions of boards 6, 7, 8",
    "huitzilopochtli": "1 more VP each time you gain VP; 1 more cocoa salary per worker",
    "xochipilli": "Technologies cost 1 gold less, any row with one worker; never Worship; "
    "no discovery tile on a major temple step",
    "metzli": "Teotibot gains 3 cocoa each time you move a worker onto a board with one of its unlocked workers",
    "tlahuizcalpantecuh": "on a roll of 2-3 or 11-12, Teotibot pays 2 cocoa to take both bottom-corner actions",
    "itzpapalotl": "Ascension: Teotibot advances once on each temple instead of 5 VP",
    "tezcatlipoca": "mask collected: 1 stone for a Pyramid tile, then 1 gold for a Decoration; failed: 2 more cocoa",
    "chantico": "after Decorations: 1 stone for a Pyramid tile; after Construction: 1 gold for a Decoration",
    "mictecacihuatl": "you score nothing for its Technologies; Alchemy once more with gold left; "
    "failed Alchemy: 5 cocoa",
}
TONA = EXP.priests.index("tonacacihuatl") + 1
HUITZ = EXP.priests.index("huitzilopochtli") + 1
HAND = 2  # tiles dealt to each player (keep 1)
S02_POSITIONS = (3, 5)  # the bottom corners of the action pyramid: dice "2, 3" and "11, 12"
S02_ROLLS = (2, 3, 11, 12)
S02_COST = 2


def priest_of(st: TeoCore, seat: int) -> str:
    """The id of ``seat``'s kept tile ('' before the reveal or without one)."""
    k = st.priest[seat]
    if not k:
        return ""
    return (EXP.bot_priests if seat == st.bot else EXP.priests)[k - 1]


def has(st: TeoCore, seat: int, pid: str) -> bool:
    """Whether ``seat`` has priest tile ``pid`` (and the module is in play)."""
    return bool(st.mods & modules.BIT[M]) and priest_of(st, seat) == pid


def priest_text(pid: str) -> str:
    """'Chalchiuhtlicue (every Main action costs exactly 1 cocoa)'."""
    return f"{TITLES[pid]} ({EFFECTS[pid]})"


def player_tile_text(k: int) -> str:
    """A player tile by its 1-based index: '03 Chalchiuhtlicue (...)'."""
    return f"{k:02d} {priest_text(EXP.priests[k - 1])}"


# ---- set-up and the hidden simultaneous choice ---------------------------------------------------
def _setup(st: TeoCore, rng: Random) -> None:
    deck = list(range(1, len(EXP.priests) + 1))
    if st.first_game or st.draft:
        deck.remove(TONA)  # "if you are using the Starting Tile Draft variant ... draw a replacement"
    rng.shuffle(deck)
    for s in st.agent_seats():
        st.priest_dealt[s] = sorted(deck.pop() for _ in range(HAND))
    st.priest_deck = deck
    if st.bot >= 0:
        st.priest[st.bot] = rng.randrange(len(EXP.bot_priests)) + 1
        st.note(st.bot, f"Teotibot's priest tile: {priest_text(priest_of(st, st.bot))}")
    if st.draft:  # after the draft, before the Starting tiles are resolved (the bottom frame)
        st.stack.insert(1, ("priest-pick", -1))
    elif st.first_game:
        push(st, ("priest-pick", -1))
    # otherwise the choice follows the hidden Starting-tile pick (_after_starting_tiles)


def _after_starting_tiles(st: TeoCore, seat: int) -> list[tuple]:
    return [("priest-pick", -1)]


def _pending(st: TeoCore) -> tuple[int, ...]:
    return tuple(s for s in range(st.n) if s != st.bot and not st.priest_pick[s])


def _pick_options(st: TeoCore, frame: Frame) -> list[Payload]:
    return [(k,) for k in st.priest_dealt[frame[1]]]


def _pick_describe(st: TeoCore, frame: Frame, opts: list[Payload]) -> tuple[str, list[str]]:
    return "Keep one of your two Priest tiles (the other goes back to the box)", [
        f"keep {player_tile_text(k)}" for (k,) in opts
    ]


def _pick(st: TeoCore, frame: Frame, p: Payload) -> None:
    st.priest_pick[frame[1]] = p[0]
    if _pending(st):
        return  # the others have not chosen yet: nothing is revealed
    st.stack.pop()
    agents = st.agent_seats()
    for s in agents:
        st.priest[s] = st.priest_pick[s]
        st.vp_seen[s] = st.vp[s]
        if st.priest[s] == TONA and st.start_dealt[s]:
            st.kept[s] = st.kept[s] + sorted(t for t in st.start_dealt[s] if t not in st.kept[s])
    modules.refresh(st)  # the tiles' hooks run from now on
    text = "; ".join(f"Seat {s} keeps {TITLES[priest_of(st, s)]}" for s in agents)
    if st.keep_log:
        st.events.append((-1, "priest-pick", text))


def _render(st: TeoCore) -> list[str]:
    parts = []
    for s in range(st.n):
        pid = priest_of(st, s)
        if pid:
            parts.append(f"seat {s}: {priest_text(pid)}")
        elif st.priest_dealt[s]:
            parts.append(f"seat {s}: " + ("chosen, hidden" if st.priest_pick[s] else "choosing"))
    return ["Priest tiles: " + ("; ".join(parts) or "-")]


# ---- 01 Quetzalcohuātl, 10 Xōchipilli: which discovery tiles may be claimed ----------------------
def _may_claim(st: TeoCore, seat: int, ok: bool, tid: int, where: str) -> bool:
    pid = priest_of(st, seat)
    if pid == "quetzalcoatl" and not DATA.discoveries[tid].mask:
        return False
    if pid == "xochipilli" and where == "major":
        return False
    return ok


def _claimed(st: TeoCore, seat: int, tid: int) -> list[tuple]:
    if priest_of(st, seat) == "quetzalcoatl" and DATA.discoveries[tid].mask:
        return [("any-temple", seat), ("any-res", seat, 1)]
    return []


# ---- 02 Tlāloc -----------------------------------------------------------------------------------------
def _borrowable(st: TeoCore, seat: int, board: int) -> list[int]:
    """Other players' unlocked workers on ``board``, one per power (neutral workers are no player's)."""
    seen, out = set(), []
    for w in range(st.n * 4):
        if w >> 2 != seat and st.wb[w] == board and st.ws[w] < 0 and st.wp[w] not in seen:
            seen.add(st.wp[w])
            out.append(w)
    return out


def _resource_main(st: TeoCore, seat: int, board: int) -> list[tuple]:
    if priest_of(st, seat) == "tlaloc" and _borrowable(st, seat, board):
        return [("tlaloc", seat, board)]
    return []


def _tlaloc_options(st: TeoCore, frame: Frame) -> list[Payload]:
    return [("none",), *(("w", w) for w in _borrowable(st, frame[1], frame[2]))]


def _tlaloc_describe(st: TeoCore, frame: Frame, opts: list[Payload]) -> tuple[str, list[str]]:
    labels = [
        "count only your own workers"
        if p[0] == "none"
        else f"count seat {p[1] // 4}'s power-{st.wp[p[1]]} worker as yours"
        for p in opts
    ]
    return f"Tlāloc: treat another player's worker on {DATA.board_names[frame[2]]} as your own?", labels


def _tlaloc(st: TeoCore, frame: Frame, p: Payload) -> None:
    resource_grid(st, frame[1], frame[2], p[1] if p[0] == "w" else -1)


def _build_extra(st: TeoCore, seat: int, extra: int) -> int:
    return extra + 1 if priest_of(st, seat) == "tlaloc" else extra


# ---- 03 Chalchiuhtlicue, 04 Oxomoco ----------------------------------------------------------------------
def _main_cost(st: TeoCore, seat: int, cost: int, board: int, exclude: tuple) -> int:
    # "always exactly 1" wins over the Seasons and the abilities
    return 1 if priest_of(st, seat) == "chalchiuhtlicue" else cost


def _virtual(st: TeoCore, seat: int, extra: int, board: int) -> int:
    return extra + 1 if board in (6, 7) and priest_of(st, seat) == "oxomoco" else extra


# ---- 05 Xipe Totēc, 07 Ehēcatl: unlocking ------------------------------------------------------------------
def _worship_fee(st: TeoCore, seat: int, fee: int, unlock: int, both: int) -> int:
    return 0 if priest_of(st, seat) == "xipe_totec" else fee


def _unlock_cost(st: TeoCore, seat: int, cost: int) -> int:
    pid = priest_of(st, seat)
    if pid == "ehecatl":
        return -1
    if pid == "xipe_totec" and cost >= 0:
        locked = sum(1 for w in range(seat * 4, seat * 4 + 4) if st.wb[w] and st.ws[w] >= 0)
        return min(5, 2 * locked)
    return cost


# ---- 06 Xolotl -------------------------------------------------------------------------------------------------
def _second_reward(st: TeoCore, seat: int, w: int) -> list[tuple]:
    return [("asc-reward", seat)] if priest_of(st, seat) == "xolotl" else []


def _gate(st: TeoCore, seat: int, t: int) -> list[tuple]:
    if priest_of(st, seat) != "xolotl":
        return []
    # Season #5's own step stays its own step once paid (no second #5 offer)
    return [("xolotl", seat, t, int(seasons._PAID_STEP[0]))]


def _xolotl_options(st: TeoCore, frame: Frame) -> list[Payload]:
    seat = frame[1]
    opts = [("cocoa",)] if st.cocoa[seat] >= 1 else []
    if st.vp[seat] >= 3:
        opts.append(("vp",))
    return [*opts, ("forfeit",)]


XOLOTL_LABELS = {
    "cocoa": "pay 1 cocoa and advance",
    "vp": "pay 3 VP and advance",
    "forfeit": "forfeit the step",
}


def _xolotl_describe(st: TeoCore, frame: Frame, opts: list[Payload]) -> tuple[str, list[str]]:
    t = frame[2]
    step = st.temple[frame[1] * st.nt + t]
    return f"Xolotl: pay for the {TEMPLE_NAMES[t]} temple step ({step} -> {step + 1})?", [
        XOLOTL_LABELS[p[0]] for p in opts
    ]


def _xolotl(st: TeoCore, frame: Frame, p: Payload) -> None:
    seat = frame[1]
    if p[0] == "forfeit":
        return
    if p[0] == "cocoa":
        st.cocoa[seat] -= 1
    else:
        st.add_vp(seat, -3, "xolotl")
        st.vp_seen[seat] = min(st.vp_seen[seat], st.vp[seat])
    push(st, ("adv-paid", seat, frame[2], frame[3]))


def _adv_paid(st: TeoCore, frame: Frame) -> None:
    seasons._PAID_STEP[0] = bool(frame[3])
    try:
        effects.advance(st, frame[1], frame[2], gated=True)
    finally:
        seasons._PAID_STEP[0] = False


# ---- 07 Ehēcatl: moves -----------------------------------------------------------------------------------------
def _move(st: TeoCore, seat: int, moves: tuple) -> tuple:
    # one more board (with Season #7's 2-4 this becomes 2-5)
    return (*moves, max(moves) + 1) if priest_of(st, seat) == "ehecatl" else moves


EHECATL_COST = 3


def _turn_options(st: TeoCore, seat: int, opts: list) -> list:
    if priest_of(st, seat) != "ehecatl" or st.cocoa[seat] < EHECATL_COST:
        return opts
    return opts + [("mod", "ehecatl", w) for w in turn.distinct_workers(st, seat)]


def _ehecatl_label(st: TeoCore, p: Payload) -> str:
    return f"Ehēcatl: pay {EHECATL_COST} cocoa to move your {turn.worker_text(st, p[2])} to any Action Board"


def _ehecatl_resolve(st: TeoCore, seat: int, p: Payload) -> None:
    st.cocoa[seat] -= EHECATL_COST
    push(st, ("ehecatl-to", seat, p[2]))


def _to_options(st: TeoCore, frame: Frame) -> list[Payload]:
    return [(d,) for d in range(1, 8)]


def _to_describe(st: TeoCore, frame: Frame, opts: list[Payload]) -> tuple[str, list[str]]:
    w = frame[2]
    return "Ehēcatl: to which Action Board?", [
        f"to {modules.board_name(st, turn.destination(st, st.wb[w], d)[0])}" for (d,) in opts
    ]


def _ehecatl_to(st: TeoCore, frame: Frame, p: Payload) -> None:
    seat, w = frame[1], frame[2]
    origin = st.wb[w]
    st.wb[w] = turn.destination(st, origin, p[0])[0]  # directly: no Palace passed on the way
    turn.after_move(st, seat, w, origin)


def _collect(st: TeoCore, seat: int, amount: int, board: int, exclude: tuple) -> int:
    return max(0, amount - 1) if priest_of(st, seat) == "ehecatl" else amount


# ---- 08 Tōnacāihuātl -------------------------------------------------------------------------------------------
def _later_starting_tile(st: TeoCore) -> None:
    for s in st.agent_seats():
        if priest_of(st, s) == "tonacacihuatl" and len(st.kept[s]) > 1 + st.eclipses:
            push(st, ("tona-tile", s))  # the 3rd after Eclipse 1, the 4th after Eclipse 2


def _tona_options(st: TeoCore, frame: Frame) -> list[Payload]:
    return [(tid,) for tid in st.kept[frame[1]][1 + st.eclipses :]]


def _tona_describe(st: TeoCore, frame: Frame, opts: list[Payload]) -> tuple[str, list[str]]:
    return "Tōnacāihuātl: which kept Starting tile gives its benefits now?", [
        f"gain the benefits of {start_tile_text(st, tid)}" for (tid,) in opts
    ]


def _tona_tile(st: TeoCore, frame: Frame, p: Payload) -> None:
    seat, tid = frame[1], p[0]
    kept, k = list(st.kept[seat]), 1 + st.eclipses  # a new list: clones share the inner ones
    kept.remove(tid)
    kept.insert(k, tid)  # resolved tiles first: kept[k + 1:] are still to come
    st.kept[seat] = kept
    start_tile_benefits(st, seat, [tid])


def _main_wood(st: TeoCore, seat: int, wood: int, board: int) -> int:
    return wood + 1 if board in (6, 7, 8) and priest_of(st, seat) == "tonacacihuatl" else wood


# ---- 09 Huītzilōpōchtli ----------------------------------------------------------------------------------------
def _huitz_seats(st: TeoCore) -> list[int]:
    """The seats keeping Huītzilōpōchtli (bot tiles are numbered 1-6: never HUITZ)."""
    return [s for s in range(st.n) if st.priest[s] == HUITZ] if st.mods & modules.BIT[M] else []


def _watch(st: TeoCore, seat: int, kind: str) -> None:
    """One more VP for every step in which the seat's VP went up. Eclipse scoring books each
    category through ``score_vp`` instead, so its steps are only taken note of."""
    if st.vp[seat] > st.vp_seen[seat] and kind not in ("eclipse", "eclipse-end"):
        st.add_vp(seat, 1, "huitzilopochtli")
    st.vp_seen[seat] = st.vp[seat]


def _own_vp(st: TeoCore, seat: int, vp: int) -> int:
    """A gain of its own earns its own +1; booked as seen, so that the step's watcher counts
    only the step's other gains."""
    if priest_of(st, seat) != "huitzilopochtli" or vp <= 0:
        return vp
    st.vp_seen[seat] += vp + 1
    return vp + 1


def _score_vp(st: TeoCore, seat: int, vp: int) -> int:
    return vp + 1 if priest_of(st, seat) == "huitzilopochtli" else vp


def _salary(st: TeoCore, seat: int, due: int) -> int:
    if priest_of(st, seat) != "huitzilopochtli":
        return due
    return due + sum(1 for w in range(seat * 4, seat * 4 + 4) if st.wb[w])


# ---- 10 Xōchipilli ---------------------------------------------------------------------------------------------
def _tech_gold(st: TeoCore, seat: int, gold: int) -> int:
    return max(0, gold - 1) if priest_of(st, seat) == "xochipilli" else gold


def _any_row(st: TeoCore, seat: int, ok: bool) -> bool:
    return ok or priest_of(st, seat) == "xochipilli"


def _may_worship(st: TeoCore, seat: int, ok: bool) -> bool:
    return ok and priest_of(st, seat) != "xochipilli"


# ---- Teotibot's tiles ------------------------------------------------------------------------------------------
def _metzli(st: TeoCore, seat: int, w: int) -> list[tuple]:
    bot = st.bot
    if bot >= 0 and seat != bot and has(st, bot, "metzli") and st.unlocked_workers(bot, st.wb[w]):
        st.cocoa[bot] += 3
        st.note(bot, "Metzli: Teotibot gains 3 cocoa")
    return []


def _bot_roll(st: TeoCore, seat: int, pos: int) -> list[tuple]:
    """S02: on 2-3 or 11-12, pay 2 cocoa: that bottom corner's action, then the other's; the
    first tile is replaced at once, the Direction tiles move only after both."""
    if not has(st, seat, "tlahuizcalpantecuh") or st.roll not in S02_ROLLS or st.cocoa[seat] < S02_COST:
        return []
    st.cocoa[seat] -= S02_COST
    other = S02_POSITIONS[1] if pos == S02_POSITIONS[0] else S02_POSITIONS[0]
    st.note(seat, f"Tlāhuizcalpantecuh: Teotibot pays {S02_COST} cocoa for both bottom-corner actions")
    return [
        ("bot-perform", seat, pos),
        ("bot-aside", seat, pos),
        ("bot-perform", seat, other),
        ("bot-done", seat, other),
    ]


def _bot_perform(st: TeoCore, frame: Frame) -> None:
    bot_actions.perform(st, frame[1], st.act_pyr[frame[2]])


def _bot_aside(st: TeoCore, frame: Frame) -> None:
    # a bottom-row tile: the set-aside tile takes its place, nothing shifts, no Direction flip
    pos = frame[2]
    st.act_pyr[pos], st.act_aside = st.act_aside, st.act_pyr[pos]


def _bot_ascension(st: TeoCore, frame: Frame, opts: list[Payload]) -> Payload:
    """S03: one step on each temple instead of the 5 VP."""
    return ("each-temple",) if has(st, frame[1], "itzpapalotl") else ascension_reward(st, frame, opts)


def _masks(st: TeoCore, seat: int) -> int:
    return sum(1 for t in effects.MASK_IDS if st.d_owner[t] == seat)


def _extras(st: TeoCore, seat: int, *steps: tuple) -> None:
    """Carry out (builder, price) steps one after another; push the frames of those that worked."""
    todo: list[tuple] = []
    for builder, price in steps:
        done = builder(st, seat, price)
        if done is not None:
            todo.extend(done)
    push(st, *todo)


def _mask_tile(st: TeoCore, seat: int) -> None:
    """S04: after a mask, 1 stone for a Pyramid tile, then 1 gold for a Decoration; after
    failing, 2 more cocoa."""
    if not has(st, seat, "tezcatlipoca"):
        bot_actions.mask_tile(st, seat)
        return
    before = _masks(st, seat)
    bot_actions.mask_tile(st, seat)
    if _masks(st, seat) > before:
        _extras(st, seat, (bot_actions.build_pyramid, 1), (bot_actions.place_decoration, 1))
    else:
        st.cocoa[seat] += 2


def _chantico(main, builder):
    """S05: a successful Decorations (Construction) step is followed by a Pyramid tile for 1
    stone (a Decoration for 1 gold)."""

    def step(st: TeoCore, seat: int) -> list | None:
        todo = main(st, seat)
        if todo is not None and has(st, seat, "chantico"):
            more = builder(st, seat, 1)
            if more is not None:
                todo = todo + more
        return todo

    return step


def _develop(st: TeoCore, seat: int) -> list | None:
    """S06: the player scores nothing for Technologies they share; with gold left the step runs
    once more."""
    if not has(st, seat, "mictecacihuatl"):
        return bot_actions.develop(st, seat)
    todo = _develop_once(st, seat)
    if todo is not None and st.res[seat * 3 + 2] >= 1:
        again = _develop_once(st, seat)
        if again is not None:
            todo = todo + again
    return todo


def _develop_once(st: TeoCore, seat: int) -> list | None:
    saved, sheet = st.vp[:], st.sheet_vp[:]
    todo = bot_actions.develop(st, seat)
    st.vp[:] = [v if s == seat else saved[s] for s, v in enumerate(st.vp)]
    m = len(st.sheet_vp) // st.n  # the others' sheets taken back with their VP
    st.sheet_vp[:] = [v if k // m == seat else sheet[k] for k, v in enumerate(st.sheet_vp)]
    return todo


def _alchemy_tile(st: TeoCore, seat: int) -> None:
    """S06: a failed Alchemy action also gives 5 cocoa."""
    before = st.tech_count(seat)
    bot_actions.alchemy_tile(st, seat)  # its develop step is ours (_develop)
    if has(st, seat, "mictecacihuatl") and st.tech_count(seat) == before:
        st.cocoa[seat] += 5


_decorate = _chantico(bot_actions.decorate, bot_actions.build_pyramid)
_construct = _chantico(bot_actions.construct, bot_actions.place_decoration)
assert len(EXP.priests) == 10 and len(EXP.bot_priests) < HUITZ


# The parts this file adds to a rulebook (rulebook.py), in the order their hooks run.
PARTS: tuple[Part, ...] = (
    each("setup", _setup),
    Simultaneous("priest-pick", _pending),
    listener("starting_tiles_chosen", _after_starting_tiles),
    Choice("priest-pick", _pick_options, _pick_describe, _pick),
    renderer(_render),
    adjuster("may_claim", _may_claim, tiles=("quetzalcoatl", "xochipilli")),
    listener("claim", _claimed, tiles=("quetzalcoatl",)),
    listener("resource_main", _resource_main, tiles=("tlaloc",)),
    Choice("tlaloc", _tlaloc_options, _tlaloc_describe, _tlaloc),
    adjuster("build_extra", _build_extra, tiles=("tlaloc",)),
    adjuster("main_cost", _main_cost, last=True, tiles=("chalchiuhtlicue",)),
    adjuster("virtual_workers", _virtual, tiles=("oxomoco",)),
    adjuster("worship_fee", _worship_fee, tiles=("xipe_totec",)),
    adjuster("unlock_cost", _unlock_cost, tiles=("ehecatl", "xipe_totec")),
    listener("ascend", _second_reward, tiles=("xolotl",)),
    listener("temple_gate", _gate, tiles=("xolotl",)),
    Choice("xolotl", _xolotl_options, _xolotl_describe, _xolotl),
    Auto("adv-paid", _adv_paid),
    adjuster("move", _move, tiles=("ehecatl",)),
    adjuster("turn_options", _turn_options, tiles=("ehecatl",)),
    TurnOption("ehecatl", _ehecatl_label, _ehecatl_resolve),
    Choice("ehecatl-to", _to_options, _to_describe, _ehecatl_to),
    adjuster("collect_cocoa", _collect, tiles=("ehecatl",)),
    each("eclipse_end", _later_starting_tile),
    Choice("tona-tile", _tona_options, _tona_describe, _tona_tile),
    adjuster("main_wood", _main_wood, tiles=("tonacacihuatl",)),
    Watcher(_huitz_seats, _watch),
    adjuster("own_vp", _own_vp, tiles=("huitzilopochtli",)),
    adjuster("score_vp", _score_vp, tiles=("huitzilopochtli",)),
    adjuster("salary", _salary, tiles=("huitzilopochtli",)),
    adjuster("tech_gold", _tech_gold, tiles=("xochipilli",)),
    adjuster("alchemy_any_row", _any_row, tiles=("xochipilli",)),
    adjuster("may_worship", _may_worship, tiles=("xochipilli",)),
    listener("moved", _metzli, bot_tiles=("metzli",)),
    listener("bot_roll", _bot_roll, bot_tiles=("tlahuizcalpantecuh",)),
    Auto("bot-perform", _bot_perform),
    Auto("bot-aside", _bot_aside),
    Automaton("asc-reward", _bot_ascension, replaces=True),
    BotStep(5, _develop, replaces=True),
    BotStep(7, _decorate, replaces=True),
    BotStep(8, _construct, replaces=True),
    BotTile(1, bot_actions.board_tile(_construct, 8, 3), replaces=True),
    BotTile(2, bot_actions.board_tile(_decorate, 7, 4), replaces=True),
    BotTile(3, _alchemy_tile, replaces=True),
    BotTile(7, _mask_tile, replaces=True),
)

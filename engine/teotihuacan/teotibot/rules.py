"""Teotibot, the official solo automaton, as an engine-played seat.

The bot is the last seat (``st.bot``; -1 in a game without it). It never appears in
``to_act()``: its turn is the automatic frame ``bot-turn``, and every choice frame of the
base rules that reaches the bot (temple rewards, Ascension, Avenue tiles) is answered by the
policies listed here in ``PARTS``. The seven actions and the turn that rolls
for one are in ``actions.py``; this module holds the data, setup, the action pyramid, the
final scoring and the answers to the base rules' choices.
"""

from __future__ import annotations

from pathlib import Path
from random import Random

from engine import toml_tables

from .. import modules
from ..core import TeoCore
from ..data import DATA, MIXES, SIDEBAR_SPACE, TEMPLES
from ..expansion_data import NOBLES_SPACE, SIDEBAR_SPACE_M2
from ..flow import Frame, Payload, push
from ..hooks import Auto, Automaton, Part

DATA_FILE = Path(__file__).resolve().parent.parent / "data" / "teotibot.toml"
BOT = toml_tables.load(DATA_FILE)

TILE_NAMES = {int(k): v for k, v in BOT["action_tiles"]["names"].items()}
DICE_POSITION = {int(k): v for k, v in BOT["action_pyramid"]["dice_sum_position"].items()}
BELOW = tuple(tuple(x) for x in BOT["action_pyramid"]["below"])
POSITION_NAMES = tuple(BOT["action_pyramid"]["row_names"])
SIDES = tuple(BOT["direction_tiles"]["sides"])
ACT = BOT["actions"]
FINAL = BOT["final_eclipse"]
MASK_RARITY = {int(k): v for k, v in BOT["masks"]["rarity"].items()}
DIFFICULTY = BOT["difficulty"]
# Temple worship spaces (the Palace ignored): board -> temple index, or -1 for any temple.
SIDEBAR_TEMPLE = {b: (TEMPLES.index(t) if t != "any" else -1) for b, t in DATA.worship_temple.items()}
DATA_SPACE_BOARD = {s: b for b, s in SIDEBAR_SPACE_M2.items()}  # temple Worship space -> its board

# Difficulty: one option per starting unlocked worker (its board -> the option's name).
WORKER_OPTIONS = {
    4: "teotibot_power_gold_deposits",
    6: "teotibot_power_nobles",
    8: "teotibot_power_construction",
}


def option_schema() -> dict[str, dict]:
    """The difficulty adjustments of the rulebook as options, each within its printed range."""
    low, high = DIFFICULTY["worker_power"]
    schema = {
        name: {
            "type": "int",
            "default": 0,
            "min": low,
            "max": high,
            "help": f"Teotibot: starting power change of its {DATA.board_names[b]} worker",
        }
        for b, name in WORKER_OPTIONS.items()
    }
    ranges = {
        "teotibot_resources": ("resources", "starting gold, wood and stone change (each)"),
        "teotibot_cash_in_vp": ("cash_in_vp", "change of the VP for 10 cocoa"),
        "teotibot_worship_steps": ("worship_steps", "change of the temple steps of its Worship action"),
        "teotibot_technology_vp": ("technology_vp", "change of the final VP per Technology"),
    }
    for name, (key, text) in ranges.items():
        low, high = DIFFICULTY[key]
        schema[name] = {"type": "int", "default": 0, "min": low, "max": high, "help": f"Teotibot: {text}"}
    low, high = DIFFICULTY["bonus_tile_vp"]
    schema["teotibot_bonus_tile_vp"] = {
        "type": "int",
        "default": 0,
        "choices": list(range(low, high + 1, 5)),
        "help": "Teotibot: change of the flat VP per Temple Bonus tile reached",
    }
    return schema


def adjust(st: TeoCore, name: str) -> int:
    """A difficulty adjustment of this game (0 = the rules as written)."""
    return st.options.get(name) or 0


# ---- setup -----------------------------------------------------------------------------------------------
def setup_bot(st: TeoCore, rng: Random) -> None:
    """The bot's holdings, tracks, technology, workers, action pyramid and Direction tiles."""
    bot = st.bot
    spec = BOT["setup"]
    extra = adjust(st, "teotibot_resources")
    for i, name in enumerate(("wood", "stone", "gold")):
        st.res[bot * 3 + i] = spec["resources"][name] + extra
    st.cocoa[bot] = spec["cocoa"]
    st.avenue[bot] = spec["avenue"]
    st.ptrack[bot] = spec["pyramid_track"]
    for t in range(st.nt):
        st.temple[bot * st.nt + t] = spec["temple_step"]  # no rewards for these steps
    st.tech_marks[spec["technology_position"]] |= 1 << bot  # no temple step for it
    for k, worker in enumerate(spec["workers"]):
        w = bot * 4 + k
        st.wb[w] = worker["board"]
        st.wp[w] = worker["power"] + (0 if worker["locked"] else adjust(st, WORKER_OPTIONS[worker["board"]]))
        if worker["locked"]:
            space = SIDEBAR_SPACE[worker["board"]]
            st.ws[w] = space
            st.space_occ[space] = w
    tiles = sorted(TILE_NAMES)
    rng.shuffle(tiles)
    st.act_pyr = tiles[: BOT["action_tiles"]["in_pyramid"]]
    st.act_aside = tiles[-1]
    st.dirs = [rng.randrange(2) for _ in range(BOT["direction_tiles"]["count"])]


# ---- worker geometry -------------------------------------------------------------------------------------
def rank_high(st: TeoCore, w: int) -> tuple:
    """Sort key for 'highest powered': power, then clockwise furthest from the Palace."""
    return (st.wp[w], st.board_place[st.wb[w]], -w)


def highest(st: TeoCore, workers: list[int]) -> int:
    """The highest powered worker (ties: clockwise furthest from the Palace)."""
    return max(workers, key=lambda w: rank_high(st, w))


def lowest(st: TeoCore, workers: list[int]) -> int:
    """The lowest powered worker (ties: clockwise closest to the Palace)."""
    return min(workers, key=lambda w: (st.wp[w], st.board_place[st.wb[w]], w))


def clockwise_boards(st: TeoCore, board: int) -> list[int]:
    """The other boards clockwise from ``board``, the Palace left out."""
    place = st.board_place[board]
    out = []
    for k in range(1, 8):
        b = st.place_board[(place - 1 + k) % 8 + 1]
        if b != 1:
            out.append(b)
    return out


def advance_target(st: TeoCore, w: int) -> int:
    """Where an advanced worker goes: the next board (power 1-3) or the second (power 4-5),
    skipping the Palace either way."""
    distance = 2 if st.wp[w] >= ACT["advance_far_power"] else 1
    return clockwise_boards(st, st.wb[w])[distance - 1]


def next_temple_spaces(st: TeoCore, board: int) -> list[int]:
    """Temple Worship spaces clockwise after ``board`` (the Palace ignored; M2's Nobles (6) space
    included where the game has it)."""
    sidebar = SIDEBAR_SPACE_M2 if len(st.space_occ) > NOBLES_SPACE else SIDEBAR_SPACE
    return [sidebar[b] for b in clockwise_boards(st, board) if b in sidebar]


def relocate_unlocked(st: TeoCore, w: int, space: int) -> None:
    """The player unlocked the bot's worker ``w`` from ``space``: it moves on to the next empty
    Temple Worship space clockwise (its effect not performed). With none empty it takes the next
    clockwise space anyway, unlocking the player's worker locked there."""
    spaces = next_temple_spaces(st, DATA_SPACE_BOARD[space])
    empty = [s for s in spaces if st.space_occ[s] < 0]
    move_locked(st, w, empty[0] if empty else spaces[0])
    st.note(st.bot, f"Teotibot's worker moves on to the {modules.board_name(st, st.wb[w])} Worship space")


def move_locked(st: TeoCore, w: int, space: int) -> None:
    """Move the bot's locked worker ``w`` onto Worship ``space`` (and its board), unlocking the
    player's worker locked there, if any."""
    if st.ws[w] >= 0 and st.space_occ[st.ws[w]] == w:
        st.space_occ[st.ws[w]] = -1
    occ = st.space_occ[space]
    if occ >= 0:
        st.ws[occ] = -1
    st.wb[w] = DATA_SPACE_BOARD[space]
    st.ws[w] = space
    st.space_occ[space] = w


def shift_pyramid(st: TeoCore, pos: int) -> None:
    """Remove the tile at ``pos``; the tiles below move up, each chosen by the next Direction
    tile from the top (left or right of the hole); the set-aside tile fills the hole left in the
    bottom row and the removed tile is set aside. Then the top Direction tile flips and goes
    below the other."""
    removed = st.act_pyr[pos]
    hole = pos
    level = 0
    while BELOW[hole]:
        source = BELOW[hole][st.dirs[level]]
        st.act_pyr[hole] = st.act_pyr[source]
        hole = source
        level += 1
    st.act_pyr[hole] = st.act_aside
    st.act_aside = removed
    top = st.dirs.pop(0)
    st.dirs.append(1 - top)


def _bot_done(st: TeoCore, frame: Frame) -> None:
    seat, pos = frame[1], frame[2]
    shift_pyramid(st, pos)
    if st.cocoa[seat] >= BOT["turn"]["cocoa_cash_in"]:
        st.cocoa[seat] -= BOT["turn"]["cocoa_cash_in"]
        vp = max(0, BOT["turn"]["cash_in_vp"] + adjust(st, "teotibot_cash_in_vp"))
        st.add_vp(seat, vp, "teotibot_extras")
        st.note(seat, f"Teotibot cashes in {BOT['turn']['cocoa_cash_in']} cocoa for {vp} VP")
    push(st, ("end-turn", seat))


# ---- final Eclipse -------------------------------------------------------------------------------------
def final_score(st: TeoCore, seat: int, reached: int) -> int:
    """The bot's extra VP at the final Eclipse: leftovers, technologies, flat bonus tiles."""
    leftovers = st.cocoa[seat] + sum(st.res[seat * 3 : seat * 3 + 3])
    tech = (FINAL["vp_per_technology"] + adjust(st, "teotibot_technology_vp")) * st.tech_count(seat)
    bonus = (FINAL["vp_per_bonus_tile"] + adjust(st, "teotibot_bonus_tile_vp")) * reached
    return leftovers * FINAL["vp_per_resource"] + max(0, tech) + max(0, bonus)


# ---- answers to the base rules' choices ----------------------------------------------------------------
def _least_resources(st: TeoCore, frame: Frame, opts: list[Payload]) -> Payload:
    """Blue temple resources: one at a time, the one the bot has least of (gold, stone, wood)."""
    held = st.res[frame[1] * 3 : frame[1] * 3 + 3]
    mix = [0, 0, 0]
    for _ in range(frame[2]):
        i = min((2, 1, 0), key=lambda r: held[r] + mix[r])
        mix[i] += 1
    pick = tuple(mix)
    assert pick in MIXES[frame[2]]
    return pick


def _any_temple(st: TeoCore, frame: Frame, opts: list[Payload]) -> Payload:
    """The temple the bot is highest on (blue, red, green on ties). Offered are the temples where
    it is below the top step, whether or not the step can happen (a blocked step is lost)."""
    seat = frame[1]
    return max(opts, key=lambda p: (st.temple[seat * st.nt + p[0]], -p[0]))


def ascension_reward(st: TeoCore, frame: Frame, opts: list[Payload]) -> Payload:
    """The bot's Ascension reward: the 5 VP."""
    return ("vp",)


def _power_up(st: TeoCore, frame: Frame, opts: list[Payload]) -> Payload:
    """A power-up of the bot's choice: its highest powered worker."""
    workers = [p[1] for p in opts if p[0] == "w"]
    return ("w", highest(st, workers))


# The parts this file adds to a rulebook (rulebook.py), in the order their hooks run.
PARTS: tuple[Part, ...] = (
    Auto("bot-done", _bot_done),
    Automaton("major", lambda st, frame, opts: ("reward",)),
    Automaton("avenue-claim", lambda st, frame, opts: ("decline",)),
    Automaton("asc-reward", ascension_reward),
    Automaton("any-res", _least_resources),
    Automaton("any-temple", _any_temple),
    Automaton("power-up", _power_up),
)

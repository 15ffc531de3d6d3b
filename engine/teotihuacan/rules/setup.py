"""Every way a state is made: a new game (board and player setup: layout, tiles, offers,
pyramid patterns, Starting tiles dealt or drafted, or the first-game setup, neutral workers),
and a full state rebuilt from one seat's observation."""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations
from random import Random

from .. import modules, teotibot
from ..core import CATEGORIES, LIST_FIELDS, NESTED_FIELDS, PLAY_CATEGORIES, SCALAR_FIELDS, TeoCore
from ..data import DATA, RESOURCES, TEMPLES
from ..expansion_data import EXP
from ..flow import Frame, Payload, push, run
from ..hooks import Auto, Choice, Part, Rules, Simultaneous
from ..observation import HIDDEN, hidden_pools, resample
from ..state import TeoState
from .calendar import place_neutrals
from .effects import can_claim, claim, claim_label, describe_gain, gain, tile_name


def new_game(players: int, seed: int, options: dict, version: str, rules: Rules) -> TeoState:
    """A new game after setup, waiting for the first decision; ``version`` is the engine's,
    ``rules`` the rulebook of the options' module set."""
    st = TeoState()
    st.version = version
    st.rules = rules
    solo = options.get("automaton") == "teotibot"
    n = st.n = players + (1 if solo else 0)  # the automaton takes the seat after the agents
    st.bot = players if solo else -1
    st.act_pyr, st.dirs, st.act_aside, st.roll = [], [], 0, 0
    st.options = options
    st.first_game = bool(options.get("first_game"))
    st.draft = bool(options.get("starting_tile_draft"))
    st.dark_variant = bool(options.get("dark_eclipse"))
    _expansion_fields(st, n, options)
    rng = Random(seed)
    st.events = []
    st.stack = []
    st.opts = None
    # -- action boards around the main board
    if st.first_game:
        layout = list(DATA.first_game_layout)
    else:
        layout = [0] * 8
        layout[0], layout[4] = 1, 8
        boards = [2, 3, 4, 5, 6, 7]
        rng.shuffle(boards)
        for place, board in zip(DATA.shuffled_places, boards, strict=True):
            layout[place - 1] = board
    st.place_board = [0, *layout]
    st.board_place = [0] * 9
    for place, board in enumerate(layout, 1):
        st.board_place[board] = place
    # -- Royal, Technology and Temple Bonus tiles
    fg = DATA.first_game
    if st.first_game:
        st.royal = [fg["royal_tiles"][k] for k in ("left", "centre", "right")]
        st.tech = fg["technology"]["top_row"] + fg["technology"]["bottom_row"]
        st.bonus = [fg["temple_bonus"][t] for t in TEMPLES]
    else:
        st.royal = [rng.choice(group) for group in DATA.royal_groups]
        st.tech = sorted(rng.sample(sorted(DATA.tech_gold), 6))
        st.bonus = rng.sample(list(DATA.bonus_tiles), 3)
    st.tech_marks = [0] * 6
    # -- calendar, buildings
    st.light, st.dark = 0, DATA.dark_disc[n][0]
    st.eclipses, st.pending, st.pyramid_done, st.over, st.turns = 0, -1, False, False, 0
    st.buildings_taken = 0
    st.nob_taken = [0, 0, 0]  # per Nobles row, bit k: a Building on its k-th space from the left
    # -- decorations and pyramid
    st.deco_deck = sorted(DATA.deco_tiles)
    rng.shuffle(st.deco_deck)
    st.deco_offer = [st.deco_deck.pop() for _ in range(DATA.deco_offer_size)]
    st.deco_space = [0] * 16
    st.pyr_deck = sorted(DATA.pyramid_tiles)
    rng.shuffle(st.pyr_deck)
    st.pyr_offer = [st.pyr_deck.pop() for _ in range(DATA.pyramid_offer)]
    st.pyr_pos = [-1] * len(DATA.positions)
    st.grid = list(DATA.base_grid)
    patterns = EXP.expert_patterns if options.get("expert_setup") else DATA.setup_patterns
    for pos in patterns[n]:
        tid, rot = st.pyr_deck.pop(), rng.randrange(4)
        icons = DATA.pyramid_tiles[tid]
        for i, q in enumerate(DATA.positions[pos].squares):
            st.grid[q] = icons[(i - rot) % 4]
        st.pyr_pos[pos] = tid * 4 + rot
    # -- discovery tiles
    st.d_owner = [-1] * 55
    st.d_used = [0] * 55
    st.d_deck = list(DATA.discovery_ids)
    rng.shuffle(st.d_deck)
    st.d_offer = [st.d_deck.pop() for _ in range(5)]
    st.d_avenue = [[st.d_deck.pop() for _ in range(k)] for _, k in DATA.avenue_spots]
    st.d_temple = [[st.d_deck.pop() for _ in range(counts[n])] for _, _, counts in DATA.temple_discovery]
    # -- players: a random first player (Player Order token 1); the others follow clockwise
    # (seat order). Solo: the player starts the game (Teotibot rules).
    st.first = 0 if options.get("automaton") else rng.randrange(n)
    st.cocoa = [DATA.starting_cocoa[_cocoa_index(st, s)] for s in range(n)]
    st.res = [0] * (3 * n)
    st.vp = [0] * n
    st.avenue = [0] * n
    st.ptrack = [0] * n
    st.nt = len(TEMPLES)  # temples in play (a module may add a fourth)
    st.temple = [0] * (st.nt * n)
    st.cat_vp = [0] * (len(CATEGORIES) * n)
    st.ecl_vp = [0] * (3 * n)
    st.sheet_vp = [0] * (len(PLAY_CATEGORIES) * n)
    st.vp_marks = []  # (label, every seat's VP) after each round and Eclipse
    st.wb = [0] * 16
    st.wp = [1] * 16
    st.ws = [-1] * 16
    st.space_occ = [-1] * 7
    for s in range(n):
        st.wp[s * 4 + 3] = 3  # the fourth worker waits on the Ascension wheel
    st.neutral_draws = []
    st.start_deck = list(range(1, 19))
    rng.shuffle(st.start_deck)
    st.start_dealt = [[] for _ in range(n)]
    st.kept = [[] for _ in range(n)]
    st.start_disc = [0] * 19
    st.start_pick = [None] * n
    st.draft_pool = []
    agents = st.agent_seats()
    if solo:
        teotibot.setup_bot(st, rng)
    if st.first_game:
        _first_game(st)
        place_neutrals(st, st.start_deck, rng)
        push(st, ("turn", st.first))
    elif st.draft:
        st.draft_pool = sorted(st.start_deck.pop() for _ in range(DATA.draft_pool[n]))
        _deal_discoveries(st, st.draft_pool)
        place_neutrals(st, st.start_deck, rng)
        order = st.agent_seats()
        order += order[::-1]
        push(st, *[("draft", s) for s in order], ("start-resolve", 0))
    else:
        for s in agents:
            st.start_dealt[s] = sorted(st.start_deck.pop() for _ in range(4))
            _deal_discoveries(st, st.start_dealt[s])
        place_neutrals(st, st.start_deck, rng)
        push(st, ("start-pick", -1))
    if st.mods:  # module set-up steps (they may insert frames under the base set-up's)
        modules.run_all(st, "setup", rng)
        modules.refresh(st)  # the first Season tile, Teotibot's priest tile
    st.chance = rng.getrandbits(64)
    run(st)
    return st


def _expansion_fields(st: TeoCore, n: int, options: dict) -> None:
    """The Late Preclassic state fields, empty in the base game (modules.py fills them)."""
    st.mods = modules.parse(options.get("modules"))
    if st.rules.mods != st.mods:
        raise ValueError(f"the rulebook is for modules {st.rules.mods}, the options name {st.mods}")
    st.season = 0  # M3: the active Season tile's number (0: none)
    st.season_deck = []  # M3: face-down Season tiles (order hidden)
    st.season_used = []  # M3: Season tiles already replaced (public)
    st.priest = [0] * n  # M1: each seat's kept priest tile (1-based index; 0 none or not revealed)
    st.priest_dealt = [[] for _ in range(n)]  # M1: the 2 tiles dealt to each seat (hidden from others)
    st.priest_pick = [0] * n  # M1: the tile a seat has chosen to keep (hidden until all chose)
    st.priest_deck = []  # M1: undealt priest tiles (hidden)
    st.ability = [0] * n  # M2: Special Abilities per seat, bit i = EXP.abilities[i]
    st.vp_seen = [0] * n  # M1: VP as last seen by Huitzilopochtli's watcher (one more VP per gain)
    modules.refresh(st)  # the hooks each seat runs (none in the base game)


def _cocoa_index(st: TeoCore, seat: int) -> int:
    """Index into DATA.starting_cocoa: first player, others, Last Player."""
    if seat == st.first:
        return 0
    return 2 if seat == st.last_seat() else 1


def _deal_discoveries(st: TeoCore, tiles: list[int]) -> None:
    for tid in tiles:
        if DATA.starting_tiles[tid][1].get("discovery"):
            st.start_disc[tid] = st.d_deck.pop()


def _first_game(st: TeoCore) -> None:
    """The printed first-game setup (rulebook Player setup, point 6)."""
    for s in st.agent_seats():
        spec = DATA.first_game[f"p{st.order(s) + 1}"]  # by Player Order token
        st.cocoa[s] += spec.get("cocoa", 0)
        for i, name in enumerate(RESOURCES):
            st.res[s * 3 + i] += spec.get(name, 0)
        st.avenue[s] += spec.get("avenue", 0)
        steps = list(spec.get("temples", []))
        if "technology_position" in spec:
            pos = spec["technology_position"]
            st.tech_marks[pos] |= 1 << s
            steps.append(TEMPLES[DATA.tech_columns[pos % 3]])
        for name in steps:
            t = TEMPLES.index(name)
            st.temple[s * st.nt + t] += 1
            reward = dict(DATA.temple_steps[t][st.temple[s * st.nt + t]][1])
            if "any_resource" in reward:
                reward = {spec["blue_reward"]: reward.pop("any_resource"), **reward}
            gain(st, s, reward, "temple_rewards")
        for k, (board, power) in enumerate(spec["workers"]):
            st.wb[s * 4 + k] = board
            st.wp[s * 4 + k] = power


# ---- Starting tiles: hidden simultaneous pick, or the draft -------------------------------------------
PAIRS = tuple(combinations(range(4), 2))


def start_tile_text(st: TeoCore, tid: int, seat: int | None = None) -> str:
    """'tile 7 (boards 1, 4): 1 red temple, 5 cocoa, 2 gold'."""
    boards, g = DATA.starting_tiles[tid]
    text = f"Starting tile {tid} (boards {boards[0]}, {boards[1]}): {describe_gain(g)}"
    if st.start_disc[tid]:
        text += f" [discovery: {tile_name(st.start_disc[tid])}]"
    return text


def _pick_options(st: TeoCore, frame: Frame) -> list[Payload]:
    return list(PAIRS)


def _pick_describe(st: TeoCore, frame: Frame, opts: list[Payload]) -> tuple[str, list[str]]:
    dealt = st.start_dealt[frame[1]]
    return "Keep 2 of your 4 Starting tiles", [
        f"keep {start_tile_text(st, dealt[i])} AND {start_tile_text(st, dealt[j])}" for i, j in opts
    ]


def _pick_pending(st: TeoCore) -> tuple[int, ...]:
    return tuple(s for s in range(st.n) if st.start_pick[s] is None and s != st.bot)


def _start_pick(st: TeoCore, frame: Frame, p: Payload) -> None:
    seat = frame[1]
    st.start_pick[seat] = p
    agents = st.agent_seats()
    if all(st.start_pick[s] is not None for s in agents):
        st.stack.pop()
        for s in agents:
            st.kept[s] = [st.start_dealt[s][i] for i in st.start_pick[s]]
        kept = "; ".join(f"Seat {s} keeps Starting tiles {st.kept[s][0]} and {st.kept[s][1]}" for s in agents)
        if st.keep_log:
            st.events.append((-1, "start-pick", kept))
        # a module's step between the choice and its resolution (the priest tiles)
        later = modules.fire(st, "starting_tiles_chosen", -1) if st.mods else ()
        push(st, *later, ("start-resolve", 0))


def _draft_options(st: TeoCore, frame: Frame) -> list[Payload]:
    return [(tid,) for tid in st.draft_pool]


def _draft_describe(st: TeoCore, frame: Frame, opts: list[Payload]) -> tuple[str, list[str]]:
    return "Draft a Starting tile", [start_tile_text(st, tid) for (tid,) in opts]


def _draft(st: TeoCore, frame: Frame, p: Payload) -> None:
    st.draft_pool.remove(p[0])
    st.kept[frame[1]] = [*st.kept[frame[1]], p[0]]  # replaced, not changed in place: clones share it


def _start_resolve(st: TeoCore, frame: Frame) -> None:
    kept = {tid for tiles in st.kept for tid in tiles}
    returned = False
    for tid in range(1, 19):
        if st.start_disc[tid] and tid not in kept:
            st.d_deck.append(st.start_disc[tid])  # unclaimed tiles go back into the stacks
            st.start_disc[tid] = 0
            returned = True
    if returned:
        st.chance_rng().shuffle(st.d_deck)
    todo = []
    for s in st.agent_seats():
        todo.append(("start-place", s))
        todo.append(("start-benefits", s))
    todo.append(("turn", st.first))
    push(st, *todo)


def _place_options(st: TeoCore, frame: Frame) -> list[Payload]:
    boards = []
    for tid in st.kept[frame[1]][:2]:  # a priest may keep two more, resolved later
        for b in DATA.starting_tiles[tid][0]:
            if b not in boards:
                boards.append(b)
    return list(combinations(sorted(boards), 3))


def _place_describe(st: TeoCore, frame: Frame, opts: list[Payload]) -> tuple[str, list[str]]:
    return "Place your 3 starting workers on 3 different boards", [
        "workers on " + ", ".join(modules.board_name(st, b) for b in trio) for trio in opts
    ]


def _start_place(st: TeoCore, frame: Frame, p: Payload) -> None:
    seat = frame[1]
    for k, board in enumerate(p):
        st.wb[seat * 4 + k] = board
        st.wp[seat * 4 + k] = 1


def _start_benefits(st: TeoCore, frame: Frame) -> None:
    """Benefits in a fixed order: resources, Avenue, temples, technology, choices, tiles."""
    start_tile_benefits(st, frame[1], st.kept[frame[1]][:2])  # a priest may keep two more


def start_tile_benefits(st: TeoCore, seat: int, tiles: list[int]) -> None:
    """Gain the benefits of Starting ``tiles`` (their workers aside)."""
    fixed: dict = {}
    later: list[tuple] = []
    for tid in tiles:
        for key, amount in DATA.starting_tiles[tid][1].items():
            if key == "technology":
                later.append(("tech-free", seat))
            elif key == "power_up":
                later.append(("power-up", seat, 0, 0))
            elif key == "discovery":
                if st.start_disc[tid]:
                    later.append(("start-disc", seat, st.start_disc[tid]))
                    st.start_disc[tid] = 0
            else:
                fixed[key] = fixed.get(key, 0) + amount
    order = [
        "cocoa",
        "wood",
        "stone",
        "gold",
        "avenue",
        "blue_temple",
        "red_temple",
        "green_temple",
        "any_resource",
    ]
    todo = gain(st, seat, {k: fixed[k] for k in order if k in fixed}, "starting_tiles")
    push(st, *todo, *later)


def _tech_free(st: TeoCore, frame: Frame) -> None:
    seat = frame[1]
    for pos in sorted(range(6), key=lambda p: st.tech[p]):
        if not st.tech_marks[pos] >> seat & 1:
            st.tech_marks[pos] |= 1 << seat
            push(st, ("adv", seat, DATA.tech_columns[pos % 3]))
            return


def _disc_options(st: TeoCore, frame: Frame) -> list[Payload]:
    seat, tid = frame[1], frame[2]
    opts = [("decline",)]
    if can_claim(st, seat, tid, "start"):
        opts.insert(0, ("claim",))
    return opts


def _disc_describe(st: TeoCore, frame: Frame, opts: list[Payload]) -> tuple[str, list[str]]:
    return "Claim the discovery tile of your Starting tile?", [
        claim_label(frame[2]) if p[0] == "claim" else "decline it" for p in opts
    ]


def _start_disc(st: TeoCore, frame: Frame, p: Payload) -> None:
    seat, tid = frame[1], frame[2]
    if p[0] == "claim":
        claim(st, seat, tid)
    else:
        st.d_deck.append(tid)
        st.chance_rng().shuffle(st.d_deck)


# ---- a state from an observation ----------------------------------------------------------------------
def from_observation(obs: dict, rng: Random, rules: Rules) -> TeoState:
    """A full state whose observation for ``obs['seat']`` equals ``obs``, playing by ``rules``
    (the rulebook of the observation's module set)."""
    st = _public_state(obs, rules)
    resample(st, obs["seat"], rng)
    return st


def observation_sampler(obs: dict, rules: Rules) -> Callable[[Random], TeoState]:
    """``rng -> from_observation(obs, rng, rules)``, for a search that samples one observation
    many times: the public part is read once and each sample is a clone of it, resampled with
    the same draws from ``rng``, so equal to ``from_observation``'s but for its log: a sample
    keeps none (``TeoCore.keep_log``; labelling each step is a good part of a playout's cost)."""
    template = _public_state(obs, rules)
    template.keep_log = False
    seat = obs["seat"]
    pools = hidden_pools(template, seat)

    def sample(rng: Random) -> TeoState:
        st = template.clone()
        resample(st, seat, rng, pools)
        return st

    return sample


def _public_state(obs: dict, rules: Rules) -> TeoState:
    """The state of ``obs`` with its hidden parts blank (zeros of the right sizes), to be resampled."""
    st = TeoState()
    st.rules = rules
    seat = obs["seat"]
    public = obs["public"]
    for name in SCALAR_FIELDS:
        if name not in HIDDEN:
            st.__dict__[name] = public[name]
    for name in LIST_FIELDS:
        if name not in HIDDEN:
            st.__dict__[name] = list(public[name])
    for name in NESTED_FIELDS:
        if name not in HIDDEN:
            st.__dict__[name] = [list(x) for x in public[name]]
    st.stack = [tuple(f) for f in public["stack"]]
    st.options = dict(obs["options"])
    st.version = obs["version"]
    st.events = []
    counts = obs["hidden_counts"]
    st.d_deck = [0] * counts["discovery_stack"]
    st.deco_deck = [0] * counts["decoration_stack"]
    st.pyr_deck = [0] * counts["pyramid_stack"]
    st.start_deck = [0] * counts["starting_stack"]
    st.start_dealt = [
        list(obs["own_start_tiles"]) if s == seat else [0] * c for s, c in enumerate(obs["start_dealt_count"])
    ]
    st.start_disc = [0] * 19
    for t, d in obs["start_disc"].items():
        st.start_disc[int(t)] = d
    st.start_pick = [
        (tuple(p) if p is not None else None) if s == seat else ((0, 1) if p else None)
        for s, p in enumerate(obs["start_pick"])
    ]
    st.season_deck = [0] * counts["season_stack"]
    st.priest_deck = [0] * counts["priest_stack"]
    st.priest_dealt = [
        list(obs["own_priests"]) if s == seat else [0] * c for s, c in enumerate(obs["priest_dealt_count"])
    ]
    st.priest_pick = [p if s == seat else int(p) for s, p in enumerate(obs["priest_pick"])]
    st.chance = 0
    modules.refresh(st)
    return st


# The parts this file adds to a rulebook (rulebook.py), in the order their hooks run.
PARTS: tuple[Part, ...] = (
    Simultaneous("start-pick", _pick_pending),
    Choice("start-pick", _pick_options, _pick_describe, _start_pick),
    Choice("draft", _draft_options, _draft_describe, _draft),
    Auto("start-resolve", _start_resolve),
    Choice("start-place", _place_options, _place_describe, _start_place),
    Auto("start-benefits", _start_benefits),
    Auto("tech-free", _tech_free),
    Choice("start-disc", _disc_options, _disc_describe, _start_disc),
)

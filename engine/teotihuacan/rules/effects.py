"""Shared effects: gains, temple and Avenue steps, discovery tiles, power-ups and Ascension."""

from __future__ import annotations

from .. import modules
from ..core import KIND_IDS, TeoCore
from ..data import DATA, MIXES, RESOURCES, TEMPLES
from ..expansion_data import EXP, ORANGE, TEMPLE_NAMES
from ..flow import Frame, Payload, push
from ..hooks import Auto, Choice, Part

TEMPLE_LETTER = {"b": 0, "r": 1, "g": 2}
COST_NAMES = ("cocoa", "wood", "stone", "gold")
INSTANT_KINDS = (
    "vp_4",
    "resources_3",
    "resources_2",
    "avenue_step",
    "any_temple_step",
    "blue_temple_step",
    "red_temple_step",
    "green_temple_step",
    "cocoa_4",
    "power_up_2",
)


# ---- plain gains ---------------------------------------------------------------------------
def gain(st: TeoCore, seat: int, g: dict, source: str = "action_rewards") -> list[tuple]:
    """Apply the immediate part of a gain dict; return the frames its choices need, in order.
    Its VP go to the score sheet's category ``source``."""
    out: list[tuple] = []
    for key, amount in g.items():
        if key == "cocoa":
            st.cocoa[seat] += amount
        elif key == "vp":
            st.add_vp(seat, amount, source)
        elif key == "wood":
            st.res[seat * 3] += amount
        elif key == "stone":
            st.res[seat * 3 + 1] += amount
        elif key == "gold":
            st.res[seat * 3 + 2] += amount
        elif key == "any_resource":
            out.append(("any-res", seat, amount))
        elif key == "any_temple":
            out.extend(("any-temple", seat) for _ in range(amount))
        elif key.endswith("_temple"):
            out.extend(("adv", seat, TEMPLES.index(key[:-7])) for _ in range(amount))
        elif key == "avenue":
            out.extend(("avenue", seat) for _ in range(amount))
        elif key == "power_ups":
            out.extend(("power-up", seat, 0, 0) for _ in range(amount))
        elif key == "source":
            continue
        else:
            raise KeyError(f"unknown gain {key!r}")
    return out


def technology_vp(st: TeoCore, seat: int, vp: int) -> None:
    """A Technology's "After performing the Main action ... gain N Victory Points": a gain of
    its own, apart from the action's (Huītzilōpōchtli adds its +1 to each)."""
    total = modules.adjust(st, "own_vp", seat, vp) if st.mods else vp
    st.add_vp(seat, vp, "technologies")
    if total != vp:  # Huītzilōpōchtli's +1 on the sheet under its own name
        st.add_vp(seat, total - vp, "huitzilopochtli")


def describe_gain(g: dict) -> str:
    """A gain dict as short text: '2 wood, 1 VP'."""
    parts = []
    for key, amount in g.items():
        name = {"vp": "VP", "any_resource": "any resource", "any_temple": "any-temple step"}.get(key, key)
        parts.append(f"{amount} {name.replace('_', ' ')}")
    return ", ".join(parts) or "nothing"


def can_pay(st: TeoCore, seat: int, cost: tuple[int, int, int, int]) -> bool:
    """Whether ``seat`` holds (cocoa, wood, stone, gold) ``cost``."""
    res = st.res
    b = seat * 3
    return st.cocoa[seat] >= cost[0] and res[b] >= cost[1] and res[b + 1] >= cost[2] and res[b + 2] >= cost[3]


def pay(st: TeoCore, seat: int, cost: tuple[int, int, int, int]) -> None:
    """Pay (cocoa, wood, stone, gold) ``cost``."""
    st.cocoa[seat] -= cost[0]
    b = seat * 3
    st.res[b] -= cost[1]
    st.res[b + 1] -= cost[2]
    st.res[b + 2] -= cost[3]


def cost_text(cost: tuple[int, int, int, int]) -> str:
    """A cost tuple as text ('free' when nothing)."""
    parts = [f"{n} {name}" for n, name in zip(cost, COST_NAMES, strict=True) if n]
    return " + ".join(parts) or "free"


# ---- any resource ---------------------------------------------------------------------------
def _any_res_options(st: TeoCore, frame: Frame) -> list[Payload]:
    return list(MIXES[frame[2]])


def _mix_text(mix: tuple[int, int, int]) -> str:
    return ", ".join(f"{n} {RESOURCES[i]}" for i, n in enumerate(mix) if n) or "nothing"


def _any_res_describe(st: TeoCore, frame: Frame, opts: list[Payload]) -> tuple[str, list[str]]:
    return f"Choose {frame[2]} resource(s) of any kind", [f"take {_mix_text(m)}" for m in opts]


def _any_res(st: TeoCore, frame: Frame, mix: Payload) -> None:
    b = frame[1] * 3
    for i in range(3):
        st.res[b + i] += mix[i]


# ---- temples ----------------------------------------------------------------------------------
def can_advance(st: TeoCore, seat: int, t: int) -> bool:
    """Whether ``seat`` may step up on temple ``t`` (top step free of other markers)."""
    step = st.temple[seat * st.nt + t]
    top = DATA.top_step if t != ORANGE else EXP.orange_top
    if step >= top:
        return False
    if step + 1 == top:
        return not any(st.temple[s * st.nt + t] == top for s in range(st.n) if s != seat)
    return True


def _advance(st: TeoCore, frame: Frame) -> None:
    advance(st, frame[1], frame[2])


def advance(st: TeoCore, seat: int, t: int, gated: bool = False) -> None:
    """One step up temple ``t`` (if it can happen): the step's reward or major-step choice.
    A module may first ask for a price (``temple_gate``); ``gated``: it was paid."""
    if not can_advance(st, seat, t):
        return
    if st.mods and not gated:
        gate = modules.fire(st, "temple_gate", seat, t)
        if gate:
            push(st, *gate)
            return
    i = seat * st.nt + t
    st.temple[i] += 1
    step = st.temple[i]
    kind, reward = DATA.temple_steps[t][step] if t != ORANGE else EXP.orange_table[step]
    later = modules.fire(st, "temple", seat, t) if st.mods else ()
    if t == ORANGE and kind in ("ability", "move_back"):  # the orange temple's own steps (M2)
        push(st, *modules.fire(st, "orange_step", seat, step), *later)
        return
    if kind == "major":
        k = major_index(t, step)
        if st.d_temple[k]:
            push(st, ("major", seat, t, step), *later)
            return
    if reward:
        push(st, *gain(st, seat, reward, "temple_rewards"), *later)
    elif later:
        push(st, *later)


def major_index(t: int, step: int) -> int:
    """Index of a major step in DATA.temple_discovery (and in the state's d_temple); the
    orange temple's (M2) comes after the base ones."""
    if t == ORANGE:
        return len(DATA.temple_discovery)
    for k, (tt, ss, _) in enumerate(DATA.temple_discovery):
        if tt == t and ss == step:
            return k
    raise KeyError((t, step))


def _major_options(st: TeoCore, frame: Frame) -> list[Payload]:
    seat = frame[1]
    stack = st.d_temple[major_index(frame[2], frame[3])]
    opts: list[Payload] = [("tile", tid) for tid in sorted(set(stack)) if can_claim(st, seat, tid, "major")]
    opts.append(("reward",))
    return opts


def _major_describe(st: TeoCore, frame: Frame, opts: list[Payload]) -> tuple[str, list[str]]:
    t = frame[2]
    reward = DATA.temple_steps[t][frame[3]][1] if t != ORANGE else EXP.orange_table[frame[3]][1]
    labels = [
        f"take the printed reward ({describe_gain(reward)})" if p[0] == "reward" else claim_label(p[1])
        for p in opts
    ]
    return f"{TEMPLE_NAMES[t]} temple step {frame[3]}: a discovery tile or the printed reward", labels


def _major(st: TeoCore, frame: Frame, payload: Payload) -> None:
    seat, t, step = frame[1], frame[2], frame[3]
    if payload[0] == "tile":
        k = major_index(t, step)
        st.d_temple[k] = without(st.d_temple[k], payload[1])
        claim(st, seat, payload[1])
    else:
        reward = DATA.temple_steps[t][step][1] if t != ORANGE else EXP.orange_table[step][1]
        push(st, *gain(st, seat, reward, "temple_rewards"))


def _any_temple_options(st: TeoCore, frame: Frame) -> list[Payload]:
    seat = frame[1]
    if seat == st.bot:
        # Teotibot: "whichever temple it is currently the highest on (ignoring temples where it
        # has already reached the topmost step)"; if that step cannot happen, it is lost; it
        # never advances on the orange temple (M2)
        return [(t,) for t in range(len(TEMPLES)) if st.temple[seat * st.nt + t] < DATA.top_step]
    return [(t,) for t in range(st.nt) if can_advance(st, seat, t)]


def _any_temple_describe(st: TeoCore, frame: Frame, opts: list[Payload]) -> tuple[str, list[str]]:
    seat = frame[1]
    labels = []
    for (t,) in opts:
        step = st.temple[seat * st.nt + t]
        # only Teotibot is offered a temple that cannot advance: its step is lost
        lost = "" if can_advance(st, seat, t) else ": the step is lost (the top step is taken)"
        labels.append(f"{TEMPLE_NAMES[t]} temple (step {step} -> {step + 1}){lost}")
    return "Advance one step on a temple of your choice", labels


def _any_temple(st: TeoCore, frame: Frame, payload: Payload) -> None:
    push(st, ("adv", frame[1], payload[0]))


# ---- Avenue of the Dead -------------------------------------------------------------------------
def _avenue(st: TeoCore, frame: Frame) -> None:
    seat = frame[1]
    if st.avenue[seat] >= DATA.avenue_max:
        return
    st.avenue[seat] += 1
    if st.mods:
        push(st, *modules.fire(st, "avenue", seat))
    for k, (step, _) in enumerate(DATA.avenue_spots):
        if step == st.avenue[seat] and st.d_avenue[k]:
            push(st, ("avenue-claim", seat, k))


def _avenue_options(st: TeoCore, frame: Frame) -> list[Payload]:
    seat = frame[1]
    opts: list[Payload] = [
        ("tile", tid) for tid in sorted(set(st.d_avenue[frame[2]])) if can_claim(st, seat, tid, "avenue")
    ]
    opts.append(("decline",))
    return opts


def _avenue_describe(st: TeoCore, frame: Frame, opts: list[Payload]) -> tuple[str, list[str]]:
    return "Avenue of the Dead: claim a discovery tile here?", [
        "claim nothing" if p[0] == "decline" else claim_label(p[1]) for p in opts
    ]


def _avenue_claim(st: TeoCore, frame: Frame, payload: Payload) -> None:
    if payload[0] == "tile":
        st.d_avenue[frame[2]] = without(st.d_avenue[frame[2]], payload[1])
        claim(st, frame[1], payload[1])


# ---- discovery tiles ---------------------------------------------------------------------------
def without(stack: list[int], tid: int) -> list[int]:
    """A copy of a discovery stack less one ``tid``: the stacks inside d_avenue and d_temple are
    replaced, never changed in place, as clones share them (core.COPIED_FIELDS)."""
    rest = stack[:]
    rest.remove(tid)
    return rest


def tile_name(tid: int) -> str:
    """A discovery tile as readable text."""
    tile = DATA.discoveries[tid]
    if tile.mask:
        return f"mask {tile.mask} (#{tid})"
    return f"{tile.kind.replace('_', ' ')} (#{tid})"


def claim_label(tid: int) -> str:
    """Label of an option that claims tile ``tid`` by paying its cost."""
    cost = DATA.discoveries[tid].cost
    return f"claim {tile_name(tid)} " + (f"paying {cost_text(cost)}" if any(cost) else "(no cost)")


def can_claim(st: TeoCore, seat: int, tid: int, where: str) -> bool:
    """Whether ``seat`` may claim discovery tile ``tid`` now (``where``: 'major', 'avenue',
    'worship' or 'start'): it can pay, and no module forbids it (a priest)."""
    if not st.mods:
        return can_pay(st, seat, DATA.discoveries[tid].cost)
    if not modules.adjust(st, "may_claim", seat, True, tid, where):
        return False
    return modules.adjust(st, "can_pay_claim", seat, can_pay(st, seat, DATA.discoveries[tid].cost), tid)


def claim(st: TeoCore, seat: int, tid: int) -> None:
    """Pay the tile's cost and put it in front of ``seat`` (face up, unused)."""
    later = modules.fire(st, "claim", seat, tid) if st.mods else ()  # e.g. a resource before paying
    pay(st, seat, DATA.discoveries[tid].cost)
    st.d_owner[tid] = seat
    st.d_used[tid] = 0
    if later:
        push(st, *later)


def draw_discovery(st: TeoCore) -> int:
    """The next tile of the face-down stack, or 0 when it is empty (never reshuffled)."""
    return st.d_deck.pop() if st.d_deck else 0


def instant_tiles(st: TeoCore, seat: int) -> list[int]:
    """One unused tile of each instant kind ``seat`` holds (the ones usable at any time): for
    each kind, what ``st.holds(seat, kind)`` gives, in one pass (it runs every turn)."""
    owner, used = st.d_owner, st.d_used
    out = []
    for ids in INSTANT_IDS:
        for tid in ids:
            if owner[tid] == seat and not used[tid]:
                out.append(tid)
                break
    return out


INSTANT_IDS = tuple(KIND_IDS[kind] for kind in INSTANT_KINDS)


def _use_options(st: TeoCore, frame: Frame) -> list[Payload]:
    return [("go",), *(("use", tid) for tid in instant_tiles(st, frame[1]))]


def _use_describe(st: TeoCore, frame: Frame, opts: list[Payload]) -> tuple[str, list[str]]:
    return "Flip a discovery tile now?", [
        "go on" if p[0] == "go" else f"use discovery tile: {tile_name(p[1])}" for p in opts
    ]


def _use_tiles(st: TeoCore, frame: Frame, payload: Payload) -> None:
    """Mid-turn moment to flip tiles (one claimed a moment ago may be used at once)."""
    if payload[0] == "use":
        push(st, ("use-tiles", frame[1]))
        use_tile(st, frame[1], payload[1])


def use_tile(st: TeoCore, seat: int, tid: int) -> None:
    """Flip an instant tile face down and apply its benefit."""
    st.d_used[tid] = 1
    push(st, *gain(st, seat, DATA.discoveries[tid].gain, "discovery_tiles"))


def mask_sets(st: TeoCore, seat: int) -> list[int]:
    """Sizes of the mask sets (greedy layers of different masks, largest first)."""
    counts = [0] * 8
    for tid in MASK_IDS:
        if st.d_owner[tid] == seat:
            counts[DATA.discoveries[tid].mask] += 1
    return set_sizes(counts)


def set_sizes(counts: list[int]) -> list[int]:
    """Sizes of the mask sets made from ``counts`` (masks held per kind): greedy layers of
    different masks, largest first. Pure, so the bot evaluator can use it on public counts."""
    sets: list[int] = []
    layer = 0
    while True:
        size = sum(1 for c in counts if c > layer)
        if not size:
            return sets
        sets.append(size)
        layer += 1


MASK_IDS = tuple(t.id for t in DATA.discoveries.values() if t.mask)


def mask_score(st: TeoCore, seat: int) -> int:
    """VP for all of ``seat``'s mask sets."""
    return sum(DATA.mask_set_vp[size] for size in mask_sets(st, seat))


# ---- power-ups and Ascension --------------------------------------------------------------------
def _power_options(st: TeoCore, frame: Frame) -> list[Payload]:
    seat, board, optional = frame[1], frame[2], frame[3]
    seen = set()
    opts: list[Payload] = []
    wp, wb = st.wp, st.wb
    for w in st.unlocked_workers(seat, board):
        key = (wb[w], wp[w])
        if key not in seen:
            seen.add(key)
            opts.append(("w", w))
    if optional and opts:
        opts.append(("skip",))
    return opts


def _power_describe(st: TeoCore, frame: Frame, opts: list[Payload]) -> tuple[str, list[str]]:
    where = f" on {modules.board_name(st, frame[2])}" if frame[2] else ""
    labels = []
    for p in opts:
        if p[0] == "skip":
            labels.append("no further power-up")
        else:
            w = p[1]
            labels.append(
                f"power up worker on {modules.board_name(st, st.wb[w])} ({st.wp[w]} -> {st.wp[w] + 1})"
            )
    return f"Power up one of your workers{where}", labels


def _power_up(st: TeoCore, frame: Frame, payload: Payload) -> None:
    if payload[0] == "skip":
        return
    power_up(st, frame[1], payload[1])


def power_up(st: TeoCore, seat: int, w: int) -> None:
    """Raise worker ``w`` by one; at 6 it Ascends."""
    st.wp[w] += 1
    if st.wp[w] >= 6:
        push(st, ("ascend", seat, w))


def _ascend(st: TeoCore, frame: Frame) -> None:
    seat, w = frame[1], frame[2]
    st.wb[w] = 1  # reborn at power 1 in the Palace's general area
    st.wp[w] = 1
    st.note(seat, "a worker Ascends (Avenue +1, calendar +1)")
    if st.light < st.dark:
        st.light += 1
    later = modules.fire(st, "ascend", seat, w) if st.mods else ()
    push(st, ("avenue", seat), ("asc-reward", seat), *later)


def workers_in_play(st: TeoCore, seat: int) -> int:
    """How many of ``seat``'s workers are on the boards."""
    return sum(1 for w in range(seat * 4, seat * 4 + 4) if st.wb[w])


def _asc_options(st: TeoCore, frame: Frame) -> list[Payload]:
    seat = frame[1]
    opts = [("vp",), ("cocoa",), ("temple",)]
    if st.cocoa[seat] >= 3:
        opts.append(("temples",))
    if workers_in_play(st, seat) == 3:
        opts.append(("worker",))
    return opts


ASC_LABELS = {
    "vp": "score 5 VP",
    "cocoa": "gain 5 cocoa",
    "temple": "advance once on a temple",
    "temples": "pay 3 cocoa to advance twice on temples",
    "worker": "gain your 4th worker (power 3, at the Palace) and 2 cocoa",
    "each-temple": "advance one step on each temple (blue, red, green)",
}


def _asc_describe(st: TeoCore, frame: Frame, opts: list[Payload]) -> tuple[str, list[str]]:
    return "Ascension: choose a reward", [ASC_LABELS[p[0]] for p in opts]


def _asc_reward(st: TeoCore, frame: Frame, payload: Payload) -> None:
    seat = frame[1]
    kind = payload[0]
    if kind == "vp":
        st.add_vp(seat, 5, "ascension")
    elif kind == "cocoa":
        st.cocoa[seat] += 5
    elif kind == "temple":
        push(st, ("any-temple", seat))
    elif kind == "temples":
        st.cocoa[seat] -= 3
        push(st, ("any-temple", seat), ("any-temple", seat))
    elif kind == "each-temple":  # a Teotibot priest tile: one step on each base temple
        push(st, *(("adv", seat, t) for t in range(3)))
    else:
        for w in range(seat * 4, seat * 4 + 4):
            if not st.wb[w]:
                st.wb[w] = 1
                st.wp[w] = 3
                st.ws[w] = -1
                break
        st.cocoa[seat] += 2


# The parts this file adds to a rulebook (rulebook.py), in the order their hooks run.
PARTS: tuple[Part, ...] = (
    Choice("any-res", _any_res_options, _any_res_describe, _any_res),
    Auto("adv", _advance),
    Choice("major", _major_options, _major_describe, _major),
    Choice("any-temple", _any_temple_options, _any_temple_describe, _any_temple),
    Auto("avenue", _avenue),
    Choice("avenue-claim", _avenue_options, _avenue_describe, _avenue_claim),
    Choice("use-tiles", _use_options, _use_describe, _use_tiles),
    Choice("power-up", _power_options, _power_describe, _power_up),
    Auto("ascend", _ascend),
    Choice("asc-reward", _asc_options, _asc_describe, _asc_reward),
)

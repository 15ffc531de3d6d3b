"""What one seat may know, and resampling the rest (setup.py rebuilds a state from an observation).

Hidden from a seat: the order (and so the content) of the face-down stacks (discovery,
decoration, pyramid and Starting tiles), the other seats' dealt Starting tiles with the
discovery tiles dealt on them, their pending Starting-tile picks, and the random generator.
Everything else is public and copied as is.
"""

from __future__ import annotations

from collections.abc import Mapping
from random import Random
from typing import NamedTuple

from engine.draws import shuffle

from .core import LIST_FIELDS, NESTED_FIELDS, SCALAR_FIELDS, TeoCore
from .data import DATA
from .expansion_data import EXP
from .flow import run

HIDDEN = {
    "chance",
    "d_deck",
    "pyr_deck",
    "deco_deck",
    "start_deck",
    "start_dealt",
    "start_disc",
    "start_pick",
    "events",
    # Late Preclassic: the Season stack's order, the priest tiles dealt (and still to deal)
    "season_deck",
    "priest_deck",
    "priest_dealt",
    "priest_pick",
}


class PublicView(Mapping):
    """``observe(st, seat)["public"]`` read from the state in place, without copying anything:
    for evaluators, which may read only what every seat sees. Read only; a hidden field is a
    KeyError, as it is missing from the observation."""

    def __init__(self, st: TeoCore) -> None:
        self._fields = st.__dict__

    def __getitem__(self, name: str):
        if name in HIDDEN or name not in PUBLIC_FIELDS:
            raise KeyError(name)
        return self._fields[name]

    def __iter__(self):
        return (name for name in PUBLIC_FIELDS if name not in HIDDEN)

    def __len__(self) -> int:
        return sum(1 for name in PUBLIC_FIELDS if name not in HIDDEN)


def _visible_start_tiles(st: TeoCore, seat: int) -> set[int]:
    """Starting tiles ``seat`` has seen: its own deal, the draft pool, kept tiles, neutral draws."""
    seen = set(st.start_dealt[seat]) | set(st.draft_pool)
    for tiles in st.kept:
        seen.update(tiles)
    return seen


def observe(st: TeoCore, seat: int) -> dict:
    """The observation of ``seat``: public state, own hidden holdings, sizes of the rest."""
    public = {}
    for name in SCALAR_FIELDS:
        if name not in HIDDEN:
            public[name] = st.__dict__[name]
    for name in LIST_FIELDS:
        if name not in HIDDEN:
            public[name] = list(st.__dict__[name])
    for name in NESTED_FIELDS:
        if name not in HIDDEN:
            public[name] = [list(x) for x in st.__dict__[name]]
    public["stack"] = [list(f) for f in st.stack]
    seen = _visible_start_tiles(st, seat)
    picks = [
        (list(p) if p is not None else None) if s == seat else (p is not None)
        for s, p in enumerate(st.start_pick)
    ]
    return {
        "game": st.game_id,
        "version": st.version,
        "options": dict(st.options),
        "seat": seat,
        "players": st.n,
        "public": public,
        "own_start_tiles": list(st.start_dealt[seat]),
        "start_dealt_count": [len(x) for x in st.start_dealt],
        "start_disc": {str(t): st.start_disc[t] for t in sorted(seen) if st.start_disc[t]},
        "start_pick": picks,
        "own_priests": list(st.priest_dealt[seat]),
        "priest_dealt_count": [len(x) for x in st.priest_dealt],
        "priest_pick": [p if s == seat else bool(p) for s, p in enumerate(st.priest_pick)],
        "hidden_counts": {
            "discovery_stack": len(st.d_deck),
            "decoration_stack": len(st.deco_deck),
            "pyramid_stack": len(st.pyr_deck),
            "starting_stack": len(st.start_deck),
            "season_stack": len(st.season_deck),
            "priest_stack": len(st.priest_deck),
        },
    }


PUBLIC_FIELDS = frozenset(SCALAR_FIELDS + LIST_FIELDS + NESTED_FIELDS) - HIDDEN


def _visible_discoveries(st: TeoCore, seat: int) -> set[int]:
    seen = {t for t in st.d_offer if t}
    for stack in (*st.d_avenue, *st.d_temple):
        seen.update(stack)
    seen.update(t for t in range(1, 55) if st.d_owner[t] != -1)  # owned, or discarded (-2) by the bot
    for frame in st.stack:
        if frame[0] == "start-disc":
            seen.add(frame[2])
    for t in _visible_start_tiles(st, seat):
        if st.start_disc[t]:
            seen.add(st.start_disc[t])
    return seen


class HiddenPools(NamedTuple):
    """What ``resample`` draws the hidden parts from, for one seat's view of one state, before
    any shuffle. It depends on the public part alone, so a search that samples one observation
    many times (``observation_sampler`` in rules/setup.py) finds it once."""

    seen: frozenset[int]  # Starting tiles the seat has seen
    pending: bool  # Starting tiles (or priest tiles) still being chosen
    dpool: tuple[int, ...]  # discovery tiles not visible: the stack (and, pending, the hidden deals')
    pool: tuple[int, ...]  # Starting tiles unseen and not drawn for the neutral workers
    icons: tuple[int, ...]  # those of ``pool`` that carry a discovery tile
    slots: int  # Starting tiles dealt to other seats and not kept
    deco: tuple[int, ...]  # decoration tiles not in sight
    pyr: tuple[int, ...]  # pyramid tiles not in sight
    seasons: tuple[int, ...]  # M3: Season tiles not in sight
    priests: tuple[int, ...] | None  # M1: priest tiles not seen (None: none dealt)


def hidden_pools(st: TeoCore, seat: int) -> HiddenPools:
    """The pools ``resample`` shuffles, read from the public part of ``st`` (see HiddenPools)."""
    n = st.n
    seen = _visible_start_tiles(st, seat)
    neutral_setup = st.neutral_draws[: 2 * DATA.neutral_colours[n]]
    visible = _visible_discoveries(st, seat)
    pool = [t for t in range(1, 19) if t not in seen and t not in neutral_setup]
    placed = {p // 4 for p in st.pyr_pos if p >= 0}
    priests = None
    if st.mods and any(st.priest_dealt):
        # Priest tiles are 1-based indices into EXP.priests; the bot's tile is public (priest[bot]).
        seen_priests = set(st.priest_dealt[seat]) | {st.priest[s] for s in range(n) if s != st.bot}
        priests = tuple(t for t in range(1, len(EXP.priests) + 1) if t not in seen_priests)
    return HiddenPools(
        seen=frozenset(seen),
        # (the priest tiles are chosen after the Starting tiles, before those are resolved)
        pending=any(f[0] == "start-pick" or f[0] == "priest-pick" for f in st.stack),
        dpool=tuple(t for t in DATA.discovery_ids if t not in visible),
        pool=tuple(pool),
        icons=tuple(t for t in pool if DATA.starting_tiles[t][1].get("discovery")),
        slots=sum(
            len(st.start_dealt[s]) - len(kept)
            for s, kept in enumerate(st.kept)
            if s != seat and st.start_dealt[s]
        ),
        deco=tuple(t for t in DATA.deco_tiles if t not in st.deco_offer and t not in st.deco_space),
        pyr=tuple(t for t in DATA.pyramid_tiles if t not in st.pyr_offer and t not in placed),
        seasons=tuple(t for t in EXP.seasons if t not in st.season_used and t != st.season and st.mods),
        priests=priests,
    )


def resample(st: TeoCore, seat: int, rng: Random, pools: HiddenPools | None = None) -> None:
    """Replace, in place, everything hidden from ``seat`` by a random consistent sample.
    ``pools``: ``hidden_pools(st, seat)`` found before (on a state with the same public part)."""
    if pools is None:
        pools = hidden_pools(st, seat)
    n = st.n
    seen = pools.seen
    pending = pools.pending
    # Starting tiles: other seats' deals (their kept tiles are public) and the stack. While the
    # Starting tiles are being chosen, the discovery tiles lying on the other seats' hidden tiles
    # are missing from the stack: their number k is known, so exactly k hidden deals carry one.
    dpool = list(pools.dpool)
    shuffle(rng, dpool)
    k = len(dpool) - len(st.d_deck) if pending else 0
    pool = pools.pool
    icons = list(pools.icons)
    shuffle(rng, icons)
    forced, rest = icons[:k], [t for t in pool if t not in icons[:k]]
    if pending:  # other icon tiles cannot be dealt: their discovery tile would be missing too
        rest_icons = [t for t in rest if t in icons]
        rest = [t for t in rest if t not in icons]
    shuffle(rng, rest)
    slots = pools.slots
    deal = forced + rest[: slots - len(forced)]
    shuffle(rng, deal)
    stack = rest[slots - len(forced) :] + (rest_icons if pending else [])
    for t in range(1, 19):
        if t not in seen:
            st.start_disc[t] = 0
    for s in range(n):
        if s == seat or not st.start_dealt[s]:
            continue
        size = len(st.start_dealt[s])
        dealt = sorted(list(st.kept[s]) + [deal.pop() for _ in range(size - len(st.kept[s]))])
        st.start_dealt[s] = dealt
        if st.kept[s]:
            st.start_pick[s] = tuple(dealt.index(t) for t in st.kept[s])
        elif st.start_pick[s] is not None:
            st.start_pick[s] = tuple(sorted(rng.sample(range(4), 2)))
        if pending:
            for t in dealt:
                if t in forced:
                    st.start_disc[t] = dpool.pop()
    shuffle(rng, stack)
    st.start_deck = stack[: len(st.start_deck)]
    assert len(dpool) == len(st.d_deck), "discovery stack size does not match the hidden pool"
    st.d_deck = dpool
    deco = list(pools.deco)
    shuffle(rng, deco)
    st.deco_deck = deco
    pyr = list(pools.pyr)
    shuffle(rng, pyr)
    st.pyr_deck = pyr
    if st.mods:
        _resample_expansion(st, seat, rng, pools)
    st.chance = rng.getrandbits(64)
    st.opts = None
    st.dec = None
    run(st)


def _resample_expansion(st: TeoCore, seat: int, rng: Random, pools: HiddenPools) -> None:
    """The Late Preclassic hidden parts: the Season stack, other seats' priest tiles."""
    seasons = list(pools.seasons)
    shuffle(rng, seasons)
    st.season_deck = seasons[: len(st.season_deck)]
    if pools.priests is None:
        return
    pool = list(pools.priests)
    shuffle(rng, pool)
    for s in range(st.n):
        if s == seat or s == st.bot or not st.priest_dealt[s]:
            continue
        kept = [st.priest[s]] if st.priest[s] else []
        dealt = kept + [pool.pop() for _ in range(len(st.priest_dealt[s]) - len(kept))]
        st.priest_dealt[s] = sorted(dealt)
        if st.priest_pick[s]:
            st.priest_pick[s] = st.priest[s] or rng.choice(dealt)
    st.priest_deck = pool[: len(st.priest_deck)]

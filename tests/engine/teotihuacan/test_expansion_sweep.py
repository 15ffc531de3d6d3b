"""Seeded random games over every combination of the Late Preclassic modules built (all 32
once the five are in), at 2-4 players and solo: invariants, the end, replay bit for bit,
observation round trips."""

from __future__ import annotations

from itertools import combinations
from random import Random

import msgpack
import pytest

from engine.playout import option_counter, play_random
from engine.teotihuacan import GAME, modules
from engine.teotihuacan.data import DATA
from engine.teotihuacan.expansion_data import EXP, NOBLES_SLOT, NOBLES_SPACE, ORANGE
from tests.engine.teotihuacan.test_sweep import check_invariants

COUNT = option_counter(GAME)  # the engine's own option count: the same games, faster

BUILT = [m for m in modules.MODULES if m in modules.IMPLEMENTED]
COMBOS = [",".join(c) for r in range(1, len(BUILT) + 1) for c in combinations(BUILT, r)]
PLAYERS = [1, 2, 3, 4]
# The optional rules ride along on alternate seeds.
EXTRAS = [
    {},
    {"expert_pyramid": True},
    {"expert_setup": True},
    {"expert_pyramid": True, "dark_eclipse": True},
]


def options(combo: str, players: int, seed: int) -> dict:
    opts = {"modules": combo, **EXTRAS[seed % len(EXTRAS)]}
    if players == 1:
        opts["automaton"] = "teotibot"
    return opts


def check_expansion_invariants(st) -> None:
    """The base invariants plus the modules': Season tiles, tile offers and stacks."""
    check_invariants(st)
    if modules.active(st, "priests"):
        check_priests(st)
    if modules.active(st, "height"):
        check_height(st)
    if modules.active(st, "seasons"):
        assert sorted([st.season, *st.season_deck, *st.season_used]) == sorted(EXP.seasons)
        assert len(st.season_used) == st.eclipses - (1 if st.over else 0)  # none after the last
    deco_placed = [t for t in st.deco_space if t]
    deco_offer = [t for t in st.deco_offer if t]
    assert sorted(deco_placed + deco_offer + st.deco_deck) == sorted(DATA.deco_tiles)
    pyr_placed = [p // 4 for p in st.pyr_pos if p >= 0]
    pyr_offer = [t for t in st.pyr_offer if t]
    assert sorted(pyr_placed + pyr_offer + st.pyr_deck) == sorted(DATA.pyramid_tiles)
    for w in range(16):
        if st.ws[w] >= 0:
            assert st.space_occ[st.ws[w]] == w
    # the hooks found for each seat follow every change they depend on (modules.refresh)
    found = (st.adjusters, st.listeners, st.watchers)
    modules.refresh(st)
    assert (st.adjusters, st.listeners, st.watchers) == found


def check_priests(st) -> None:
    """Hands of 2 distinct tiles; a kept tile is from its hand; Teotibot holds one of its 6."""
    agents = st.agent_seats()
    dealt = [k for s in agents for k in st.priest_dealt[s]]
    assert sorted(dealt + st.priest_deck) == sorted(set(dealt + st.priest_deck))
    assert set(dealt + st.priest_deck) <= set(range(1, len(EXP.priests) + 1))
    revealed = "priest-pick" not in [f[0] for f in st.stack] and any(st.priest[s] for s in agents)
    for s in agents:
        assert len(st.priest_dealt[s]) == 2
        if revealed:
            assert st.priest[s] in st.priest_dealt[s] and st.priest[s] == st.priest_pick[s]
        else:
            assert st.priest[s] == 0
    if st.bot >= 0:
        assert 1 <= st.priest[st.bot] <= len(EXP.bot_priests)


LEVEL_STEP = {level: pos for pos, level in EXP.orange_levels.items()}


def check_height(st) -> None:
    """The orange temple (top step held by one seat at most), worshippers, ability levels."""
    assert st.nt == 4 and len(st.space_occ) == NOBLES_SPACE + 1 and len(st.d_offer) == NOBLES_SLOT + 1
    orange = [st.temple[s * st.nt + ORANGE] for s in range(st.n)]
    assert all(0 <= o <= EXP.orange_top for o in orange) and orange.count(EXP.orange_top) <= 1
    for s in range(st.n):
        held = [a for i, a in enumerate(EXP.abilities) if st.ability[s] >> i & 1]
        if s == st.bot:  # never advances on orange; one marker per Eclipse begun
            assert orange[s] == EXP.orange_bonus
            marked = {EXP.teotibot_markers[e] for e in range(1, min(st.eclipses, 2) + 2)}
            assert {a.id for a in held} <= marked and len(held) >= st.eclipses
            continue
        choosing = {f[2] for f in st.stack if f[0] == "ability" and f[1] == s}
        for level, pos in LEVEL_STEP.items():
            count = sum(1 for a in held if a.level == level)
            assert count <= 1  # never the same level twice, so never a lower one after a higher
            if level not in choosing:
                assert count == (orange[s] >= pos), (s, level, orange[s], held)


def play(st, rng: Random, observe_every: int = 0) -> None:
    step = 0
    while st.to_act():
        seat = st.to_act()[0]
        if observe_every and (step % observe_every == 0 or st.stack[-1][0] in st.rules.simultaneous):
            check_round_trip(st, step)
        st.apply(seat, rng.randrange(len(st.decision(seat).options)))
        step += 1
        if step % 7 == 0:
            check_expansion_invariants(st)


def check_round_trip(st, step: int) -> None:
    for viewer in st.agent_seats():
        obs = st.observation(viewer)
        assert msgpack.unpackb(msgpack.packb(obs)) == obs
        assert st.determinize(viewer, Random(step)).observation(viewer) == obs
        rebuilt = GAME.from_observation(obs, Random(step + 1))
        assert rebuilt.observation(viewer) == obs
        if st.stack[-1][0] not in st.rules.simultaneous:
            seat = st.to_act()[0]
            assert rebuilt.decision(seat) == st.decision(seat)
        elif viewer in st.to_act():  # a hidden simultaneous choice: only one's own is known
            assert rebuilt.decision(viewer) == st.decision(viewer)


def seeds(combo: str) -> list[int]:
    """Two seeds for each single module and for all five, one for the mixes (rotating the
    optional rules), to keep the suite's time modest."""
    if "," not in combo or combo == COMBOS[-1]:
        return [0, 1]
    return [COMBOS.index(combo) % len(EXTRAS)]


def test_every_combination_of_the_five_modules_is_swept():
    assert BUILT == list(modules.MODULES) and len(COMBOS) == 31  # with the base game: 32


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("combo", COMBOS)
def test_random_games_over_module_combinations(combo, players):
    for seed in seeds(combo):
        st = GAME.setup(players, seed, options(combo, players, seed))
        assert st.options["modules"] == combo
        play(st, Random(seed), observe_every=40 if seed == seeds(combo)[0] else 0)
        check_expansion_invariants(st)
        assert st.terminal() and st.eclipses in (1, 2, 3)
        assert sorted(st.result().ranks) == list(range(1, st.n + 1)) or st.bot >= 0
        # the replay chooses by option_count (the search bots' fast path, no Decision built) and
        # checks nothing on the way (equal events and result: the same game, already checked)
        replayed = play_random(
            GAME.setup(players, seed, options(combo, players, seed)), Random(seed), count=COUNT
        )
        assert replayed.events == st.events and replayed.result() == st.result()
        assert replayed.observation(0) == st.observation(0)


def test_all_means_every_module_built():
    assert GAME.check_options(2, {"modules": "all"})["modules"] == ",".join(BUILT)
    assert GAME.check_options(2, {"modules": " , ".join(reversed(BUILT)).upper()})["modules"] == ",".join(
        BUILT
    )

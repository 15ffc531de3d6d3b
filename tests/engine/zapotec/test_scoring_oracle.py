"""End scoring recomputed from the rule book, independently of scoring.py, on finished random
games (rich in Pyramids, Rituals and Sacrifices), multiplayer and solo."""

from __future__ import annotations

from random import Random

import pytest

from engine.zapotec import GAME
from engine.zapotec.data import load
from tests.engine.zapotec.util import eager_choice, enrich

D = load()
CJ = 1


def _buildings(state, seat) -> list[tuple[int, int, int]]:
    """(type, region, terrain) per building; the Palace is listed twice (rule book note)."""
    out = []
    for index in state.houses[seat]:
        space = D.spaces[index]
        out += [space.props] * (2 if index == state.palace[seat] else 1)
    return out


def _sets(buildings, same: int, different: int) -> int:
    """Form sets one at a time while three buildings share `same` and differ in `different`."""
    pool = list(buildings)
    count = 0
    progress = True
    while progress:
        progress = False
        for value in {b[same] for b in pool}:
            group = [b for b in pool if b[same] == value]
            pick = {}
            for b in group:
                pick.setdefault(b[different], b)
            if len(pick) == 3:
                for b in pick.values():
                    pool.remove(b)
                count += 1
                progress = True
                break
    return count


def _ritual(state, seat, card) -> int:
    category = {"type": 0, "region": 1, "terrain": 2}
    if card.kind == "building_sets":
        names = [k for k, v in category.items() if v == card.same] + [
            k for k, v in category.items() if v == card.different
        ]
        assert card.text.startswith("6 VP per set of 3 buildings with same " + names[0])
        return min(18, 6 * _sets(_buildings(state, seat), card.same, card.different))
    if card.kind == "pyramid_levels":
        return min(12, 3 * sum(1 for stack in state.pyr_pieces for p in stack if p // 3 == seat))
    if card.kind == "leftover_resources":
        return min(12, sum(state.res[seat][:3]) + 2 * sum(state.res[seat][3:]))
    if card.kind == "sacrifice_steps":
        return min(12, state.sac[seat])
    return min(12, sum(D.trade_tiles[t].level for t in state.tiles_owned[seat]))


def _matching(state, seat, prop) -> int:
    return sum(1 for b in _buildings(state, seat) if prop in b)


def _expected_end(state, before: list[int]) -> list[dict]:
    seats = range(state.seats)
    out = [{"sacrifice_track": 0, "rituals": 0, "pyramids": 0} for _ in seats]
    movers = [s for s in seats if state.sac[s] > 0]
    movers.sort(key=lambda s: (-state.sac[s], state.sac_order[s]))
    for place, seat in enumerate(movers[:3]):
        out[seat]["sacrifice_track"] = (9, 6, 3)[place]
    if state.solo and state.sac[CJ] == 0:
        out[CJ]["sacrifice_track"] = 3
    for slot, discs in enumerate(state.ritual_discs):
        card = D.rituals[state.ritual_cards[slot]]
        for seat in discs:
            if state.solo and seat == CJ:
                out[seat]["rituals"] += 10 if discs == [CJ] else 6
            else:
                out[seat]["rituals"] += _ritual(state, seat, card)
    for prop, stack in zip(state.pyr_tile, state.pyr_pieces, strict=True):
        complete = stack[-1] % 3 == 2
        for piece in stack:
            seat = piece // 3
            houses = _matching(state, seat, prop)
            if state.solo and seat == CJ:
                out[seat]["pyramids"] += 5 + (houses if complete else 0)
            else:
                out[seat]["pyramids"] += houses + (5 if complete else 0)
    if state.solo:
        out[CJ]["trade_tiles"] = sum(3 * D.trade_tiles[t].level for t in state.tiles_owned[CJ])
    for seat in seats:
        out[seat]["total"] = before[seat] + sum(out[seat].values())
    return out


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_end_scoring_matches_the_rule_book(players):
    scored = {"sacrifice_track": 0, "rituals": 0, "pyramids": 0}
    for seed in range(40):
        state = GAME.setup(players, 900 + seed, {})
        rng = Random(seed)
        while state.to_act():
            seat = state.to_act()[0]
            enrich(state, seat, rng)
            state.apply(seat, eager_choice(state, seat, rng, 0.85))
        assert state.terminal()
        before = [d["during_game"] for d in state.final]
        expected = _expected_end(state, before)
        got = [{k: v for k, v in d.items() if k != "during_game"} for d in state.final]
        assert got == expected
        assert list(state.score) == [e["total"] for e in expected]
        for key in scored:
            scored[key] += sum(1 for e in expected if e[key])
    assert min(scored.values()) >= 20, scored  # every category was really exercised

"""Cocijobot's construction recomputed from the solo rules, independently of cocijobot.py, on
positions from random solo games: which Houses, where the Palace goes, the difficulty VP."""

from __future__ import annotations

from random import Random

import pytest

from engine.zapotec import GAME, cocijobot
from engine.zapotec.data import CATEGORY_OF_PROP, load
from tests.engine.zapotec.util import eager_choice, enrich

D = load()
CJ, YOU = 1, 0


def _space(icons: dict[int, int]) -> int:
    """The one 2-player space with these three icons (category -> property)."""
    return next(
        s.index for s in D.spaces if s.min_players == 2 and all(s.props[c] == p for c, p in icons.items())
    )


def _expected(state, card) -> tuple[list[int], int, list[int]]:
    """Spaces built, Palace space (-1), VP (you, Cocijobot) from the difficulty adjustment."""
    icons = {0: card.type, 1: card.region, 2: card.terrain}
    bonus = D.action_cards[state.bonus[-1]].prop
    mine = [i for i, stack in enumerate(state.pyr_pieces) if any(p // 3 == CJ for p in stack)]
    targets = [_space(icons), _space({**icons, CATEGORY_OF_PROP[bonus]: bonus})]
    pyramid_prop = state.pyr_tile[mine[0]] if mine else -1
    if mine:  # a third House once it has a Pyramid level
        targets.append(_space({**icons, CATEGORY_OF_PROP[pyramid_prop]: pyramid_prop}))
    built, failed, blocked_by_you = [], 0, set()
    houses = state.houses_left[CJ]
    for target in targets:
        if state.space_tile[target] >= 0 and target not in built and len(built) < houses:
            built.append(target)
        else:
            failed += 1
            # easier: "fails to build ... because your House is already there": not for want of
            # a House; a space tried twice is one blocked space
            if len(built) < houses and state.space_owner[target] == YOU:
                blocked_by_you.add(target)

    def has(space: int, prop: int) -> bool:
        return prop >= 0 and D.spaces[space].props[CATEGORY_OF_PROP[prop]] == prop

    palace = -1
    if state.palace[CJ] < 0:
        both = [s for s in built if has(s, pyramid_prop) and has(s, bonus)]
        last = state.round == 5 or len(built) == houses
        if both:
            palace = both[0]
        elif last:
            palace = next((s for s in built if has(s, pyramid_prop)), -1)
            if palace < 0:
                palace = next((s for s in built if has(s, bonus)), -1)
    vp = [0, 0]
    if state.difficulty == "easier":
        vp[YOU] = 2 * len(blocked_by_you)
    elif state.difficulty == "harder":
        vp[CJ] = 2 * failed
    return built, palace, vp


@pytest.mark.parametrize("difficulty", ["normal", "easier", "harder"])
def test_cocijobot_construction_matches_the_solo_rules(difficulty):
    compared = palaces = 0
    for seed in range(30):
        state = GAME.setup(1, 700 + seed, {"difficulty": difficulty})
        rng = Random(seed)
        while state.to_act():
            if state.step == "pick":
                for card_index in rng.sample(state.cj_deck, 3):
                    probe = state.clone()
                    card = D.cocijobot_deck[card_index]
                    built, palace, vp = _expected(probe, card)
                    before = list(probe.score)
                    assert cocijobot.build_houses(probe, card) == len(built)
                    assert probe.houses[CJ][len(probe.houses[CJ]) - len(built) :] == built
                    assert probe.palace[CJ] == (palace if palace >= 0 else state.palace[CJ])
                    assert [probe.score[s] - before[s] for s in (0, 1)] == vp
                    compared += 1
                    palaces += palace >= 0
            seat = state.to_act()[0]
            enrich(state, seat, rng)
            state.apply(seat, eager_choice(state, seat, rng, 0.85))
    assert compared > 300 and palaces > 10


def _trade_expected(state) -> int:
    """The tile Cocijobot's Trade takes (-1 for none): its row by Villages / Sacrifice step,
    the leftmost tile there, else the next best row that has one."""
    villages = sum(1 for t in state.cj_tiles if t == 2)
    step = state.sac[CJ]
    row = 3 if villages >= 4 or step >= 6 else 2 if villages >= 3 or step >= 3 else 1
    for level in {3: (3, 2, 1), 2: (2, 1, 3), 1: (1, 2, 3)}[row]:
        shown = [t for t in state.display[level - 1] if t >= 0]
        if shown:
            return shown[0]
    return -1


def _sacrifice_expected(state) -> tuple[int, int]:
    """(new step, VP gained): one step per Cornfield tile, VP of every step passed."""
    start = state.sac[CJ]
    end = min(start + sum(1 for t in state.cj_tiles if t == 0), D.sacrifice_top)
    return end, sum(D.sacrifice_vp[s] for s in range(start + 1, end + 1))


def test_cocijobot_trade_and_sacrifice_match_the_solo_rules():
    compared = 0
    for seed in range(30):
        state = GAME.setup(1, 800 + seed, {})
        rng = Random(seed)
        while state.to_act():
            if state.step == "pick":
                probe = state.clone()
                probe.cj_tiles += [rng.randrange(3) for _ in range(rng.randrange(6))]
                probe.sac[CJ] = rng.randrange(D.sacrifice_top + 1)
                for level in range(3):  # empty some display slots
                    probe.display[level] = [t if rng.random() < 0.6 else -1 for t in probe.display[level]]
                want = _trade_expected(probe)
                owned = list(probe.tiles_owned[CJ])
                cocijobot.trade(probe)
                assert probe.tiles_owned[CJ] == owned + ([want] if want >= 0 else [])
                step, vp = _sacrifice_expected(probe)
                score = probe.score[CJ]
                cocijobot.sacrifice(probe)
                assert probe.sac[CJ] == step and probe.score[CJ] - score == vp
                compared += 1
            seat = state.to_act()[0]
            enrich(state, seat, rng)
            state.apply(seat, eager_choice(state, seat, rng, 0.85))
    assert compared >= 150

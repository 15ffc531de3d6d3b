"""Cocijobot, the solo automaton (rule book "Solo mode"): it plays seat 1 by its card, with no
resources; its Houses, Palace, Capital actions and the difficulty adjustments."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import rules
from .data import CATEGORY_OF_PROP, PROPERTIES, SIZES, CocijobotCard
from .scoring import COCIJOBOT, add_vp, turn_score

if TYPE_CHECKING:
    from .core import ZapotecCore

HUMAN = 0


def flip(state: ZapotecCore) -> int:
    """Reveal the top Cocijobot card; it becomes the card of this turn."""
    card = state.cj_deck.pop()
    state.cj_flipped.append(card)
    state.cj_card = card
    return card


def _target(card: CocijobotCard, replace: int) -> tuple[int, int, int]:
    """The card's (type, region, terrain) with the icon of ``replace``'s category swapped for it."""
    icons = [card.type, card.region, card.terrain]
    icons[CATEGORY_OF_PROP[replace]] = replace
    return (icons[0], icons[1], icons[2])


def house_targets(state: ZapotecCore, card: CocijobotCard) -> list[int]:
    """The spaces Cocijobot tries this turn, in order: the card's three icons, two icons + the
    bonus card's property, and (once it has a Pyramid level) two icons + its Pyramid's tile."""
    combos = state.data.space_by_combo
    targets = [combos[(card.type, card.region, card.terrain)]]
    targets.append(combos[_target(card, state.data.action_cards[state.bonus[-1]].prop)])
    if state.cj_pyramid >= 0:
        targets.append(combos[_target(card, state.pyr_tile[state.cj_pyramid])])
    return targets


def _choose_palace(state: ZapotecCore, spaces: list[int], last_chance: bool) -> int:
    """The space (among those it builds now) that gets the Palace, or -1."""
    if state.palace[COCIJOBOT] >= 0 or not spaces:
        return -1
    d = state.data
    bonus = d.action_cards[state.bonus[-1]].prop
    pyramid_prop = state.pyr_tile[state.cj_pyramid] if state.cj_pyramid >= 0 else -1
    for space in spaces:
        props = d.spaces[space].props
        if pyramid_prop >= 0 and rules.matches(props, pyramid_prop) and rules.matches(props, bonus):
            return space
    if last_chance:
        for wanted in (pyramid_prop, bonus):
            for space in spaces:
                if wanted >= 0 and rules.matches(d.spaces[space].props, wanted):
                    return space
    return -1


def build_houses(state: ZapotecCore, card: CocijobotCard) -> int:
    """Construction: place the Houses it can; returns how many; applies the difficulty option."""
    d = state.data
    targets = house_targets(state, card)
    plan: list[int] = []
    failures = 0
    blocked_by_human: set[int] = set()
    left = state.houses_left[COCIJOBOT]
    for space in targets:
        if len(plan) < left and state.space_tile[space] >= 0 and space not in plan:
            plan.append(space)
            continue
        failures += 1
        # easier: only a failure "because your House is already there" pays, once per space;
        # with no House left, that is why it fails
        if len(plan) < left and state.space_owner[space] == HUMAN:
            blocked_by_human.add(space)
    failures_by_human = len(blocked_by_human)
    last_chance = state.round >= d.rounds or left <= len(plan)
    palace = _choose_palace(state, plan, last_chance)
    for space in plan:
        tile = rules.place_house(state, COCIJOBOT, space, palace=space == palace)
        state.cj_tiles.append(d.building_tiles[tile].type)
        what = "its Palace" if space == palace else "a House"
        state.event(
            f"Cocijobot builds {what} on {rules.space_name(state, space)}", kind="build", seat=COCIJOBOT
        )
    vp = d.cocijobot["difficulty_vp_per_failed_build"]
    if state.difficulty == "easier" and failures_by_human:
        add_vp(state, HUMAN, vp * failures_by_human, "difficulty")
        state.event(f"Easier game: you gain {vp * failures_by_human} VP", kind="difficulty", seat=HUMAN)
    elif state.difficulty == "harder" and failures:
        add_vp(state, COCIJOBOT, vp * failures, "difficulty")
        state.event(f"Harder game: Cocijobot gains {vp * failures} VP", kind="difficulty", seat=COCIJOBOT)
    return len(plan)


def play_turn(state: ZapotecCore) -> None:
    """Cocijobot's whole turn: construction, its Capital action(s), turn scoring."""
    d = state.data
    card = d.cocijobot_deck[state.cj_card]
    built = build_houses(state, card)
    actions = [card.action]
    if built == 0 and state.cj_deck:
        extra = d.cocijobot_deck[flip(state)]
        state.cj_card = card.index  # the extra card only lends its Capital action
        actions.append(extra.action)
        state.event(
            f"Cocijobot built nothing and flips another card ({extra.action})", kind="flip", seat=COCIJOBOT
        )
    for action in actions:
        _ACTIONS[action](state)
    gained = turn_score(state, COCIJOBOT, d.action_cards[state.bonus[-1]].prop)
    state.event(
        f"Cocijobot scores {gained} VP for the bonus card", kind="turn-score", seat=COCIJOBOT, vp=gained
    )


def sacrifice(state: ZapotecCore) -> None:
    """One step per Cornfield tile it owns; VP, free tiles on 3/6, a Pyramid level on 8,
    Ritual discs on 9 and 11. Free basic resources do nothing for it."""
    d = state.data
    cj = d.cocijobot
    steps = state.cj_tiles.count(0) * cj["sacrifice_steps_per_cornfield_tile"]
    reached = rules.advance_sacrifice(state, COCIJOBOT, steps)
    state.event(f"Cocijobot sacrifices: step {state.sac[COCIJOBOT]}", kind="sacrifice", seat=COCIJOBOT)
    free_tiles = {entry["step"]: entry["level"] for entry in cj["free_trade_tile_on_steps"]}
    for step in reached:
        add_vp(state, COCIJOBOT, d.sacrifice_vp[step], "sacrifice_steps")
        if step in free_tiles:
            _take_leftmost(state, [free_tiles[step]])
        if step == cj["pyramid_level_on_step"]:
            pyramid_level(state)
        if step in cj["ritual_disc_on_steps"]:
            ritual_disc(state)


def _take_leftmost(state: ZapotecCore, levels: list[int]) -> bool:
    """Take the leftmost tile of the first level in ``levels`` that has one."""
    for level in levels:
        for slot, tile in enumerate(state.display[level - 1]):
            if tile >= 0:
                taken = rules.take_trade_tile(state, COCIJOBOT, level, slot)
                state.event(
                    f"Cocijobot takes trade tile {taken.id}", kind="trade", seat=COCIJOBOT, tile=taken.id
                )
                return True
    return False


def trade_row(state: ZapotecCore) -> int:
    """The row it wants: 3 with four Villages or Sacrifice step 6, 2 with three or step 3, else 1."""
    cj = state.data.cocijobot
    villages = state.cj_tiles.count(2)
    step = state.sac[COCIJOBOT]
    third, second = cj["trade_row_third"], cj["trade_row_second"]
    if villages >= third["villages_at_least"] or step >= third["sacrifice_step_at_least"]:
        return 3
    if villages >= second["villages_at_least"] or step >= second["sacrifice_step_at_least"]:
        return 2
    return 1


_FALLBACK = {3: [3, 2, 1], 2: [2, 1, 3], 1: [1, 2, 3]}


def trade(state: ZapotecCore) -> None:
    """Take the leftmost tile of its row, or of the next best row that still has one."""
    _take_leftmost(state, _FALLBACK[trade_row(state)])


def _tile_key(state: ZapotecCore, prop: int, order: int) -> tuple[int, int, int]:
    # Most of its own Houses, then fewest of yours, then the topmost tile.
    return (-rules.house_count(state, COCIJOBOT, prop), rules.house_count(state, HUMAN, prop), order)


def pyramid_level(state: ZapotecCore) -> None:
    """Start its Pyramid, or add to it; a Ritual disc instead once it is complete."""
    pyramid = state.cj_pyramid
    if pyramid < 0:
        if state.scoring_avail and len(state.pyr_tile) < state.data.pyramid_spaces:
            prop = min(state.scoring_avail, key=lambda p: _tile_key(state, p, state.scoring_avail.index(p)))
            state.cj_pyramid = rules.start_pyramid(state, COCIJOBOT, prop)
            state.event(f"Cocijobot starts a pyramid ({PROPERTIES[prop]})", kind="pyramid", seat=COCIJOBOT)
            return
        open_ones = [p for p in range(len(state.pyr_tile)) if not rules.pyramid_complete(state, p)]
        if not open_ones:
            ritual_disc(state)
            return
        pyramid = min(open_ones, key=lambda p: _tile_key(state, state.pyr_tile[p], p))
        state.cj_pyramid = pyramid
    if rules.pyramid_complete(state, pyramid):
        ritual_disc(state)
        return
    size = rules.pyramid_top(state, pyramid) + 1
    if not state.pieces[COCIJOBOT][size]:
        ritual_disc(state)
        return
    rules.add_piece(state, COCIJOBOT, pyramid, size)
    state.event(
        f"Cocijobot adds a {SIZES[size]} piece to pyramid {pyramid + 1} ({PROPERTIES[state.pyr_tile[pyramid]]})",
        kind="pyramid",
        seat=COCIJOBOT,
    )


def ritual_disc(state: ZapotecCore) -> None:
    """A disc on the leftmost Ritual card without one of its discs (nothing if there is none)."""
    free = rules.free_ritual_cards(state, COCIJOBOT)
    if free:
        rules.place_disc(state, COCIJOBOT, free[0])
        card = state.data.rituals[state.ritual_cards[free[0]]]
        state.event(f"Cocijobot places a Ritual disc on {card.id}", kind="ritual", seat=COCIJOBOT)


_ACTIONS = {"sacrifice": sacrifice, "trade": trade, "pyramid": pyramid_level}

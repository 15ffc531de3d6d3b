"""Helpers for Zapotec scenario tests: set up a position, then drive it by option fields."""

from __future__ import annotations

from random import Random

from engine.zapotec import GAME
from engine.zapotec.data import PROP, RESOURCES, load
from engine.zapotec.state import ZapotecState

DATA = load()


def card(resource: str, prop: str) -> int:
    """The number of the Action card with this income resource and property."""
    for number, c in DATA.action_cards.items():
        if RESOURCES[c.resource] == resource and c.prop == PROP[prop]:
            return number
    raise KeyError((resource, prop))


def space(space_id: str) -> int:
    """Index of a board space by id, e.g. 'mitla-forest-temple'."""
    return next(s.index for s in DATA.spaces if s.id == space_id)


def set_res(state: ZapotecState, seat: int, **amounts: int) -> None:
    """Give ``seat`` exactly these resources (others 0)."""
    state.res[seat] = [amounts.get(name, 0) for name in RESOURCES]


def begin_turn(state: ZapotecState, number: int, seat: int = 0) -> None:
    """Every agent seat picks; ``seat`` plays card ``number``, the others higher cards, so
    ``seat`` plays first (in solo Cocijobot may still go first)."""
    taken = {number}
    for s in range(state.players):
        if s == seat:
            pick = number
        else:
            pick = max(c for c in range(1, 28) if c not in taken)
        taken.add(pick)
        if pick not in state.hands[s]:
            state.hands[s].append(pick)
        choose(state, s, card=pick)


def options(state: ZapotecState, seat: int | None = None) -> tuple[dict, ...]:
    """Options of the current decision of ``seat`` (default: the only seat to act)."""
    if seat is None:
        seat = state.to_act()[0]
    state._cache = None  # scenario tests edit fields directly; recompute the decision
    return state.decision(seat).options


def find(state: ZapotecState, seat: int | None = None, **fields) -> int | None:
    """Index of the first option whose fields include ``fields``, or None."""
    for i, option in enumerate(options(state, seat)):
        if all(option.get(k) == v for k, v in fields.items()):
            return i
    return None


def choose(state: ZapotecState, seat: int | None = None, **fields) -> dict:
    """Apply the first option matching ``fields`` (fails the test when there is none)."""
    if seat is None:
        seat = state.to_act()[0]
    index = find(state, seat, **fields)
    assert index is not None, f"no option {fields} in {[o['label'] for o in options(state, seat)]}"
    option = options(state, seat)[index]
    state.apply(seat, index)  # options() just refreshed the cached decision
    return option


def new(players: int = 2, seed: int = 0, **opts) -> ZapotecState:
    """A fresh game."""
    return GAME.setup(players, seed, opts)


def enrich(state: ZapotecState, seat: int, rng: Random) -> None:
    """Random positions deeper than random play reaches: a gift of resources at income time."""
    if state.step == "income" and rng.random() < 0.6:
        for i in range(6):
            state.res[seat][i] += rng.randrange(4)
        state._cache = None


def eager_choice(state: ZapotecState, seat: int, rng: Random, busy_share: float = 0.9) -> int:
    """Random, but "done" only rarely while anything else is possible: deep games."""
    options = state.decision(seat).options
    busy = [i for i, o in enumerate(options) if o.get("action") != "done"]
    if busy and rng.random() < busy_share:
        return rng.choice(busy)
    return rng.randrange(len(options))

"""The decisions of an agent seat and their effects: card pick, income, Capital actions,
construction, turn scoring and the draw step. Every option built here is legal; ``apply``
trusts the option it is given (it came from ``decision``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.api import Decision

from . import flow, rules, scoring
from .data import BASIC, PROPERTIES, RESOURCES, SIZES, TradeTile, describe_cost

if TYPE_CHECKING:
    from .core import ZapotecCore

_ROW_COL = ("row", "column")


def palace_label(state: ZapotecCore) -> str:
    """The Palace option's text, with its cost from the data."""
    return f"your Palace for {describe_cost(state.data.palace_cost)} (counts as 2 Houses)"


def card_text(state: ZapotecCore, number: int) -> str:
    """'7 (wood income, build: plains)' for an Action card."""
    card = state.data.action_cards[number]
    return f"{number} ({RESOURCES[card.resource]} income, build: {PROPERTIES[card.prop]})"


def cell_text(state: ZapotecCore, cell: int) -> str:
    """'brick row / wood column' for a grid cell."""
    d = state.data
    return f"{RESOURCES[d.grid_rows[cell // 3]]} row / {RESOURCES[d.grid_columns[cell % 3]]} column"


# ---------------------------------------------------------------- decisions
def decision(state: ZapotecCore, seat: int) -> Decision:
    """The decision for ``seat`` (which is in ``to_act()``)."""
    step = state.step
    if step == "pick":
        return _pick_decision(state, seat)
    if state.pending:
        return _pending_decision(state, seat)
    return _DECISIONS[step](state, seat)


def _pick_decision(state: ZapotecCore, seat: int) -> Decision:
    options = tuple({"label": f"Play card {card_text(state, c)}", "card": c} for c in state.hands[seat])
    bonus = card_text(state, state.bonus[-1])
    return Decision(
        "choose-card",
        f"Round {state.round}: choose your Action card in secret (bonus card {bonus})",
        options,
    )


def _income_decision(state: ZapotecCore, seat: int) -> Decision:
    resource = state.data.action_cards[state.picks[seat]].resource
    options = []
    for line in _ROW_COL:
        got = rules.income(state, seat, resource, line)
        options.append(
            {
                "label": f"Income from the {RESOURCES[resource]} {line}: {describe_cost(got)}",
                "action": "income",
                "line": line,
            }
        )
    return Decision("income", f"Collect income: the {RESOURCES[resource]} row or column", tuple(options))


def _convert_options(state: ZapotecCore, seat: int) -> list[dict]:
    options = []
    res = state.res[seat]
    for tile in rules.owned(state, seat, "convert"):
        if rules.tile_ready(state, seat, tile) and rules.can_pay(res, tile.pay):
            options.append(
                {
                    "label": f"Use {tile.id}: pay {describe_cost(tile.pay)}, gain {describe_cost(tile.gain)}",
                    "action": "use",
                    "tile": tile.id,
                }
            )
    return options


def _ritual_cost(state: ZapotecCore, seat: int, slot: int) -> list[int]:
    d = state.data
    cost = [0] * 6
    if state.sac[seat] < d.no_priest_ritual_step:
        cost[5] = d.ritual_priest_cost
    cost[4] = d.ritual_gold_per_disc * len(state.ritual_discs[slot])
    return cost


def ritual_limit(state: ZapotecCore, seat: int) -> int:
    """How many Ritual cards ``seat`` may have a disc on: Pyramid pieces built, at most three
    (the step-11 disc does not count; a Z36 disc does, see ``rules.FREE_DISCS``)."""
    return min(state.built_pieces[seat], state.data.ritual_max)


def z34_possible(state: ZapotecCore, seat: int, tile: TradeTile) -> bool:
    """Whether Z34's "pay 2 Corn to advance 4 times" can happen now (Corn held, room to advance)."""
    return rules.can_pay(state.res[seat], tile.pay) and state.sac[seat] < state.data.sacrifice_top


def _capital_decision(state: ZapotecCore, seat: int) -> Decision:
    d = state.data
    res = state.res[seat]
    options: list[dict] = []
    for level in (1, 2, 3):
        if state.bought[seat][level - 1]:
            continue
        price = rules.trade_price(state, seat, level)
        if res[4] < price:
            continue
        for slot, index in enumerate(state.display[level - 1]):
            if index >= 0:  # Z34 and Z36 too: bought even when their effect cannot happen
                tile = d.trade_tiles[index]
                options.append(
                    {
                        "label": f"Trade: buy {tile.id} (level {level}) for {price} gold: {tile.text}",
                        "action": "buy",
                        "tile": tile.id,
                        "level": level,
                        "slot": slot,
                    }
                )
    options.extend(_convert_options(state, seat))
    options.extend(_pyramid_options(state, seat))
    if state.built_pieces[seat] and state.rituals_counted[seat] < ritual_limit(state, seat):
        for slot in rules.free_ritual_cards(state, seat):
            cost = _ritual_cost(state, seat, slot)
            if rules.can_pay(res, cost):
                card = d.rituals[state.ritual_cards[slot]]
                options.append(
                    {
                        "label": f"Ritual: disc on {card.id} ({card.text}) for {describe_cost(cost)}",
                        "action": "ritual",
                        "card": card.id,
                        "slot": slot,
                    }
                )
    if res[5] >= 1 and res[3] >= 1 and state.sac[seat] < d.sacrifice_top:
        low, high = d.corn_per_sacrifice
        for corn in range(low, min(high, res[3], d.sacrifice_top - state.sac[seat]) + 1):
            options.append(
                {
                    "label": f"Sacrifice 1 priest + {corn} corn: up to step {state.sac[seat] + corn}",
                    "action": "sacrifice",
                    "corn": corn,
                }
            )
    options.append({"label": "Done with Capital actions: go on to construction", "action": "done"})
    return Decision(
        "capital-action", "Capital actions: trade, pyramid, ritual, sacrifice, or go on", tuple(options)
    )


def _pyramid_options(state: ZapotecCore, seat: int) -> list[dict]:
    d = state.data
    if not rules.can_pay(state.res[seat], d.pyramid_cost):
        return []
    options: list[dict[str, Any]] = []
    largest = rules.largest_piece(state, seat)
    if largest < 0:
        return options
    cost = describe_cost(d.pyramid_cost)
    if len(state.pyr_tile) < d.pyramid_spaces:
        for prop in state.scoring_avail:
            options.append(
                {
                    "label": f"Pyramid: start one with scoring tile {PROPERTIES[prop]} "
                    f"({SIZES[largest]} piece) for {cost}",
                    "action": "pyramid",
                    "new": PROPERTIES[prop],
                }
            )
    for pyramid in range(len(state.pyr_tile)):
        if rules.pyramid_complete(state, pyramid) or pyramid in state.pyr_this_round[seat]:
            continue
        size = rules.pyramid_top(state, pyramid) + 1
        if state.pieces[seat][size]:
            options.append(
                {
                    "label": f"Pyramid: add a {SIZES[size]} piece to pyramid {pyramid + 1} "
                    f"({PROPERTIES[state.pyr_tile[pyramid]]}) for {cost}",
                    "action": "pyramid",
                    "pyramid": pyramid,
                }
            )
    return options


def _pending_decision(state: ZapotecCore, seat: int) -> Decision:
    item = state.pending[0]
    options: tuple[dict[str, Any], ...]
    if item == "resource":
        options = tuple(
            {"label": f"Take 1 {RESOURCES[r]}", "action": "take", "resource": RESOURCES[r]} for r in BASIC
        )
        return Decision("sacrifice-resource", "Sacrifice track bonus: choose a basic resource", options)
    d = state.data
    options = tuple(
        {
            "label": f"Disc on {d.rituals[state.ritual_cards[slot]].id}: {d.rituals[state.ritual_cards[slot]].text}",
            "action": "free-ritual",
            "slot": slot,
        }
        for slot in rules.free_ritual_cards(state, seat)
    )
    if item == "z36-ritual":
        title = (
            "Z36: choose a Ritual card for your disc (no cost, no requirements; it counts toward your limit)"
        )
    else:
        title = "Free Ritual (Sacrifice step 11): choose a card for your disc (no cost, no limit)"
    return Decision("free-ritual", title, options)


def _house_cost(state: ZapotecCore, seat: int, kind: int) -> tuple[int, ...] | None:
    """What a House of building type ``kind`` costs ``seat``, or None if it cannot build one now."""
    if state.houses_left[seat] <= 0:
        return None
    cost = rules.building_cost(state, seat, kind)
    return cost if rules.can_pay(state.res[seat], cost) else None


def _can_build_palace(state: ZapotecCore, seat: int) -> bool:
    return (
        state.palace[seat] < 0
        and state.houses_left[seat] > 0
        and rules.can_pay(state.res[seat], state.data.palace_cost)
    )


def _build_decision(state: ZapotecCore, seat: int) -> Decision:
    d = state.data
    prop = d.action_cards[state.picks[seat]].prop
    options: list[dict] = []
    palace = palace_label(state) if _can_build_palace(state, seat) else ""
    # What each building type can be built as, worked out once for all spaces.
    what = []
    for kind in range(3):
        parts = []
        if (cost := _house_cost(state, seat, kind)) is not None:
            parts.append(f"House for {describe_cost(cost)}")
        if palace:
            parts.append(palace)
        what.append(" or ".join(parts))
    if any(what):
        tiles = state.space_tile
        for i in d.spaces_with[prop]:
            space = d.spaces[i]
            if tiles[i] >= 0 and what[space.type]:
                options.append(
                    {
                        "label": f"Build on {space.name}: {what[space.type]}",
                        "action": "build",
                        "space": space.id,
                    }
                )
    if state.houses_left[seat] > 0:
        for tile in rules.owned(state, seat, "build_ignoring_card"):
            if (
                rules.tile_ready(state, seat, tile)
                and rules.can_pay(state.res[seat], tile.pay)
                and _tile_spaces(state, tile)
            ):
                options.append({"label": f"Use {tile.id}: {tile.text}", "action": "use", "tile": tile.id})
    options.extend(_convert_options(state, seat))
    options.append({"label": "Done building: score this turn", "action": "done"})
    return Decision(
        "construction", f"Construction: build on {PROPERTIES[prop]} spaces, or finish", tuple(options)
    )


def _tile_spaces(state: ZapotecCore, tile: TradeTile) -> list[int]:
    return [i for i in state.data.spaces_with[tile.prop] if state.space_tile[i] >= 0]


def _build_kind_decision(state: ZapotecCore, seat: int) -> Decision:
    space = state.data.spaces[state.sel_space]
    cost = describe_cost(rules.building_cost(state, seat, space.type))
    options = (
        {"label": f"A House for {cost}", "action": "house"},
        {"label": palace_label(state), "action": "palace"},
    )
    return Decision(
        "house-or-palace", f"Build a House or your Palace on {rules.space_name(state, space.index)}?", options
    )


def _tile_space_decision(state: ZapotecCore, seat: int) -> Decision:
    tile = state.data.trade_tiles[state.sel_trade]
    options = tuple(
        {
            "label": f"House on {rules.space_name(state, i)}",
            "action": "tile-build",
            "space": state.data.spaces[i].id,
        }
        for i in _tile_spaces(state, tile)
    )
    prompt = (
        f"{tile.id}: choose a {PROPERTIES[tile.prop]} space for your House (pays {describe_cost(tile.pay)})"
    )
    return Decision("tile-space", prompt, options)


def _grid_decision(state: ZapotecCore, seat: int) -> Decision:
    d = state.data
    tile = d.building_tiles[state.sel_tile]
    options = []
    for cell in range(9):
        if state.grid[seat][cell] < 0:
            bonus = d.grid_advanced[cell]
            extra = f" (covers {RESOURCES[bonus]}: +1 {RESOURCES[bonus]})" if bonus >= 0 else ""
            options.append(
                {"label": f"Place it at {cell_text(state, cell)}{extra}", "action": "grid", "cell": cell}
            )
    what = f"{PROPERTIES[tile.type]} tile ({RESOURCES[tile.basic]} + {RESOURCES[tile.advanced]})"
    return Decision("grid-space", f"Put the {what} on your resource grid", tuple(options))


def _score_card_decision(state: ZapotecCore, seat: int) -> Decision:
    bonus = state.bonus[-1]
    options = [
        {
            "label": f"Score with the bonus card {card_text(state, bonus)}",
            "action": "score",
            "card": bonus,
            "from_hand": False,
        }
    ]
    for card in state.hands[seat]:
        options.append(
            {
                "label": f"Score with hand card {card_text(state, card)} and discard it",
                "action": "score",
                "card": card,
                "from_hand": True,
            }
        )
    return Decision(
        "scoring-card", "Turn scoring: which card's property do your Houses score against?", tuple(options)
    )


def _draw_decision(state: ZapotecCore, seat: int) -> Decision:
    options = []
    for card in state.offer:
        label = f"Take card {card_text(state, card)}"
        if state.solo:
            other = [c for c in state.offer if c != card]
            label += f"; card {other[0]} becomes the next bonus card" if other else ""
        options.append({"label": label, "action": "draw", "card": card})
    return Decision("draw-card", "Draw step: take one Action card from the Offer", tuple(options))


_DECISIONS = {
    "income": _income_decision,
    "capital": _capital_decision,
    "build": _build_decision,
    "build-kind": _build_kind_decision,
    "tile-space": _tile_space_decision,
    "grid": _grid_decision,
    "score-card": _score_card_decision,
    "draw": _draw_decision,
}


# ---------------------------------------------------------------- effects
def apply(state: ZapotecCore, seat: int, option: dict) -> None:
    """Carry out ``option`` (one of ``decision(state, seat).options``)."""
    if state.step == "pick":
        _apply_pick(state, seat, option["card"])
        return
    _EFFECTS[option["action"]](state, seat, option)
    _drop_impossible_pending(state, seat)


def _drop_impossible_pending(state: ZapotecCore, seat: int) -> None:
    # A free Ritual disc with every card already holding this seat's disc is simply lost.
    while state.pending and state.pending[0] in rules.FREE_DISCS and not rules.free_ritual_cards(state, seat):
        state.pending.pop(0)


def _apply_pick(state: ZapotecCore, seat: int, card: int) -> None:
    state.hands[seat].remove(card)
    state.picks[seat] = card
    state.event(f"Seat {seat} chose a card", kind="pick", seat=seat)
    if all(state.picks[s] >= 0 for s in range(state.players)):
        flow.all_picked(state)


def _do_income(state: ZapotecCore, seat: int, option: dict) -> None:
    resource = state.data.action_cards[state.picks[seat]].resource
    got = rules.income(state, seat, resource, option["line"])
    rules.gain(state.res[seat], got)
    state.event(f"Seat {seat} collects {describe_cost(got)} ({option['line']})", kind="income", seat=seat)
    state.step = "capital"


def _do_buy(state: ZapotecCore, seat: int, option: dict) -> None:
    level = option["level"]
    price = rules.trade_price(state, seat, level)
    state.res[seat][4] -= price
    tile = rules.take_trade_tile(state, seat, level, option["slot"])
    state.bought[seat][level - 1] = 1
    state.event(f"Seat {seat} buys {tile.id} for {price} gold", kind="trade", seat=seat, tile=tile.id)
    if tile.usage == "immediate":  # performed at once if it can be, then flipped for good
        state.tiles_down[seat].append(tile.index)
        if tile.kind == "gain":
            rules.pay(state.res[seat], tile.pay)
            rules.gain(state.res[seat], tile.gain)
        elif tile.kind == "sacrifice":  # Z34
            if z34_possible(state, seat, tile):
                rules.pay(state.res[seat], tile.pay)
                rules.free_sacrifice_bonuses(state, seat, rules.advance_sacrifice(state, seat, tile.steps))
            else:
                state.event(
                    f"Seat {seat} cannot use {tile.id} now: its effect is lost", kind="trade", seat=seat
                )
        elif tile.kind == "free_ritual":  # Z36 (lost at once if every card has this seat's disc)
            state.pending.append("z36-ritual")


def _do_use(state: ZapotecCore, seat: int, option: dict) -> None:
    d = state.data
    tile = d.trade_by_id[option["tile"]]
    if tile.kind == "build_ignoring_card":
        state.sel_trade = tile.index
        state.step = "tile-space"
        return
    rules.pay(state.res[seat], tile.pay)  # a level-2 conversion
    state.tiles_down[seat].append(tile.index)
    state.event(f"Seat {seat} uses {tile.id}: {tile.text}", kind="use-tile", seat=seat, tile=tile.id)
    rules.gain(state.res[seat], tile.gain)


def _do_pyramid(state: ZapotecCore, seat: int, option: dict) -> None:
    rules.pay(state.res[seat], state.data.pyramid_cost)
    if "new" in option:
        pyramid = rules.start_pyramid(state, seat, PROPERTIES.index(option["new"]))
    else:
        pyramid = option["pyramid"]
        rules.add_piece(state, seat, pyramid, rules.pyramid_top(state, pyramid) + 1)
    state.event(
        f"Seat {seat} builds a level of pyramid {pyramid + 1} ({PROPERTIES[state.pyr_tile[pyramid]]})",
        kind="pyramid",
        seat=seat,
    )


def _do_ritual(state: ZapotecCore, seat: int, option: dict) -> None:
    slot = option["slot"]
    rules.pay(state.res[seat], _ritual_cost(state, seat, slot))
    rules.place_disc(state, seat, slot)
    state.rituals_counted[seat] += 1
    state.event(f"Seat {seat} performs a Ritual on {option['card']}", kind="ritual", seat=seat)


def _do_sacrifice(state: ZapotecCore, seat: int, option: dict) -> None:
    corn = option["corn"]
    state.res[seat][5] -= 1
    state.res[seat][3] -= corn
    reached = rules.advance_sacrifice(state, seat, corn)
    rules.free_sacrifice_bonuses(state, seat, reached)
    state.event(f"Seat {seat} sacrifices {corn} corn to step {state.sac[seat]}", kind="sacrifice", seat=seat)


def _do_take(state: ZapotecCore, seat: int, option: dict) -> None:
    state.pending.pop(0)
    state.res[seat][RESOURCES.index(option["resource"])] += 1
    state.event(
        f"Seat {seat} takes 1 {option['resource']} from the Sacrifice track", kind="track-resource", seat=seat
    )


def _do_free_ritual(state: ZapotecCore, seat: int, option: dict) -> None:
    if state.pending.pop(0) == "z36-ritual":
        state.rituals_counted[seat] += 1  # placed ignoring the requirements, counted afterwards
    rules.place_disc(state, seat, option["slot"])
    card = state.data.rituals[state.ritual_cards[option["slot"]]]
    state.event(f"Seat {seat} places a free Ritual disc on {card.id}", kind="ritual", seat=seat)


def _do_done(state: ZapotecCore, seat: int, option: dict) -> None:
    if state.step == "capital":
        state.step = "build"
        return
    if rules.owned(state, seat, "score_with_hand_card") and state.hands[seat]:
        state.step = "score-card"
        return
    _score_and_draw(state, seat, state.bonus[-1])


def _score_and_draw(state: ZapotecCore, seat: int, card: int) -> None:
    gained = scoring.turn_score(state, seat, state.data.action_cards[card].prop)
    state.event(f"Seat {seat} scores {gained} VP with card {card}", kind="turn-score", seat=seat, vp=gained)
    if state.round < state.data.rounds and state.offer:
        state.step = "draw"
    else:
        flow.end_turn(state)


def _do_score(state: ZapotecCore, seat: int, option: dict) -> None:
    card = option["card"]
    if option["from_hand"]:  # Z35: a hand card used for scoring is discarded
        state.hands[seat].remove(card)
        state.discard.append(card)
        if card in state.known_hand[seat]:
            state.known_hand[seat].remove(card)
    _score_and_draw(state, seat, card)


def _do_draw(state: ZapotecCore, seat: int, option: dict) -> None:
    card = option["card"]
    state.offer.remove(card)
    state.hands[seat].append(card)
    state.known_hand[seat].append(card)  # taken face up: every seat knows it is in this hand
    state.hands[seat].sort()
    state.event(f"Seat {seat} takes card {card} from the Offer", kind="draw", seat=seat, card=card)
    flow.end_turn(state)


def _do_build(state: ZapotecCore, seat: int, option: dict) -> None:
    space = _space_index(state, option["space"])
    kind = state.data.spaces[space].type
    cost = _house_cost(state, seat, kind)
    palace_ok = _can_build_palace(state, seat)
    if cost is not None and palace_ok:
        state.sel_space = space
        state.step = "build-kind"
    elif cost is not None:
        _build_house(state, seat, space, cost)
    else:
        _build_palace(state, seat, space)


def _space_index(state: ZapotecCore, space_id: str) -> int:
    return state.data.space_index[space_id]


def _build_house(state: ZapotecCore, seat: int, space: int, cost: tuple[int, ...]) -> None:
    rules.pay(state.res[seat], cost)
    state.sel_tile = rules.place_house(state, seat, space, palace=False)
    state.event(f"Seat {seat} builds a House on {rules.space_name(state, space)}", kind="build", seat=seat)
    state.step = "grid"


def _build_palace(state: ZapotecCore, seat: int, space: int) -> None:
    rules.pay(state.res[seat], state.data.palace_cost)
    rules.place_house(state, seat, space, palace=True)
    state.event(
        f"Seat {seat} builds the Palace on {rules.space_name(state, space)}", kind="palace", seat=seat
    )
    state.step = "build"


def _do_house(state: ZapotecCore, seat: int, option: dict) -> None:
    space = state.sel_space
    state.sel_space = -1
    _build_house(state, seat, space, rules.building_cost(state, seat, state.data.spaces[space].type))


def _do_palace(state: ZapotecCore, seat: int, option: dict) -> None:
    space = state.sel_space
    state.sel_space = -1
    _build_palace(state, seat, space)


def _do_tile_build(state: ZapotecCore, seat: int, option: dict) -> None:
    tile = state.data.trade_tiles[state.sel_trade]
    state.sel_trade = -1
    state.tiles_down[seat].append(tile.index)
    state.event(f"Seat {seat} uses {tile.id}", kind="use-tile", seat=seat, tile=tile.id)
    _build_house(state, seat, _space_index(state, option["space"]), tile.pay)


def _do_grid(state: ZapotecCore, seat: int, option: dict) -> None:
    printed = rules.place_on_grid(state, seat, state.sel_tile, option["cell"])
    kind = PROPERTIES[state.data.building_tiles[state.sel_tile].type]
    gained = f" and gains 1 {RESOURCES[printed]}" if printed >= 0 else ""
    state.event(
        f"Seat {seat} puts the {kind} tile ({cell_text(state, option['cell'])}) on its grid{gained}",
        kind="grid",
        seat=seat,
    )
    state.sel_tile = -1
    state.step = "build"


_EFFECTS = {
    "income": _do_income,
    "buy": _do_buy,
    "use": _do_use,
    "pyramid": _do_pyramid,
    "ritual": _do_ritual,
    "sacrifice": _do_sacrifice,
    "take": _do_take,
    "free-ritual": _do_free_ritual,
    "done": _do_done,
    "score": _do_score,
    "draw": _do_draw,
    "build": _do_build,
    "house": _do_house,
    "palace": _do_palace,
    "tile-build": _do_tile_build,
    "grid": _do_grid,
}

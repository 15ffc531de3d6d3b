"""Component data: read rules.toml (found values) and assumed.toml (every reconstructed value).

The two TOML files are loaded once into an immutable ``ZapotecData``; the engine works with small
integer indices built here (resources, properties, spaces, tiles, cards), so the hot path never
touches strings or dicts.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from engine import toml_tables

RESOURCES = ("wood", "brick", "stone", "corn", "gold", "priest")
WOOD, BRICK, STONE, CORN, GOLD, PRIEST = range(6)
BASIC = (WOOD, BRICK, STONE)
# Properties, in the order used everywhere: building types 0-2, regions 3-5, terrains 6-8.
PROPERTIES = ("cornfield", "temple", "village", "etla", "ocotlan", "mitla", "plains", "hills", "forest")
PROP = {name: index for index, name in enumerate(PROPERTIES)}
CATEGORY_OF_PROP = (0, 0, 0, 1, 1, 1, 2, 2, 2)  # 0 = building type, 1 = region, 2 = terrain
SIZES = ("large", "medium", "small")
LARGE, MEDIUM, SMALL = range(3)


class DataError(ValueError):
    """The component files are inconsistent; the message says which value to fix."""


@dataclass(frozen=True)
class Space:
    """A building space on the main board."""

    index: int
    id: str
    type: int  # property index 0-2
    region: int  # property index 3-5
    terrain: int  # property index 6-8
    min_players: int
    props: tuple[int, int, int]  # (type, region, terrain)
    name: str  # "Temple in Mitla forest"


@dataclass(frozen=True)
class BuildingTile:
    """A building tile: its type, the basic resource it shows and the advanced one of its type."""

    index: int
    id: str
    type: int
    basic: int
    advanced: int
    back_mark: str  # "none", "3+" or "4"


@dataclass(frozen=True)
class ActionCard:
    """An Action card: income resource (top), property (middle), turn-order number (bottom)."""

    number: int
    resource: int
    prop: int


@dataclass(frozen=True)
class TradeTile:
    """A Trade tile; ``pay``/``gain``/``cost`` are 6-long resource vectors."""

    index: int
    id: str
    level: int  # 1-3
    kind: str  # gain, convert, build_ignoring_card, building_cost_override, sacrifice, ...
    usage: str  # immediate, per_round, permanent
    pay: tuple[int, ...]
    gain: tuple[int, ...]
    cost: tuple[int, ...]
    prop: int  # build_ignoring_card: the property it builds on; cost override: building type; else -1
    steps: int
    text: str


@dataclass(frozen=True)
class RitualCard:
    """A Ritual card and its end-game condition."""

    index: int
    id: str
    kind: str
    same: int  # category index for building_sets (0 type, 1 region, 2 terrain), else -1
    different: int
    vp_per_set: int
    vp_each: int
    vp_basic: int
    vp_advanced: int
    vp_by_level: tuple[int, ...]
    max_vp: int
    text: str


@dataclass(frozen=True)
class CocijobotCard:
    """A Cocijobot card: three icons, a number, its Capital action and the hint on its back."""

    index: int
    type: int
    terrain: int
    region: int
    number: int
    action: str  # sacrifice, trade, pyramid
    back_hint: str


@dataclass(frozen=True)
class ZapotecData:
    """Every component value the engine uses, with derived lookup tables."""

    rounds: int
    spaces: tuple[Space, ...]
    space_by_combo: dict  # (type, region, terrain) -> index of the unmarked space
    space_index: dict  # space id -> index
    spaces_with: tuple[tuple[int, ...], ...]  # per property: indices of the spaces that have it
    building_tiles: tuple[BuildingTile, ...]
    building_cost: tuple[tuple[int, ...], ...]  # per type
    palace_cost: tuple[int, ...]
    palace_houses: int  # how many Houses the Palace counts as in all scoring
    turn_vp_per_house: int
    houses: int
    pyramid_pieces: tuple[int, ...]  # per piece size (3)
    pyramid_spaces: int
    pyramid_cost: tuple[int, ...]
    pyramid_vp_per_house: int
    pyramid_completion_bonus: int
    starting_resources: tuple[int, ...]
    grid_rows: tuple[int, ...]  # 3 rows
    grid_columns: tuple[int, ...]  # 3 columns
    grid_advanced: tuple[int, ...]  # per cell (row*3+col): resource index or -1
    action_cards: dict  # number -> ActionCard
    card_setup: dict  # players (1-4) -> dict
    trade_cost: tuple[int, int, int]
    trade_tiles: tuple[TradeTile, ...]
    trade_by_id: dict
    face_up_per_level: int
    sacrifice_top: int
    sacrifice_vp: tuple[int, ...]  # per step 0..top
    sacrifice_resource: tuple[int, ...]  # free basic resources on that step
    sacrifice_discount: tuple[tuple[int, int], ...]  # (level, gold) per step, (0, 0) if none
    no_priest_ritual_step: int
    free_ritual_step: int
    corn_per_sacrifice: tuple[int, int]
    end_sacrifice_vp: tuple[int, ...]
    scoring_tiles: tuple[int, ...]
    rituals: tuple[RitualCard, ...]
    rituals_in_play: int
    ritual_gold_per_disc: int
    ritual_priest_cost: int
    ritual_max: int
    solo_scoring_tiles: int
    solo_offer_refill_rounds: tuple[int, ...]
    cocijobot_deck: tuple[CocijobotCard, ...]
    cocijobot: dict  # the [cocijobot] rules table


def _vector(table: dict[str, int] | None, where: str) -> tuple[int, ...]:
    vector = [0] * 6
    for name, amount in (table or {}).items():
        if name not in RESOURCES:
            raise DataError(f"{where}: unknown resource {name!r}; use one of {', '.join(RESOURCES)}")
        vector[RESOURCES.index(name)] = amount
    return tuple(vector)


def _prop(name: str, where: str) -> int:
    if name not in PROP:
        raise DataError(f"{where}: unknown property {name!r}; use one of {', '.join(PROPERTIES)}")
    return PROP[name]


def _resource(name: str, where: str) -> int:
    if name not in RESOURCES:
        raise DataError(f"{where}: unknown resource {name!r}")
    return RESOURCES.index(name)


def describe_cost(vector: tuple[int, ...] | list[int]) -> str:
    """'1 wood + 1 stone' for a resource vector."""
    key = tuple(vector)
    text = _COST_TEXTS.get(key)
    if text is None:
        parts = [f"{amount} {RESOURCES[i]}" for i, amount in enumerate(vector) if amount]
        text = _COST_TEXTS[key] = " + ".join(parts) if parts else "nothing"
    return text


# Every option label names a cost, and a search labels ~16 decisions an iteration: the few
# vectors that occur (costs, incomes) are written out once each.
_COST_TEXTS: dict[tuple[int, ...], str] = {}


def _trade_text(tile: dict[str, Any], pay: tuple[int, ...], gain: tuple[int, ...]) -> str:
    kind = tile["kind"]
    if kind == "gain":
        return f"gain {describe_cost(gain)} now"
    if kind == "convert":
        return f"once a round: pay {describe_cost(pay)} to gain {describe_cost(gain)}"
    if kind == "build_ignoring_card":
        return f"once a round: pay {describe_cost(pay)} to build a House on a {tile['property']} space"
    if kind == "building_cost_override":
        return f"{tile['building']}s cost you exactly {describe_cost(_vector(tile['cost'], ''))}"
    if kind == "sacrifice":
        return f"now: pay {describe_cost(pay)} to advance {tile['steps']} on the Sacrifice track"
    if kind == "score_with_hand_card":
        return "turn scoring may use a hand card instead of the bonus card (then discard it)"
    if kind == "free_ritual":
        return "now: place a Ritual disc ignoring all requirements, for free"
    raise DataError(f"trade tile {tile['id']}: unknown kind {kind!r}")


def _ritual_text(card: dict[str, Any]) -> str:
    kind = card["kind"]
    if kind == "building_sets":
        return (
            f"{card['vp_per_set']} VP per set of 3 buildings with same {card['same']} and different "
            f"{card['different']} (max {card['max_vp']})"
        )
    if kind == "pyramid_levels":
        return f"{card['vp_each']} VP per Pyramid level built (max {card['max_vp']})"
    if kind == "leftover_resources":
        return f"1 VP per basic, 2 per advanced resource left (max {card['max_vp']})"
    if kind == "sacrifice_steps":
        return f"1 VP per Sacrifice step (max {card['max_vp']})"
    if kind == "trade_tiles":
        return f"1/2/3 VP per Trade tile of level 1/2/3 (max {card['max_vp']})"
    raise DataError(f"ritual {card['id']}: unknown kind {kind!r}")


_CATEGORY = {"type": 0, "region": 1, "terrain": 2}


def _spaces(rules: dict, assumed: dict) -> tuple[tuple[Space, ...], dict]:
    vocab = rules["vocabulary"]
    raw = []
    for region in vocab["regions"]:
        for terrain in vocab["terrains"]:
            for kind in vocab["building_types"]:
                raw.append((f"{region}-{terrain}-{kind}", kind, region, terrain, 2))
    for extra in assumed["extra_spaces"]["spaces"]:
        raw.append((extra["id"], extra["type"], extra["region"], extra["terrain"], extra["min_players"]))
    raw.sort(key=lambda r: (PROP[r[2]], PROP[r[3]], r[4], PROP[r[1]]))
    spaces = []
    combos = {}
    for index, (sid, kind, region, terrain, min_players) in enumerate(raw):
        props = (_prop(kind, sid), _prop(region, sid), _prop(terrain, sid))
        name = f"{kind.title()} in {region.title()} {terrain}"
        space = Space(index, sid, props[0], props[1], props[2], int(min_players), props, name)
        spaces.append(space)
        if min_players == 2:
            combos[(space.type, space.region, space.terrain)] = index
    return tuple(spaces), combos


def build_data(rules: dict, assumed: dict) -> ZapotecData:
    """Turn the two parsed TOML documents into ``ZapotecData`` (validating as it goes)."""
    # Readings the engine does not implement the other way: refuse rather than silently ignore.
    if assumed["supply"]["limited"]:
        raise DataError(
            "assumed.toml [supply] limited = true is not supported: the engine's supply is unlimited"
        )
    if assumed["player_board"]["printed_advanced_icons_pay_income"]:
        raise DataError(
            "assumed.toml [player_board] printed_advanced_icons_pay_income = true is not supported: "
            "printed icons pay once, when first covered"
        )
    spaces, combos = _spaces(rules, assumed)
    btypes = rules["building_types"]
    tiles = tuple(
        BuildingTile(
            i,
            t["id"],
            _prop(t["type"], t["id"]),
            _resource(t["basic"], t["id"]),
            _resource(btypes[t["type"]]["advanced_resource"], t["id"]),
            t["back_mark"],
        )
        for i, t in enumerate(assumed["building_tiles"]["tiles"])
    )
    grid = assumed["player_board"]
    advanced = [-1] * 9
    for cell in grid["advanced_spaces"]:
        advanced[cell["row"] * 3 + cell["column"]] = _resource(cell["resource"], "player_board")
    cards = {
        c["number"]: ActionCard(
            c["number"], _resource(c["resource"], "action card"), _prop(c["property"], "action card")
        )
        for c in assumed["action_cards"]["cards"]
    }
    trade = []
    for i, t in enumerate(rules["trade_tiles"]["tiles"]):
        pay, gain = _vector(t.get("pay"), t["id"]), _vector(t.get("gain"), t["id"])
        prop = -1
        if "property" in t:
            prop = _prop(t["property"], t["id"])
        elif "building" in t:
            prop = _prop(t["building"], t["id"])
        trade.append(
            TradeTile(
                i,
                t["id"],
                int(t["level"]),
                t["kind"],
                t["usage"],
                pay,
                gain,
                _vector(t.get("cost"), t["id"]),
                prop,
                int(t.get("steps", 0)),
                _trade_text(t, pay, gain),
            )
        )
    top = int(assumed["sacrifice_track"]["top_step"])
    vp = [0] * (top + 1)
    res = [0] * (top + 1)
    discount = [(0, 0)] * (top + 1)
    no_priest = free_ritual = 0
    for step in list(rules["sacrifice_track"]["steps"]) + list(assumed["sacrifice_track"]["steps"]):
        n = step["step"]
        if not 1 <= n <= top:
            raise DataError(f"sacrifice step {n} is off the track (1..{top})")
        vp[n] += step.get("vp", 0)
        res[n] += step.get("basic_resource_choice", 0)
        if "trade_discount_level" in step:
            discount[n] = (step["trade_discount_level"], step["trade_discount_gold"])
        if step.get("rituals_without_priest"):
            no_priest = n
        if step.get("free_ritual_disc_now"):
            free_ritual = n
    rituals = []
    for i, r in enumerate(rules["ritual_cards"]["cards"]):
        rituals.append(
            RitualCard(
                i,
                r["id"],
                r["kind"],
                _CATEGORY.get(r.get("same", ""), -1),
                _CATEGORY.get(r.get("different", ""), -1),
                r.get("vp_per_set", 0),
                r.get("vp_each", 0),
                r.get("vp_basic", 0),
                r.get("vp_advanced", 0),
                tuple(r.get("vp_by_level", ())),
                r["max_vp"],
                _ritual_text(r),
            )
        )
    cj_rules = rules["cocijobot"]
    deck = tuple(
        CocijobotCard(
            i,
            _prop(c["type"], "cocijobot card"),
            _prop(c["terrain"], "cocijobot card"),
            _prop(c["region"], "cocijobot card"),
            int(c["number"]),
            cj_rules["capital_action_by_type"][c["type"]],
            c["back_hint"],
        )
        for i, c in enumerate(assumed["cocijobot"]["deck"])
    )
    pieces = rules["player_pieces"]
    pyramids = rules["pyramids"]
    setups = {int(k): dict(v) for k, v in rules["card_setup"].items()}
    data = ZapotecData(
        rounds=int(rules["rounds"]),
        spaces=spaces,
        space_by_combo=combos,
        space_index={s.id: s.index for s in spaces},
        spaces_with=tuple(tuple(s.index for s in spaces if p in s.props) for p in range(len(PROPERTIES))),
        building_tiles=tiles,
        building_cost=tuple(_vector(btypes[name]["cost"], name) for name in PROPERTIES[:3]),
        palace_cost=_vector(rules["palace"]["cost"], "palace"),
        palace_houses=int(rules["palace"]["counts_as_houses"]),
        turn_vp_per_house=int(rules["turn_scoring"]["vp_per_matching_house"]),
        houses=int(pieces["houses"]),
        pyramid_pieces=tuple(int(pieces["pyramid_pieces"][s]) for s in SIZES),
        pyramid_spaces=int(assumed["board"]["pyramid_spaces"]),
        pyramid_cost=_vector(pyramids["level_cost"], "pyramids"),
        pyramid_vp_per_house=int(pyramids["vp_per_matching_house_per_piece"]),
        pyramid_completion_bonus=int(pyramids["completion_bonus_per_piece"]),
        starting_resources=_vector(pieces["starting_resources"], "player_pieces"),
        grid_rows=tuple(_resource(r, "player_board") for r in grid["rows"]),
        grid_columns=tuple(_resource(r, "player_board") for r in grid["columns"]),
        grid_advanced=tuple(advanced),
        action_cards=cards,
        card_setup=setups,
        trade_cost=tuple(rules["trade_display"]["cost_gold"]),
        trade_tiles=tuple(trade),
        trade_by_id={t.id: t for t in trade},
        face_up_per_level=int(rules["trade_display"]["face_up_per_level"]),
        sacrifice_top=top,
        sacrifice_vp=tuple(vp),
        sacrifice_resource=tuple(res),
        sacrifice_discount=tuple(discount),
        no_priest_ritual_step=no_priest,
        free_ritual_step=free_ritual,
        corn_per_sacrifice=tuple(rules["sacrifice_track"]["corn_per_action"]),
        end_sacrifice_vp=tuple(rules["sacrifice_track"]["end_game_vp"]),
        scoring_tiles=tuple(_prop(p, "scoring_tiles") for p in rules["scoring_tiles"]["tiles"]),
        rituals=tuple(rituals),
        rituals_in_play=int(rules["ritual_cards"]["in_play"]),
        ritual_gold_per_disc=int(rules["ritual_cards"]["gold_per_opponent_disc"]),
        ritual_priest_cost=int(rules["ritual_cards"]["priest_cost"]),
        ritual_max=int(rules["ritual_cards"]["max_cards_per_player"]),
        solo_scoring_tiles=int(assumed["solo"]["scoring_tiles"]),
        solo_offer_refill_rounds=tuple(assumed["solo"]["offer_refill_rounds"]),
        cocijobot_deck=deck,
        cocijobot=dict(cj_rules),
    )
    validate(data)
    return data


def validate(data: ZapotecData) -> None:
    """Raise DataError when the tables do not add up (counts, layouts, card arithmetic)."""
    if len(data.spaces) != 45 or len({s.id for s in data.spaces}) != 45:
        raise DataError("the board needs 45 distinct building spaces (27 unmarked + 18 extra)")
    for players in (2, 3, 4):
        for kind in range(3):
            spaces = sum(1 for s in data.spaces if s.type == kind and s.min_players <= players)
            tiles = sum(1 for t in data.building_tiles if t.type == kind and in_play(t.back_mark, players))
            if spaces != tiles:
                raise DataError(
                    f"{PROPERTIES[kind]}: {spaces} spaces but {tiles} tiles at {players} players; "
                    "fix the back marks in assumed.toml"
                )
    if sorted(data.action_cards) != list(range(1, 28)):
        raise DataError("action cards must be numbered 1..27, each once")
    for players, setup in data.card_setup.items():
        used = setup["bonus_card"] + setup["offer"] + setup["facedown_deck"] + setup["removed"]
        used += setup["hand"] * players
        if used != 27:
            raise DataError(f"card setup for {players} player(s) uses {used} cards, not 27")
    if len(data.trade_tiles) != 36 or any(
        sum(1 for t in data.trade_tiles if t.level == lv) != 12 for lv in (1, 2, 3)
    ):
        raise DataError("there must be 12 trade tiles of each level")
    if (
        len(data.cocijobot_deck) != 27
        or len({(c.type, c.terrain, c.region) for c in data.cocijobot_deck}) != 27
    ):
        raise DataError("the Cocijobot deck needs one card per (type, terrain, region)")
    if len(data.rituals) != 10:
        raise DataError("there must be 10 ritual cards")


def in_play(back_mark: str, players: int) -> bool:
    """Whether a building tile with this back mark is used at ``players`` (solo uses the 2p set)."""
    return back_mark == "none" or (back_mark == "3+" and players >= 3) or (back_mark == "4" and players >= 4)


def _read(name: str) -> dict:
    return toml_tables.load(Path(__file__).resolve().parent / "data" / name)


@cache
def load() -> ZapotecData:
    """The component data, parsed and validated once per process."""
    return build_data(_read("rules.toml"), _read("assumed.toml"))

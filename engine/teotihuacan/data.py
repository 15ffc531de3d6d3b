"""Component data of the base game, loaded once from data/components.toml into flat tables.

The TOML is a near-verbatim transcription of the project's component reference table (every
``assumed`` mark kept; its notes: docs/reference/teotihuacan-NOTES.md). This module turns it into the index-based tables the engine
uses in its hot paths (tuples of ints and strings), and checks their shape on load.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine import toml_tables

DATA_FILE = Path(__file__).resolve().parent / "data" / "components.toml"

RESOURCES = ("wood", "stone", "gold")
TEMPLES = ("blue", "red", "green")
# Worship spaces: 0-2 the Palace's Royal tiles (left, centre, right), then one per temple sidebar.
SPACE_BOARD = (1, 1, 1, 2, 3, 4, 7)
SIDEBAR_SPACE = {2: 3, 3: 4, 4: 5, 7: 6}
# Offer slot of the face-up discovery tile beside each worship board.
WORSHIP_OFFER = {1: 0, 2: 1, 3: 2, 4: 3, 7: 4}
OFFER_BOARDS = (1, 2, 3, 4, 7)
SIDES = ("top", "right", "bottom", "left")


def resource_mixes(total: int) -> tuple[tuple[int, int, int], ...]:
    """Every (wood, stone, gold) with the given sum: the choices for 'any N resources'."""
    return tuple((w, s, total - w - s) for w in range(total, -1, -1) for s in range(total - w, -1, -1))


@dataclass(frozen=True)
class Discovery:
    """One discovery tile: its kind, cost (cocoa, wood, stone, gold), gain and mask kind."""

    id: int
    kind: str
    cost: tuple[int, int, int, int]
    gain: dict
    mask: int


@dataclass(frozen=True)
class PyramidPosition:
    """A tile position: level 1-4, row, col, the 4 grid squares it covers (clockwise from
    top-left) and the positions it needs underneath."""

    level: int
    row: int
    col: int
    squares: tuple[int, int, int, int]
    supports: tuple[int, ...]


class Components:
    """All component tables, built from the TOML. One instance, ``DATA``, is shared."""

    def __init__(self, raw: dict[str, Any]) -> None:
        self.raw = raw
        self.board_names = {int(k): v for k, v in raw["boards"]["names"].items()}
        places = raw["board_places"]
        self.shuffled_places = tuple(places["shuffled_places"])
        self.first_game_layout = tuple(places["first_game"]["clockwise_boards"])
        self.worship_temple = {int(k): v for k, v in raw["worship_temple"].items() if k != "source"}
        # grids[board][workers 1..3][power 1..5] -> gain dict
        self.grids: dict[int, tuple] = {}
        for name in ("forest", "stone_quarry", "gold_deposits"):
            grid = raw["main_action_grid"][name]
            rows = tuple(tuple(dict(cell) for cell in grid[f"workers_{k}"]) for k in (1, 2, 3))
            self.grids[grid["board"]] = rows
        pu = raw["main_action_grid"]["power_ups"]
        self.power_ups = (0, pu["workers_1"], pu["workers_2"], pu["workers_3"])
        # temples: per temple, per step (0-11): (kind, reward dict)
        temple_steps: list[tuple] = []
        temple_discovery: list[tuple] = []  # (temple, step, {players: count})
        for t, name in enumerate(TEMPLES):
            steps = []
            for step in raw["temples"][name]["steps"]:
                reward = {k: v for k, v in step.items() if k not in ("step", "kind", "discovery_tiles")}
                steps.append((step["kind"], reward))
                if "discovery_tiles" in step:
                    counts = {int(k[1:]): v for k, v in step["discovery_tiles"].items()}
                    temple_discovery.append((t, step["step"], counts))
            temple_steps.append(tuple(steps))
        self.temple_steps = tuple(temple_steps)
        self.temple_discovery = tuple(temple_discovery)
        self.top_step = raw["temples"]["top_step"]
        self.bonus_step = raw["temples"]["bonus_tile_step"]
        av = raw["avenue"]
        self.avenue_max = av["max_step"]
        self.avenue_spots = tuple((spot["step"], spot["tiles"]) for spot in av["discovery_spots"])
        self.building_numbers = tuple(raw["buildings_row"]["numbers"])
        self.buildings = raw["buildings_row"]["buildings"]
        nob = raw["nobles"]
        self.noble_rows = (tuple(nob["top_row"]), tuple(nob["centre_row"]), tuple(nob["bottom_row"]))
        self.noble_cost = nob["building_cost"]["wood"]
        self._load_pyramid(raw["pyramid"], raw["pyramid_tiles"], raw["pyramid_track"])
        self._load_decorations(raw["decorations"], raw["decoration_tiles"])
        self._load_discoveries(raw["discovery"], raw["discovery_kinds"])
        self.starting_tiles = {t["id"]: (tuple(t["boards"]), dict(t["gain"])) for t in raw["starting_tiles"]}
        meta = raw["starting_tiles_meta"]
        self.draft_pool = {int(k[1:]): v for k, v in meta["draft_pool"].items()}
        self.royal_groups = tuple(
            tuple(raw["royal_tile_categories"][k]) for k in ("left_space", "centre_space", "right_space")
        )
        self.tech_gold = {t["number"]: t["gold"] for t in raw["technology_tiles"]}
        self.tech_columns = tuple(
            TEMPLES.index(raw["technology_meta"]["column_temple"][k]) for k in ("left", "centre", "right")
        )
        self.tech_vp_earlier = raw["technology_meta"]["vp_to_earlier_owners"]
        self.bonus_tiles = tuple(t["number"] for t in raw["temple_bonus_tiles"])
        cal = raw["calendar"]
        self.dark_disc = {int(k[1:]): tuple(v) for k, v in cal["dark_disc"].items()}
        ecl = raw["eclipse"]
        self.pyramid_leader_vp = ecl["pyramid_leader_vp"]
        self.pyramid_step_vp = tuple(ecl["pyramid_step_vp"])
        sal = raw["salary"]
        self.salary = (sal["per_worker_power_1_to_3"], sal["per_worker_power_4_to_5"])
        self.salary_vp = sal["vp_lost_per_unpaid_cocoa"]
        self.ascension_rewards = tuple(r["reward"] for r in raw["ascension"]["rewards"])
        turn = raw["turn"]
        self.unlock_cost = turn["unlock_all_cost"]["cocoa"]
        self.first_game = raw["first_game"]
        self.neutral_colours = {int(k[1:]): v for k, v in raw["neutral_workers"]["colours"].items()}
        start = raw["player_setup"]["starting_cocoa"]
        self.starting_cocoa = (start["first_player"], start["others"], start["last_player"])
        self.first_game_bonus = raw["temple_bonus_meta"]["first_game"]

    def _load_pyramid(self, pyr: dict, tiles: list, track: dict) -> None:
        self.base_grid = "".join(pyr["base_grid"])
        assert len(self.base_grid) == 64, "pyramid base grid must be 8 x 8"
        positions: list[PyramidPosition] = []
        index: dict[tuple[int, int, int], int] = {}
        for level in (1, 2, 3, 4):
            size = 5 - level
            for r in range(size):
                for c in range(size):
                    top, left = 2 * r + level - 1, 2 * c + level - 1
                    squares = (
                        top * 8 + left,
                        top * 8 + left + 1,
                        (top + 1) * 8 + left + 1,
                        (top + 1) * 8 + left,
                    )
                    supports: tuple[int, ...] = ()
                    if level > 1:
                        supports = tuple(index[(level - 1, r + dr, c + dc)] for dr in (0, 1) for dc in (0, 1))
                    index[(level, r, c)] = len(positions)
                    positions.append(PyramidPosition(level, r, c, squares, supports))
        self.positions = tuple(positions)
        self.position_index = index
        assert len(positions) == sum(pyr["level_positions"].values())
        place = pyr["placement"]
        self.level_cost = {
            int(k[-1]): (v.get("stone", 0), v.get("wood", 0)) for k, v in place["cost"].items()
        }
        self.level_vp = {int(k[-1]): v for k, v in place["vp"].items()}
        self.pyramid_tiles = {t["id"]: tuple(t["icons"]) for t in tiles}
        assert len(self.pyramid_tiles) == pyr["tiles"]
        pat = pyr["setup_patterns"]
        self.setup_patterns = {n: tuple(index[tuple(p)] for p in pat[f"p{n}_default"]) for n in (2, 3, 4)}
        self.pyramid_offer = pyr["offer_size"]
        self.pyramid_track_max = track["max_step"]

    def _load_decorations(self, deco: dict, tiles: list) -> None:
        self.deco_offer_size = deco["offer_size"]
        self.deco_cost = (
            0,
            deco["cost_gold"]["workers_1"],
            deco["cost_gold"]["workers_2"],
            deco["cost_gold"]["workers_3"],
        )
        self.deco_vp = deco["vp_base"]
        # 16 spaces: index side*4 + (level-1); each (printed icons or None, squares, needed positions)
        spaces = []
        for side in SIDES:
            spec = deco["spaces"][side]
            for level in (1, 2, 3, 4):
                cell = spec[f"level_{level}"]
                printed = tuple(cell["printed_icons"]) if level == 1 else None
                squares = tuple(r * 8 + c for r, c in cell.get("squares", ()))
                needs = tuple(self.position_index[tuple(p)] for p in cell.get("needs_tiles", ()))
                spaces.append((printed, squares, needs))
        self.deco_spaces = tuple(spaces)
        self.deco_tiles = {t["id"]: tuple(t["icons"]) for t in tiles}
        assert len(self.deco_tiles) == deco["tiles"]

    def _load_discoveries(self, meta: dict, kinds: list) -> None:
        self.mask_set_vp = tuple(meta["mask_set_vp"])
        tiles = {}
        for kind in kinds:
            cost = kind.get("cost", {})
            cost_t = (cost.get("cocoa", 0), cost.get("wood", 0), cost.get("stone", 0), cost.get("gold", 0))
            for tid in kind["ids"]:
                tiles[tid] = Discovery(
                    tid, kind["kind"], cost_t, dict(kind.get("gain", {})), kind.get("mask", 0)
                )
            assert len(kind["ids"]) == kind["count"], kind["kind"]
        assert len(tiles) == meta["total"]
        self.discoveries = tiles
        self.discovery_ids = tuple(sorted(tiles))
        self.avenue_discovery = meta["setup"]["avenue"]


def _load() -> Components:
    return Components(toml_tables.load(DATA_FILE))


DATA = _load()
MIXES = {k: resource_mixes(k) for k in range(0, 8)}

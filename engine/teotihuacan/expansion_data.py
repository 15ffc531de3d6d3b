"""Component data of the Late Preclassic Period expansion, loaded once from data/expansion.toml.

The TOML is the engine's copy of the project's Late Preclassic reference table with every
``assumed`` mark kept; this module reads only the values, so a printed value found later
replaces an assumed one in the TOML without a code change. ``EXP`` holds flat tables.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine import toml_tables

from .data import DATA, OFFER_BOARDS, SIDEBAR_SPACE, SPACE_BOARD, TEMPLES, WORSHIP_OFFER

DATA_FILE = Path(__file__).resolve().parent / "data" / "expansion.toml"
ORANGE = len(TEMPLES)  # the orange temple's index in the temple markers (M2: nt = 4)
TEMPLE_NAMES = (*TEMPLES, "orange")
# M2's new Nobles (6) board adds Worship space 7 (orange temple) with a discovery tile in offer
# slot 5. Base games have neither (their space_occ and d_offer are shorter), so never reach them.
NOBLES_SPACE, NOBLES_SLOT = len(SPACE_BOARD), len(WORSHIP_OFFER)
SPACE_BOARD_M2 = (*SPACE_BOARD, 6)
WORSHIP_OFFER_M2 = {**WORSHIP_OFFER, 6: NOBLES_SLOT}
OFFER_BOARDS_M2 = (*OFFER_BOARDS, 6)
SIDEBAR_SPACE_M2 = {**SIDEBAR_SPACE, 6: NOBLES_SPACE}
LEVELS = {"I": 1, "II": 2, "III": 3}
# Grid cells of Architecture (7) / Development (8): the TOML's keys -> the engine's gain keys.
CELL_KEYS = {"decorations", "pyramid_tiles", "unlock", "gold", "stone", "wood", "cocoa", "vp"}


@dataclass(frozen=True)
class SeasonTile:
    """One Season tile: its number (1-8), id, effect text and how Teotibot treats it."""

    number: int
    id: str
    effect: str
    teotibot: str  # "not_affected", "applies" or "uses_if_able"


@dataclass(frozen=True)
class Ability:
    """One Special Ability of the orange temple (M2)."""

    id: str
    level: int
    effect: str


class Expansion:
    """All expansion tables, built from the TOML. One instance, ``EXP``, is shared."""

    def __init__(self, raw: dict[str, Any]) -> None:
        self.raw = raw
        self.module_titles = dict(raw["modules"])
        seasons = raw["season_tiles"]
        self.seasons = {
            t["number"]: SeasonTile(t["number"], t["id"], t["effect"], t["teotibot"])
            for t in seasons["tiles"]
        }
        assert len(self.seasons) == seasons["count"]
        self.season_by_id = {t.id: t.number for t in self.seasons.values()}
        season5 = next(t for t in seasons["tiles"] if t["number"] == self.season_by_id["paid_second_temple"])
        self.season5_triggers = tuple(season5["triggering_temples"])
        self.season5_bonus = tuple(season5["bonus_temples"])
        self.abilities = tuple(
            Ability(a["id"], LEVELS[a["level"]], a["effect"]) for a in raw["special_abilities"]["list"]
        )
        self.orange_steps = tuple(dict(s) for s in raw["orange_temple"]["steps"])
        # per position: (kind, printed reward), as DATA.temple_steps; the base names for the
        # Temple Bonus step ("bonus_tile") so the shared temple code reads both alike
        kinds = {"temple_bonus_tile": "bonus_tile"}
        self.orange_table = tuple(
            (kinds.get(s["kind"], s["kind"]), dict(s.get("reward", {}))) for s in self.orange_steps
        )
        assert [s["position"] for s in self.orange_steps] == list(range(len(self.orange_steps)))
        self.orange_top = len(self.orange_table) - 1
        self.orange_bonus = next(i for i, (k, _) in enumerate(self.orange_table) if k == "bonus_tile")
        self.orange_levels = {
            s["position"]: LEVELS[s["level"]] for s in self.orange_steps if s["kind"] == "ability"
        }
        major = next(s for s in self.orange_steps if s["kind"] == "major")
        self.orange_major = major["position"]
        self.orange_discovery = {int(k): v for k, v in major["discovery_tiles"].items()}
        self.move_back = tuple(next(s for s in self.orange_steps if s["kind"] == "move_back")["distance"])
        self.ability_index = {a.id: i for i, a in enumerate(self.abilities)}
        self.mask_set_extra = {
            int(k): v
            for a in raw["special_abilities"]["list"]
            for k, v in a.get("set_values_beyond_7", {}).items()
        }
        self.teotibot_advances_on_orange = raw["teotibot_m2"]["advances_on_orange"]
        self.teotibot_markers = {m["eclipse"]: m["ability"] for m in raw["teotibot_m2"]["eclipse_markers"]}
        boards = raw["action_boards"]
        self.architecture = _grid(boards["architecture_7"])
        self.development = _grid(boards["development_8"])
        self.power_ups = (0, *(boards["architecture_7"]["power_ups"][k] for k in ("1", "2", "3")))
        self.expert_level_vp = {
            lvl: vp for lvl, vp in enumerate(raw["expert_pyramid_scoring"]["level_vp"], 1)
        }
        # expert set-up patterns as pyramid position indices (level0: 4x4 grid; level1: 3x3)
        self.expert_patterns = {}
        for n in (2, 3, 4):
            spec = raw["pyramid_setup"]["expert"][str(n)]
            pos = [DATA.position_index[(1, i // 4, i % 4)] for i in spec["level0"]]
            pos += [DATA.position_index[(2, i // 3, i % 3)] for i in spec["level1"]]
            self.expert_patterns[n] = tuple(pos)
        pr = raw["priests"]
        self.priests = tuple(pr["player"])
        self.bot_priests = tuple(pr["teotibot"])


def _grid(board: dict) -> tuple:
    """grid[workers-1][power-1] -> gain dict of the cell (keys checked)."""
    rows = tuple(tuple(dict(cell) for cell in row) for row in board["grid"])
    assert len(rows) == 3 and all(len(r) == 5 for r in rows), "a resource board is 3 x 5"
    for row in rows:
        for cell in row:
            assert set(cell) <= CELL_KEYS, cell
    return rows


def _load() -> Expansion:
    return Expansion(toml_tables.load(DATA_FILE))


EXP = _load()

"""Component data of the Late Preclassic Period expansion, loaded once from data/expansion.toml.

The TOML is the engine's copy of shared/reference/teotihuacan/late-preclassic.toml with every
``assumed`` mark kept; this module reads only the values, so a printed value found later
replaces an assumed one in the TOML without a code change. ``EXP`` holds flat tables.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .data import DATA

DATA_FILE = Path(__file__).resolve().parent / "data" / "expansion.toml"
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
    with DATA_FILE.open("rb") as handle:
        return Expansion(tomllib.load(handle))


EXP = _load()

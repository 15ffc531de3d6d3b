"""Every ladder shipped in ladders/ is valid against the installed plugins (engines included).

These pass once the zapotec and teotihuacan engines are installed (entry points in
pyproject.toml); the solo ladders need each game to list its automaton.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from arena.registry.plugins import discover
from arena.tournament.plan.ladder import load_ladder
from arena.tournament.plan.schedule import make_schedule

LADDERS = sorted((Path(__file__).resolve().parents[4] / "ladders").glob("*.toml"))


def test_there_are_ladders_for_every_game_and_player_count():
    names = {path.stem for path in LADDERS}
    expected = {f"{game}-{count}p" for game in ("zapotec", "teotihuacan") for count in (2, 3, 4)}
    assert expected | {"zapotec-solo", "teotihuacan-solo", "demo"} <= names


@pytest.mark.parametrize("path", LADDERS, ids=[path.stem for path in LADDERS])
def test_shipped_ladder_is_valid(path):
    ladder = load_ladder(path, discover())
    assert ladder.name == path.stem
    schedule = make_schedule(ladder)
    assert schedule and all(match.spec.game == ladder.game for match in schedule)
    if path.stem == "demo":  # `make demo` must stay quick
        assert len(schedule) <= 12 and ladder.game == "zapotec"


def test_every_shipped_ladder_is_listed_in_the_docs_table():
    """docs/ladders.md's "Shipped ladders" table names each file (`{a,b}` stands for each of a and b)."""
    text = (LADDERS[0].parents[1] / "docs" / "ladders.md").read_text(encoding="utf-8")
    table = text.split("## Shipped ladders", 1)[1].split("\n\n")[1]
    listed = set()
    for cell in re.findall(r"^\| `ladders/([^`]+)` \|", table, re.M):
        head, _, rest = cell.partition("{")
        choices, _, tail = rest.partition("}")
        listed.update(f"{head}{choice}{tail}" for choice in choices.split(",")) if rest else listed.add(cell)
    assert sorted(listed) == sorted(path.name for path in LADDERS)

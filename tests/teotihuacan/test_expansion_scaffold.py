"""The Late Preclassic scaffold: the options, the data file, the hooks, the optional rules."""

from __future__ import annotations

import tomllib
from pathlib import Path
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from engine.api import BadOptions
from engine.teotihuacan import GAME, modules
from engine.teotihuacan.actions import level_vp, place_pyramid_tile
from engine.teotihuacan.data import DATA
from engine.teotihuacan.expansion_data import DATA_FILE, EXP

REFERENCE = (
    Path(__file__).resolve().parents[3] / "shared" / "reference" / "teotihuacan" / "late-preclassic.toml"
)


def test_unknown_module_names_the_valid_ones():
    with pytest.raises(
        BadOptions, match="unknown module 'priest'; valid: priests, height, seasons, architecture"
    ):
        GAME.setup(2, 0, {"modules": "priest"})
    with pytest.raises(BadOptions, match="must be str"):
        GAME.setup(2, 0, {"modules": 3})


def test_no_module_is_the_base_game():
    st = GAME.setup(2, 0, {})
    assert st.mods == 0 and st.options["modules"] == ""
    assert st.season == 0 and st.season_deck == [] and st.priest == [0, 0]


def test_engine_data_keeps_every_reference_value_and_mark():
    engine = tomllib.loads(DATA_FILE.read_text())
    engine.pop("priests")
    if REFERENCE.exists():  # the shared reference sits beside the checkouts
        assert engine == tomllib.loads(REFERENCE.read_text())
    assert engine["action_boards"]["architecture_7"]["grid_assumed"] is True
    assert all(a["level_assumed"] for a in engine["special_abilities"]["list"])


def test_expert_pyramid_scores_1_2_3_4():
    st = GAME.setup(2, 0, {"expert_pyramid": True})
    assert [level_vp(st, level) for level in (1, 2, 3, 4)] == [1, 2, 3, 4]
    base = GAME.setup(2, 0, {})
    assert [level_vp(base, level) for level in (1, 2, 3, 4)] == [1, 3, 5, 7]
    pos = DATA.position_index[(2, 1, 1)]
    before = st.vp[0]
    place_pyramid_tile(st, 0, st.pyr_offer[0], pos, 0)
    assert st.vp[0] == before + 2


@pytest.mark.parametrize("players,options", [(2, {}), (3, {}), (4, {}), (1, {"automaton": "teotibot"})])
def test_expert_setup_uses_the_expert_patterns(players, options):
    st = GAME.setup(players, 3, {"expert_setup": True, **options})
    placed = {i for i, p in enumerate(st.pyr_pos) if p >= 0}
    assert placed == set(EXP.expert_patterns[st.n])
    assert placed != set(DATA.setup_patterns[st.n])


def hooked(mods: int, priest: list[int], bot: int = -1, season: int = 0, ability: list[int] | None = None):
    """The fields the hook dispatch reads, with its hooks found (``modules.refresh``)."""
    n = len(priest)
    st = SimpleNamespace(mods=mods, priest=priest, bot=bot, n=n, season=season, ability=ability or [0] * n)
    modules.refresh(st)
    return st


def test_hooks_run_only_for_modules_in_play():
    calls = []

    def adjust(st, seat, value, *args):
        calls.append(("adjust", seat, args))
        return value + 1

    def listen(st, seat, *args):
        calls.append(("fire", seat, args))
        return [("frame", seat)]

    fake = 1 << 20  # a module of this test only: no real hook runs beside it
    modules.ADJUST["salary"].append((fake, adjust))
    modules.FIRE["temple"].append((fake, listen))
    modules.registries_changed()
    try:
        off = hooked(fake << 1, [0, 0])  # another module in play, not this one
        assert modules.adjust(off, "salary", 0, 5) == 5 and modules.fire(off, "temple", 0, 1) == []
        on = hooked(fake, [0, 0])
        assert modules.adjust(on, "salary", 1, 5, "x") == 6
        assert modules.fire(on, "temple", 1, 2) == [("frame", 1)]
        assert calls == [("adjust", 1, ("x",)), ("fire", 1, (2,))]
    finally:
        modules.ADJUST["salary"].pop()
        modules.FIRE["temple"].pop()
        modules.registries_changed()


@pytest.mark.parametrize(
    "module,when,change",
    [
        ("seasons", {"season": "cheap_salary"}, lambda st: setattr(st, "season", EXP.season_by_id["cheap_salary"])),
        ("height", {"ability": "no_salary"}, lambda st: st.ability.__setitem__(0, 1 << EXP.ability_index["no_salary"])),
        ("priests", {"bot_tiles": ("metzli",)}, lambda st: st.priest.__setitem__(2, EXP.bot_priests.index("metzli") + 1)),
    ],
)
def test_a_hook_with_a_condition_runs_once_it_holds_and_the_hooks_are_refreshed(module, when, change):
    def cheaper(st, seat, gold):
        return gold - 1

    # tech_gold: no other hook of this module runs for a seat without a priest tile
    modules.adjuster("tech_gold", module, **when)(cheaper)
    try:
        other_bot_tile = EXP.bot_priests.index("chantico") + 1
        st = hooked(modules.BIT[module], [0, 0, other_bot_tile], bot=2, season=EXP.season_by_id["avenue_step_vp"])
        assert modules.adjust(st, "tech_gold", 0, 5) == 5
        change(st)
        modules.refresh(st)
        assert modules.adjust(st, "tech_gold", 0, 5) == 4
        assert modules.adjust(st, "tech_gold", 1, 5) == (4 if "ability" not in when else 5)  # seat 0's ability
    finally:
        modules.ADJUST["tech_gold"].remove((modules.BIT[module], cheaper))
        del modules.WHEN[cheaper]
        modules.registries_changed()


def test_arena_games_lists_the_options():
    out = CliRunner().invoke(app, ["games", "teotihuacan"])
    assert out.exit_code == 0
    assert "modules" in out.output and "expert_pyramid" in out.output and "expert_setup" in out.output
    bad = CliRunner().invoke(app, ["games", "nosuch"])
    assert bad.exit_code != 0 and "unknown game 'nosuch'" in bad.output


def test_a_priest_tile_hook_runs_only_for_a_seat_keeping_that_tile():
    xolotl = EXP.priests.index("xolotl") + 1
    st = hooked(modules.BIT["priests"], [xolotl, 0, xolotl], bot=2)
    # seat 0 keeps Xolotl: its second Ascension reward; seat 1 keeps none; seat 2 is Teotibot,
    # whose tile numbers are another deck's
    assert modules.fire(st, "ascend", 0, 0) == [("asc-reward", 0)]
    assert modules.fire(st, "ascend", 1, 4) == [] and modules.fire(st, "ascend", 2, 8) == []

"""The Late Preclassic scaffold: the options, the data file, the hooks, the optional rules."""

from __future__ import annotations

import pickle
import tomllib
from pathlib import Path
from random import Random
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from engine.api import BadOptions
from engine.teotihuacan import GAME, modules
from engine.teotihuacan.data import DATA
from engine.teotihuacan.expansion_data import DATA_FILE, EXP
from engine.teotihuacan.hooks import Automaton, Choice, adjuster, listener
from engine.teotihuacan.rulebook import Rulebook, for_modules, module_parts
from engine.teotihuacan.rules.actions import level_vp, place_pyramid_tile

REFERENCE = (
    Path(__file__).resolve().parents[4] / "shared" / "reference" / "teotihuacan" / "late-preclassic.toml"
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


def hooked(
    mods: int, priest: list[int], bot: int = -1, season: int = 0, ability: list[int] | None = None, rules=None
):
    """The fields the hook dispatch reads, with its hooks found (``modules.refresh``); ``rules``:
    a rulebook (by default the module set's)."""
    n = len(priest)
    st = SimpleNamespace(
        mods=mods,
        rules=rules or for_modules(mods),
        priest=priest,
        bot=bot,
        n=n,
        season=season,
        ability=ability or [0] * n,
    )
    modules.refresh(st)
    return st


def test_hooks_run_only_where_the_rulebook_has_them():
    calls = []

    def adjust(st, seat, value, *args):
        calls.append(("adjust", seat, args))
        return value + 1

    def listen(st, seat, *args):
        calls.append(("fire", seat, args))
        return [("frame", seat)]

    fake = (adjuster("salary", adjust), listener("temple", listen))  # a module of this test only
    priests = modules.BIT["priests"]
    off = hooked(priests, [0, 0])  # the real module set: no such hook
    assert modules.adjust(off, "salary", 0, 5) == 5 and modules.fire(off, "temple", 0, 1) == []
    on = hooked(priests, [0, 0], rules=Rulebook([*module_parts(priests), *fake], priests))
    assert modules.adjust(on, "salary", 1, 5, "x") == 6
    assert modules.fire(on, "temple", 1, 2) == [("frame", 1)]
    assert calls == [("adjust", 1, ("x",)), ("fire", 1, (2,))]
    assert for_modules(priests).hooks["salary"] == off.rules.hooks["salary"]  # the shared one is untouched


def test_a_rulebook_refuses_an_unknown_point_a_wrong_kind_and_a_clash():
    with pytest.raises(ValueError, match="unknown hook point 'salery'"):
        Rulebook([adjuster("salery", lambda st, seat, v: v)])
    with pytest.raises(ValueError, match="point 'temple' takes fire hooks, not adjust"):
        Rulebook([adjuster("temple", lambda st, seat, v: v)])
    with pytest.raises(ValueError, match="choice frame 'turn' is declared twice"):
        Rulebook(
            [
                *module_parts(0),
                Choice("turn", lambda st, f: [], lambda st, f, o: ("", []), lambda st, f, p: None),
            ]
        )
    with pytest.raises(ValueError, match="automaton policy 'nosuch' replaces nothing"):
        Rulebook([Automaton("nosuch", lambda st, f, o: o[0], replaces=True)])


def test_importing_the_rules_registers_nothing_and_each_module_set_has_one_rulebook():
    assert for_modules(0) is for_modules(0) and for_modules(0) is not for_modules(modules.BIT["height"])
    assert not any(for_modules(0).hooks.values())  # the base game calls no hook
    assert (
        "move-back" in for_modules(modules.BIT["height"]).choice and "move-back" not in for_modules(0).choice
    )
    st = GAME.setup(2, 1, {"modules": "height"})
    assert st.clone().rules is st.rules and st.determinize(0, Random(1)).rules is st.rules
    assert GAME.from_observation(st.observation(0), Random(2)).rules is st.rules
    assert pickle.loads(pickle.dumps(st)).rules is st.rules  # pickled by its module set
    with pytest.raises(TypeError, match="built by hand"):
        pickle.dumps(Rulebook(module_parts(0)))


@pytest.mark.parametrize(
    "module,when,change",
    [
        (
            "seasons",
            {"season": "cheap_salary"},
            lambda st: setattr(st, "season", EXP.season_by_id["cheap_salary"]),
        ),
        (
            "height",
            {"ability": "no_salary"},
            lambda st: st.ability.__setitem__(0, 1 << EXP.ability_index["no_salary"]),
        ),
        (
            "priests",
            {"bot_tiles": ("metzli",)},
            lambda st: st.priest.__setitem__(2, EXP.bot_priests.index("metzli") + 1),
        ),
    ],
)
def test_a_hook_with_a_condition_runs_once_it_holds_and_the_hooks_are_refreshed(module, when, change):
    def cheaper(st, seat, gold):
        return gold - 1

    # tech_gold: no other hook of this module runs for a seat without a priest tile
    mods = modules.BIT[module]
    rules = Rulebook([*module_parts(mods), adjuster("tech_gold", cheaper, **when)], mods)
    other_bot_tile = EXP.bot_priests.index("chantico") + 1
    st = hooked(mods, [0, 0, other_bot_tile], bot=2, season=EXP.season_by_id["avenue_step_vp"], rules=rules)
    assert modules.adjust(st, "tech_gold", 0, 5) == 5
    change(st)
    modules.refresh(st)
    assert modules.adjust(st, "tech_gold", 0, 5) == 4
    assert modules.adjust(st, "tech_gold", 1, 5) == (4 if "ability" not in when else 5)  # seat 0's ability


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

"""Agents declare their options: a misspelt or ill-typed one is refused in one line, naming the
agent, the option and the nearest declared name, wherever options are given (a ladder, `arena
play`, `arena compare`); `arena agents NAME` lists them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from arena.registry.plugins import AgentSpec, discover
from arena.tournament.plan.ladder import LadderError, parse_ladder
from tests.support.cli import arena_in_process

LADDER = """\
name = "options"
game = "zapotec"
players = 2
format = "round-robin"

[[agents]]
agent = "ismcts"
options = {{ {options} }}

[[agents]]
agent = "random"
"""


def one_error_line(result: subprocess.CompletedProcess) -> str:
    """The single ``error:`` line of a refused command (asserting there is nothing else)."""
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.stderr
    return result.stderr


def test_arena_run_refuses_a_misspelt_option_before_it_stores_or_plays_anything(tmp_path):
    ladder, db = tmp_path / "ladder.toml", tmp_path / "arena.db"
    ladder.write_text(LADDER.format(options="iteratons = 2000"))
    result = subprocess.run(
        [sys.executable, "-m", "arena.cli", "run", str(ladder), "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    line = one_error_line(result)
    assert f"{ladder}:8: agent 'ismcts': unknown option 'iteratons': did you mean 'iterations'?" in line
    assert "arena agents ismcts" in line
    assert not db.exists()


def test_arena_ladder_add_refuses_a_ladder_with_an_ill_typed_option_and_leaves_it(tmp_path):
    ladder = tmp_path / "ladder.toml"
    text = LADDER.format(options='iterations = "many"')
    ladder.write_text(text)
    line = one_error_line(arena_in_process("ladder", "add", str(ladder), "flatmc"))
    assert "agent 'ismcts': option 'iterations' must be int, got 'many'" in line
    assert ladder.read_text() == text


@pytest.mark.parametrize(
    "options, message",
    [
        ("iterations = 0", "option 'iterations' must be >= 1, got 0"),
        ('policy = "smart"', "option 'policy' must be one of ['random', 'evaluator', 'mast'], got 'smart'"),
        ("epsilon = 2.0", "option 'epsilon' must be within 0..1, got 2.0"),
        ("reuse = 1", "option 'reuse' must be bool, got 1"),
    ],
)
def test_a_ladder_with_an_option_out_of_range_or_choices_is_refused_at_its_line(options, message):
    with pytest.raises(LadderError) as refused:
        parse_ladder(LADDER.format(options=options), discover(), source="ladder.toml")
    assert str(refused.value) == f"ladder.toml:8: agent 'ismcts': {message} (see `arena agents ismcts`)"


def test_a_ladders_declared_options_are_kept_as_written():
    text = LADDER.format(options='iterations = 200, exploration = 1, policy = "mast"')
    (entrant, _) = parse_ladder(text, discover()).entrants
    assert entrant.options == {"iterations": 200, "exploration": 1, "policy": "mast"}
    assert type(entrant.options["exploration"]) is int  # what the file says reaches the bot


@pytest.mark.parametrize(
    "setting, message",
    [
        ("0:iteratons=5", "agent 'ismcts': unknown option 'iteratons': did you mean 'iterations'?"),
        ("0:iterations=many", "agent 'ismcts': option 'iterations' must be int, got 'many'"),
        ("0:policy=smart", "agent 'ismcts': option 'policy' must be one of"),
        ("0:reuse=maybe", "agent 'ismcts': option 'reuse' must be true or false, got 'maybe'"),
        ("1:sed=4", "agent 'random': unknown option 'sed': did you mean 'seed'?"),
    ],
)
def test_arena_play_refuses_a_misspelt_or_ill_typed_agent_option(setting, message):
    result = arena_in_process("play", "-g", "zapotec", "-a", "ismcts", "-a", "random", "-O", setting)
    line = one_error_line(result)
    assert line.startswith(f"error: --agent-option '{setting}': {message}")


def test_arena_play_passes_a_declared_option_in_its_declared_type(tmp_path):
    record = tmp_path / "match.json"
    result = arena_in_process(
        "play", "-g", "zapotec", "-a", "random", "-a", "random", "-O", "1:seed=12",
        "--seed", "3", "--record", str(record),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert [agent["options"] for agent in json.loads(record.read_text())["agents"]] == [{}, {"seed": 12}]


def test_arena_compare_refuses_a_misspelt_new_option(tmp_path):
    result = arena_in_process(
        "compare", "ismcts", "ismcts", "-g", "zapotec", "--db", str(tmp_path / "c.db"),
        "--new-option", "iteratons=300", "--old-option", "iterations=100",
    )  # fmt: skip
    line = one_error_line(result)
    assert "--new-option 'iteratons=300': agent 'ismcts': unknown option 'iteratons'" in line
    assert "did you mean 'iterations'?" in line
    assert not (tmp_path / "c.db").exists()


def test_arena_agents_name_lists_its_declared_options():
    result = arena_in_process("agents", "flatmc")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["option", "type", "default", "allowed", "meaning"]
    playouts = next(line for line in lines if line.startswith("playouts"))
    assert playouts.split()[:4] == ["playouts", "int", "160", ">="]
    every = arena_in_process("agents", "ismcts").stdout
    for name in ("iterations", "time_ms", "policy", "prior", "random, evaluator, mast"):
        assert name in every
    assert "unknown agent 'nosuch'" in one_error_line(arena_in_process("agents", "nosuch"))
    # a test plugin's agent that declares nothing takes anything, unchecked, and says so
    undeclared = arena_in_process("agents", "fault-crash")
    assert undeclared.returncode == 0
    assert (
        undeclared.stdout
        == "agent 'fault-crash' declares no options: any it is given are passed on unchecked\n"
    )


def test_every_bundled_agent_declares_its_options():
    agents = discover().agents
    for name in ("random", "flatmc", "greedy", "ismcts"):
        declared = agents[name].options
        assert declared is not None and "seed" in declared, name
        assert all(spec.get("help") for spec in declared.values()), name


def test_an_external_agent_may_declare_options_too():
    spec = AgentSpec(
        name="wire",
        description="an executable",
        argv=("/bin/true",),
        options={"depth": {"type": "int", "default": 2, "min": 1, "max": 6, "help": "plies"}},
    )
    assert spec.check_options({"depth": 3}) == {"depth": 3}
    with pytest.raises(ValueError, match="agent 'wire': option 'depth' must be within 1..6, got 9"):
        spec.check_options({"depth": 9})
    with pytest.raises(ValueError, match="agent 'wire': unknown option 'dept': did you mean 'depth'"):
        spec.check_options({"dept": 3})
    # an agent that declares nothing gets its options unchecked, as before declarations
    anything = AgentSpec(name="old", description="", argv=("/bin/true",))
    assert anything.check_options({"whatever": [1]}) == {"whatever": [1]}


def test_a_plugin_declaring_a_broken_option_is_named_and_skipped(tmp_path: Path, monkeypatch):
    (tmp_path / "badopts.py").write_text(
        "from arena.registry.plugins import AgentSpec, hookimpl\n"
        "from plugins.random_agent import RandomAgent\n\n"
        "@hookimpl\n"
        "def tlachtli_agents():\n"
        "    return [AgentSpec(name='badopts', description='', factory=RandomAgent,\n"
        "                      options={'depth': {'type': 'int', 'default': 'two', 'help': ''}})]\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("TLACHTLI_PLUGINS", "badopts")
    registry = discover()
    assert "badopts" not in registry.agents
    assert any("agent 'badopts': default of option 'depth' must be int" in line for line in registry.broken)


def test_a_misspelt_game_option_gets_the_same_suggestion():
    """Games' options go through the same check: `-o dificulty=easier` names `difficulty`."""
    result = arena_in_process(
        "play", "-g", "zapotec", "-a", "random", "-a", "random", "-o", "dificulty=easier"
    )
    assert "zapotec: unknown option 'dificulty': did you mean 'difficulty'?" in one_error_line(result)
    result = arena_in_process(
        "play", "-g", "zapotec", "-a", "random", "--automaton", "cocijobot", "-o", "difficulty=1"
    )
    assert "option 'difficulty' must be one of ['normal', 'easier', 'harder'], got '1'" in one_error_line(
        result
    )
    shown = arena_in_process("games", "zapotec").stdout.splitlines()
    assert shown[0].split() == ["option", "type", "default", "allowed", "meaning"]
    assert "normal, easier, harder" in next(line for line in shown if line.startswith("difficulty"))

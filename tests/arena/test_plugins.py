import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from arena.plugins import AgentSpec, PluginError, discover, hookimpl
from plugins.random_agent import RandomAgent


def test_bundled_random_agent_is_discovered_through_its_entry_point():
    registry = discover()
    spec = registry.agent("random")
    assert spec.factory is RandomAgent
    assert "plugins.random_agent" in spec.source and "tlachtli" in spec.source


def test_test_game_loads_from_the_environment_variable():
    assert discover().game("goofspiel").id == "goofspiel"


def test_unknown_agent_and_game_name_the_known_ones():
    registry = discover()
    with pytest.raises(PluginError, match="unknown agent 'nope'; known agents: .*random"):
        registry.agent("nope")
    with pytest.raises(PluginError, match="unknown game 'chess'"):
        registry.game("chess")


class _Duplicate:
    @hookimpl
    def tlachtli_agents(self):
        return [AgentSpec(name="random", description="again", factory=RandomAgent)]


def test_duplicate_agent_name_names_both_plugins():
    with pytest.raises(PluginError, match="registered twice: by 'random' .* and by dup-plugin"):
        discover(extra_plugins={"dup-plugin": _Duplicate()})


def test_plugin_that_fails_to_import_is_named(monkeypatch):
    monkeypatch.setenv("TLACHTLI_PLUGINS", "no_such_module_xyz")
    with pytest.raises(
        PluginError, match="plugin 'no_such_module_xyz'.*failed to import: ModuleNotFoundError"
    ):
        discover()


def test_agent_spec_needs_exactly_one_way_to_run():
    with pytest.raises(PluginError):
        AgentSpec(name="x", description="", factory=RandomAgent, argv=("bot",))
    with pytest.raises(PluginError):
        AgentSpec(name="x", description="")


def test_random_agent_is_seeded_and_uniform_over_options():
    def picks(seed):
        agent = RandomAgent()
        agent.setup({"seat": 0, "agent_options": {"seed": seed}})
        return [agent.act({}, {"options": [{}] * 4}) for _ in range(400)]

    assert picks(3) == picks(3)
    assert picks(3) != picks(4)
    assert set(picks(3)) == {0, 1, 2, 3}


def test_cli_lists_agents_and_games():
    out = subprocess.run(
        [sys.executable, "-m", "arena.cli", "agents"], capture_output=True, text=True, check=True
    )
    assert "random" in out.stdout and "Uniformly random" in out.stdout
    out = subprocess.run(
        [sys.executable, "-m", "arena.cli", "games"], capture_output=True, text=True, check=True
    )
    assert "goofspiel" in out.stdout


def test_cli_reports_a_broken_plugin_in_one_line(monkeypatch):
    monkeypatch.setenv("TLACHTLI_PLUGINS", "no_such_module_xyz")
    out = subprocess.run([sys.executable, "-m", "arena.cli", "agents"], capture_output=True, text=True)
    assert out.returncode == 2
    assert out.stderr.strip().startswith("error: plugin 'no_such_module_xyz'")
    assert len(out.stderr.strip().splitlines()) == 1


def test_third_party_plugin_package_is_listed(tmp_path: Path):
    """A throwaway bot package with its own pyproject and entry point, installed for real."""
    package = tmp_path / "src"
    (package / "mybot").mkdir(parents=True)
    (package / "pyproject.toml").write_text(
        textwrap.dedent(
            """
            [build-system]
            requires = ["setuptools>=61"]
            build-backend = "setuptools.build_meta"

            [project]
            name = "tlachtli-mybot"
            version = "2.5"

            [project.entry-points.tlachtli]
            mybot = "mybot"
            """
        )
    )
    (package / "mybot" / "__init__.py").write_text(
        textwrap.dedent(
            """
            from arena.agent import Agent
            from arena.plugins import AgentSpec, hookimpl

            class FirstOption(Agent):
                def act(self, observation, decision):
                    return 0

            @hookimpl
            def tlachtli_agents():
                return [AgentSpec(name="first-option", description="always option 0",
                                  games=("teotihuacan",), factory=FirstOption, version="2.5")]
            """
        )
    )
    target = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--target",
            str(target),
            str(package),
        ],
        check=True,
    )
    import os

    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(target), os.environ["PYTHONPATH"]]))
    out = subprocess.run(
        [sys.executable, "-m", "arena.cli", "agents"], capture_output=True, text=True, check=True, env=env
    )
    line = next(line for line in out.stdout.splitlines() if line.startswith("first-option"))
    assert "teotihuacan" in line and "always option 0" in line and "tlachtli-mybot 2.5" in line

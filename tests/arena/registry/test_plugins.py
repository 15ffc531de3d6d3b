import importlib.metadata
import json
import marshal
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from arena.registry import hookspecs, plugins
from arena.registry.plugins import AgentSpec, PluginError, discover, hookimpl, installed_entry_points
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


def test_plugin_that_fails_to_import_is_named_and_skipped(monkeypatch):
    monkeypatch.setenv("TLACHTLI_PLUGINS", "no_such_module_xyz," + os.environ["TLACHTLI_PLUGINS"])
    registry = discover()
    assert registry.broken == [
        "plugin 'no_such_module_xyz' (from $TLACHTLI_PLUGINS) failed to import: "
        "ModuleNotFoundError: No module named 'no_such_module_xyz'"
    ]
    assert registry.agent("random") and registry.game("goofspiel")  # the others still load
    with pytest.raises(
        PluginError, match="unknown agent 'mine'.*perhaps from the broken plugin 'no_such_module_xyz'"
    ):
        registry.agent("mine")


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


def test_cli_warns_of_a_broken_plugin_in_one_line_and_goes_on(monkeypatch):
    monkeypatch.setenv("TLACHTLI_PLUGINS", "no_such_module_xyz")
    out = subprocess.run([sys.executable, "-m", "arena.cli", "agents"], capture_output=True, text=True)
    assert out.returncode == 0 and "random" in out.stdout
    assert out.stderr.splitlines() == [
        "warning: plugin 'no_such_module_xyz' (from $TLACHTLI_PLUGINS) failed to import: "
        "ModuleNotFoundError: No module named 'no_such_module_xyz'; skipped"
    ]


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
            from arena.wire.agent import Agent
            from arena.registry.plugins import AgentSpec, hookimpl

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
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(target), os.environ["PYTHONPATH"]]))
    env["TLACHTLI_ENTRY_POINTS_ONLY"] += ",tlachtli-mybot"  # the distribution just installed, beside Tlachtli
    out = subprocess.run(
        [sys.executable, "-m", "arena.cli", "agents", "--wide"],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    line = next(line for line in out.stdout.splitlines() if line.startswith("first-option"))
    assert "teotihuacan" in line and "always option 0" in line and "tlachtli-mybot 2.5" in line


BROKEN_BOT = (
    "from arena.registry.plugins import hookimpl\n\n@hookimpl\ndef tlachtli_agents(:\n    return []\n"
)

TINY_LADDER = """
name = "tiny"
game = "goofspiel"
players = 2
format = "round-robin"

[[agents]]
name = "a"
agent = "random"

[[agents]]
name = "b"
agent = "prize-bidder"
"""


def fake_installed_bot(site: Path, name: str, source: str) -> None:
    """A bot package as pip leaves it in site-packages: its module and a dist-info with the entry point."""
    (site / f"{name}.py").write_text(source)
    info = site / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[tlachtli]\n{name} = {name}\n")


@pytest.mark.parametrize("how", ["entry point", "TLACHTLI_PLUGINS"])
def test_a_broken_plugin_is_skipped_with_one_warning_and_only_its_agents_fail(tmp_path, how):
    site = tmp_path / "site"
    site.mkdir()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), os.environ["PYTHONPATH"]]))
    if how == "entry point":
        fake_installed_bot(site, "brokenbot", BROKEN_BOT)
        env["TLACHTLI_ENTRY_POINTS_ONLY"] += ",brokenbot"
        named = "plugin 'brokenbot' (brokenbot, from brokenbot 1.0) failed to import: SyntaxError: "
    else:
        (site / "brokenbot.py").write_text(BROKEN_BOT)
        env["TLACHTLI_PLUGINS"] = "brokenbot," + env["TLACHTLI_PLUGINS"]
        named = "plugin 'brokenbot' (from $TLACHTLI_PLUGINS) failed to import: SyntaxError: "
    (tmp_path / "tiny.toml").write_text(TINY_LADDER)

    def arena(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, env=env, cwd=tmp_path,
            timeout=240,
        )  # fmt: skip

    def warned(out: subprocess.CompletedProcess) -> bool:
        warnings = [line for line in out.stderr.splitlines() if line.startswith("warning: plugin")]
        return len(warnings) == 1 and warnings[0].startswith(f"warning: {named}") and "skipped" in warnings[0]

    listed = arena("agents")
    assert listed.returncode == 0 and "random" in listed.stdout and warned(listed), listed.stderr
    # The agents run in their own hosts, which load the plugins too: the broken one must not stop them.
    played = arena("play", "-g", "goofspiel", "-a", "random", "-a", "random", "--seed", "1", "--json")
    assert played.returncode == 0 and warned(played), played.stderr
    assert [seat["fault"] for seat in json.loads(played.stdout)["seats"]] == [None, None]
    ran = arena("run", "tiny.toml", "--db", "t.db", "--jobs", "1")
    assert ran.returncode == 0 and warned(ran), ran.stderr
    # Only a command that needs the broken plugin fails, and says which plugin and why.
    needs_it = arena("play", "-g", "goofspiel", "-a", "brokenbot", "-a", "random")
    assert needs_it.returncode == 2
    assert "unknown agent 'brokenbot'; known agents: " in needs_it.stderr
    assert f"perhaps from the broken {named}" in needs_it.stderr and "Traceback" not in needs_it.stderr


class _RaisingHook:
    @hookimpl
    def tlachtli_agents(self):
        raise RuntimeError("no config file")


def test_a_plugin_whose_hook_raises_is_skipped_and_named():
    registry = discover(extra_plugins={"raiser": _RaisingHook()})
    assert registry.broken == ["plugin raiser: tlachtli_agents() raised RuntimeError: no config file"]
    assert registry.agent("random")


def test_entry_points_can_be_limited_to_named_distributions(tmp_path, monkeypatch):
    """$TLACHTLI_ENTRY_POINTS_ONLY: the suite sees Tlachtli's own entry points, not the bots a user installed."""
    fake_installed_bot(tmp_path, "usersbot", BROKEN_BOT)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("TLACHTLI_ENTRY_POINTS_ONLY", "")
    assert any("usersbot" in problem for problem in discover().broken)
    monkeypatch.setenv("TLACHTLI_ENTRY_POINTS_ONLY", "Tlachtli")
    registry = discover()
    assert registry.broken == [] and "random" in registry.agents


def _fake_distribution(folder: Path, name: str, version: str) -> None:
    """A distribution's metadata as pip leaves it (no code: its entry point is only listed)."""
    info = folder / f"{name}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    (info / "entry_points.txt").write_text(f"[tlachtli]\n{name} = {name}_module\n")


def test_entry_points_are_read_once_but_an_install_or_upgrade_is_seen(tmp_path, monkeypatch):
    # The entry points are cached (reading every distribution's metadata cost each agent's start
    # ~40 ms); the cache is keyed by the metadata folders in sys.path.
    monkeypatch.delenv("TLACHTLI_ENTRY_POINTS_ONLY")
    monkeypatch.syspath_prepend(str(tmp_path))
    _fake_distribution(tmp_path, "first_bot", "1.0")
    sources = [entry.source for entry in installed_entry_points()]
    assert "'first_bot' (first_bot_module, from first_bot 1.0)" in sources
    assert installed_entry_points()[0] is installed_entry_points()[0], "read once"
    _fake_distribution(tmp_path, "second_bot", "2.0")  # a pip install in this process's lifetime
    (tmp_path / "first_bot-1.0.dist-info").rename(tmp_path / "first_bot-1.1.dist-info")  # an upgrade
    (tmp_path / "first_bot-1.1.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: first_bot\nVersion: 1.1\n"
    )
    sources = [entry.source for entry in installed_entry_points()]
    assert "'second_bot' (second_bot_module, from second_bot 2.0)" in sources
    assert "'first_bot' (first_bot_module, from first_bot 1.1)" in sources
    assert not any("first_bot 1.0" in source for source in sources)


@pytest.fixture
def kept_entry_points(tmp_path, monkeypatch) -> Path:
    """The file entry points are kept in between processes, this test's own (the environment's is
    shared by every process of the suite); the in-process memo emptied before and after."""
    kept = tmp_path / "kept" / "tlachtli-entry-points"
    monkeypatch.setattr(plugins, "_kept_entry_points", lambda: str(kept))
    plugins._entry_points.cache_clear()
    yield kept
    plugins._entry_points.cache_clear()


def test_entry_points_read_by_one_process_are_kept_for_the_next(tmp_path, monkeypatch, kept_entry_points):
    # Importing importlib.metadata and reading every distribution cost each `arena` command,
    # runner worker and zygote ~70 ms: a process reads what an earlier one kept.
    monkeypatch.delenv("TLACHTLI_ENTRY_POINTS_ONLY")
    monkeypatch.syspath_prepend(str(tmp_path))
    _fake_distribution(tmp_path, "kept_bot", "1.0")
    first = plugins.all_installed_entry_points()
    assert kept_entry_points.is_file()
    plugins._entry_points.cache_clear()  # as a new process starts

    def unread(*args, **kwargs):
        raise AssertionError("the metadata was read again")

    monkeypatch.setattr(importlib.metadata, "entry_points", unread)
    again = plugins.all_installed_entry_points()
    assert again == first
    (kept_bot,) = [entry for entry in again if entry.distribution == "kept_bot"]
    assert kept_bot.source == "'kept_bot' (kept_bot_module, from kept_bot 1.0)"
    assert kept_bot.metadata_folder == str(tmp_path / "kept_bot-1.0.dist-info")
    assert any(entry.module == "plugins.random_agent" for entry in again)  # the bundled ones too


def test_a_reinstall_that_rewrites_an_entry_point_is_seen(tmp_path, monkeypatch, kept_entry_points):
    # pip reinstalling the same version keeps the .dist-info folder's name: its file's time says it
    monkeypatch.delenv("TLACHTLI_ENTRY_POINTS_ONLY")
    monkeypatch.syspath_prepend(str(tmp_path))
    _fake_distribution(tmp_path, "edited_bot", "1.0")
    assert "edited_bot_module" in {entry.value for entry in plugins.all_installed_entry_points()}
    listed = tmp_path / "edited_bot-1.0.dist-info" / "entry_points.txt"
    before = listed.stat().st_mtime_ns
    listed.write_text("[tlachtli]\nedited_bot = edited_bot.hooks:plugin\n")
    os.utime(listed, ns=(before + 10**9, before + 10**9))  # a later time, even on a coarse clock
    plugins._entry_points.cache_clear()  # a new process
    values = {entry.value for entry in plugins.all_installed_entry_points()}
    assert "edited_bot.hooks:plugin" in values and "edited_bot_module" not in values


def test_a_kept_file_that_is_damaged_or_from_elsewhere_is_read_past(tmp_path, monkeypatch, kept_entry_points):
    truth = plugins.all_installed_entry_points()
    for damage in (b"", b"not marshal", marshal.dumps(((("elsewhere", ()),), [("x", "y", "z", "w", "")]))):
        kept_entry_points.write_bytes(damage)
        plugins._entry_points.cache_clear()
        assert plugins.all_installed_entry_points() == truth


def test_an_entry_point_loads_what_its_value_names(monkeypatch):
    entry = plugins.InstalledEntryPoint("x", "arena.registry.plugins:Registry.__name__", "d", "s", "")
    assert entry.load() == "Registry" and entry.module == "arena.registry.plugins"
    assert (
        plugins.InstalledEntryPoint("x", "arena.registry.hookspecs [extra]", "d", "s", "").load() is hookspecs
    )
    with pytest.raises(ValueError, match="malformed"):
        plugins.InstalledEntryPoint("x", "not a value!", "d", "s", "").load()

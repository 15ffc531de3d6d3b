"""A bot author's one module, ``arena.bot``: what it exports, and that the examples and the
``arena new-bot`` template import Tlachtli only through it (trio's test_exports.py is the model)."""

from __future__ import annotations

import ast
import importlib
import warnings
from pathlib import Path

import pytest

import arena.bot
import arena.wire.agent
from arena.cli.newbot import render
from examples.games.goofspiel.game import GAME as GOOFSPIEL

ROOT = Path(__file__).resolve().parents[2]
# The RL example drives a PettingZoo environment, not a bot: arena.match.envs is that surface (extra "rl").
OTHER_SURFACES = {"examples/rl/random_episodes.py": {"arena.match.envs"}}
PROJECT_PACKAGES = ("arena", "plugins", "engine", "tests", "bench")


def arena_imports(source: str, filename: str) -> list[str]:
    """Every module of Tlachtli (arena, plugins, tests, bench; engine is the game author's contract)
    that ``source`` imports, at any depth (an import inside a function counts too)."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        found += [
            name
            for name in names
            if name.split(".")[0] in PROJECT_PACKAGES and name.split(".")[0] != "engine"
        ]
    return found


def example_sources() -> dict[str, str]:
    return {
        str(path.relative_to(ROOT)): path.read_text(encoding="utf-8")
        for path in sorted((ROOT / "examples").rglob("*.py"))
    }


def template_sources() -> dict[str, str]:
    files = render("surface-check", None, GOOFSPIEL)
    return {f"template {name}": text for name, text in files.items() if name.endswith(".py")}


def test_the_examples_and_the_template_are_found():
    # Guards the test below against passing on nothing (a moved folder, a renamed template).
    assert {"examples/games/goofspiel/agents.py", "examples/games/goofspiel/game.py"} <= set(
        example_sources()
    )
    assert {"template surface_check/__init__.py", "template tests/test_surface_check.py"} == set(
        template_sources()
    )


@pytest.mark.parametrize("name", sorted({**example_sources(), **template_sources()}))
def test_imports_tlachtli_only_through_arena_bot(name):
    source = {**example_sources(), **template_sources()}[name]
    allowed = {"arena.bot"} | OTHER_SURFACES.get(name, set())
    assert set(arena_imports(source, name)) <= allowed, f"{name} imports past arena.bot"


def test_the_checker_sees_imports_past_arena_bot():
    source = "import arena.wire.agent\ndef f():\n    from plugins.random_agent import RandomAgent\nfrom arena.bot import Agent\n"
    assert sorted(arena_imports(source, "x.py")) == ["arena.bot", "arena.wire.agent", "plugins.random_agent"]


def test_every_exported_name_exists_and_nothing_public_is_left_out():
    for name in arena.bot.__all__:
        assert getattr(arena.bot, name) is not None
    public = {name for name in vars(arena.bot) if not name.startswith("_") and name != "annotations"}
    assert public == set(arena.bot.__all__)
    namespace: dict[str, object] = {}
    exec("from arena.bot import *", namespace)
    assert set(arena.bot.__all__) <= set(namespace)


def test_the_view_is_no_longer_called_like_the_engines_decision():
    from engine.api import Decision

    assert arena.bot.DecisionView is not Decision
    assert "Decision" not in arena.bot.__all__


def test_the_old_name_still_works_with_a_deprecation_warning():
    # Bots written by an earlier `arena new-bot` import arena.wire.agent.Decision.
    with pytest.warns(DeprecationWarning, match="arena.bot.DecisionView"):
        old = importlib.import_module("arena.wire.agent").Decision
    assert old is arena.wire.agent.DecisionView
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(AttributeError):
            arena.wire.agent.Nothing  # noqa: B018

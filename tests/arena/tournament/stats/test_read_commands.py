"""Read commands over a store of three ladders: `arena head-to-head A B` (every ladder where both sat,
one table each; a clear line when they never met), `arena matches` when nothing matches."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support import cli

LADDER = """
name = "{name}"
game = "goofspiel"
players = 2
format = "round-robin"
seed = 7
{agents}
"""


def ladder(name: str, *agents: str) -> str:
    listed = "".join(f'\n[[agents]]\nname = "{agent}"\nagent = "random"\noptions = {{ seed = {i} }}\n'
                     for i, agent in enumerate(agents))  # fmt: skip
    return LADDER.format(name=name, agents=listed)


def arena(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return cli.arena(*args, cwd=cwd)  # the read commands in this process: tests/support/cli.py


ROOT = Path(__file__).resolve().parents[4]


@pytest.fixture(scope="module")
def test_plugins():
    """The test game for this module-scoped fixture (conftest's autouse fixture is per test)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TLACHTLI_PLUGINS", "examples.games.goofspiel.game")
        patch.setenv("PYTHONPATH", str(ROOT))
        yield


@pytest.fixture(scope="module")
def three_ladders(tmp_path_factory, test_plugins) -> Path:
    """r1 meets r2 in 'first' and 'third'; r1 meets r3 in 'second', run after 'first'; r2 never meets r3."""
    folder = tmp_path_factory.mktemp("h2h")
    for name, agents in (("first", ("r1", "r2")), ("second", ("r1", "r3")), ("third", ("r1", "r2"))):
        (folder / f"{name}.toml").write_text(ladder(name, *agents))
        ran = arena("run", f"{name}.toml", "--db", "t.db", "--quiet", "--sandbox", "none", cwd=folder)
        assert ran.returncode == 0, ran.stderr
    return folder


def test_every_ladder_where_both_sat_gets_its_table_and_no_other(three_ladders):
    out = arena("head-to-head", "r1", "r2", "--db", "t.db", cwd=three_ladders)
    assert out.returncode == 0, out.stderr
    titles = [line for line in out.stdout.splitlines() if " vs " in line]
    assert titles == ["first: r1 vs r2 in 2 match(es)", "third: r1 vs r2 in 2 match(es)"]
    # The newest ladder is 'third'; 'second' (r1 vs r3) is older than it but newer than 'first'.
    out = arena("head-to-head", "r1", "r3", "--db", "t.db", cwd=three_ladders)
    assert [line for line in out.stdout.splitlines() if " vs " in line] == ["second: r1 vs r3 in 2 match(es)"]


def test_ladder_option_picks_one(three_ladders):
    out = arena("head-to-head", "r2", "r1", "--ladder", "first", "--db", "t.db", cwd=three_ladders)
    assert out.returncode == 0 and out.stdout.splitlines()[0] == "first: r2 vs r1 in 2 match(es)"


def test_agents_that_never_met_get_one_clear_line(three_ladders):
    out = arena("head-to-head", "r2", "r3", "--db", "t.db", cwd=three_ladders)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr == "error: 'r2' and 'r3' never sat in the same finished match in any ladder in t.db\n"
    out = arena("head-to-head", "r1", "r3", "--ladder", "third", "--db", "t.db", cwd=three_ladders)
    assert out.returncode == 2 and "agent 'r3' has no finished match in ladder 'third'" in out.stderr
    out = arena("head-to-head", "r1", "r2", "--ladder", "second", "--db", "t.db", cwd=three_ladders)
    assert out.returncode == 2
    assert "'r1' and 'r2' never sat" not in out.stderr  # r2 is not in 'second' at all: said so
    assert "agent 'r2' has no finished match in ladder 'second'" in out.stderr
    out = arena("head-to-head", "r1", "nobody", "--db", "t.db", cwd=three_ladders)
    assert out.returncode == 2 and "agent 'nobody' has no finished match in any ladder in t.db" in out.stderr


def test_matches_with_nothing_to_show_says_so_in_one_line(three_ladders):
    out = arena("matches", "--faults", "--db", "t.db", cwd=three_ladders)
    assert out.returncode == 0 and out.stdout == "no faults in ladder 'third'\n", out.stdout
    out = arena("matches", "--agent", "r3", "--ladder", "first", "--db", "t.db", cwd=three_ladders)
    assert out.stdout == "no matches in ladder 'first' for agent 'r3'\n"
    out = arena("matches", "--ladder", "first", "--db", "t.db", cwd=three_ladders)
    assert len(out.stdout.splitlines()) == 2 + 2  # the header, its rule and both matches

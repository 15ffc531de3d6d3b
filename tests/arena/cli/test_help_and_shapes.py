"""What a newcomer reads first: `--help` wrapped to the terminal and true about defaults, one shape
for "which ladder" and "which database", tables that fit 100 columns, `arena ladder add`'s check."""

from __future__ import annotations

import re

import pytest

from arena.cli.help_text import reflow
from tests.support.cli import arena_in_process as arena


def test_a_docstring_paragraph_becomes_one_line_and_lists_and_examples_keep_theirs():
    text = """First line.

    A paragraph wrapped
    in the source at any width.
    - an item
    - another

    Example: arena play -g zapotec
    Example: arena run x.toml
    """
    assert reflow(text) == (
        "First line.\n\nA paragraph wrapped in the source at any width.\n- an item\n- another\n\n"
        "Example: arena play -g zapotec\nExample: arena run x.toml"
    )


@pytest.mark.parametrize("command", ["run", "play", "compare", "leaderboard", "check"])
def test_help_wraps_to_an_80_column_terminal_without_ragged_lines(monkeypatch, command):
    monkeypatch.setenv("COLUMNS", "80")
    shown = arena(command, "--help")
    assert shown.returncode == 0, shown.stderr
    prose = shown.stdout.split("╭")[0].splitlines()  # the description, above the option panels
    assert max(map(len, prose)) <= 80
    # a line cut short mid-paragraph (the source's wrapping) is followed by a line of the same paragraph
    for line, after in zip(prose, prose[1:], strict=False):
        if line.strip() and after.strip() and not after.strip().startswith(("Example", "-")):
            assert len(line.rstrip()) > 45, (line, after)


def test_sandbox_defaults_are_stated_truthfully():
    for command in ("play", "check"):
        text = " ".join(arena(command, "--help").stdout.split())
        assert "the ladder's" not in text and "bwrap where it works" in text, command
    assert "else the ladder's" in " ".join(arena("run", "--help").stdout.split())


def test_leaderboard_and_doctor_take_ladder_and_db_as_the_other_commands_do(tmp_path):
    missing = str(tmp_path / "none.db")
    for args in (["leaderboard", "-l", "x", "--db", missing], ["leaderboard", "x", "--db", missing]):
        assert arena(*args).stderr.startswith(f"error: no database at {missing}")  # both shapes taken
    both = arena("leaderboard", "x", "-l", "y", "--db", missing)
    assert both.returncode == 2 and both.stderr == "error: give the ladder once: --ladder y or x, not both\n"
    for args in (["doctor", "--db", missing], ["doctor", missing]):
        assert arena(*args).stdout.startswith(f"problem: {missing}: no such file")
    help_text = arena("leaderboard", "--help").stdout
    assert "--ladder" in help_text and "--wide" in help_text


def test_arena_agents_fits_100_columns_unless_wide():
    narrow, wide = arena("agents").stdout.splitlines(), arena("agents", "--wide").stdout.splitlines()
    assert max(map(len, narrow)) <= 100 < max(map(len, wide))
    assert narrow[0].split() == ["agent", "games", "kind", "description"] and wide[0].split()[-1] == "plugin"
    assert any(line.endswith("...") for line in narrow) and not any(line.endswith("...") for line in wide)


LADDER = 'name = "grow"\ngame = "goofspiel"\nseed = 4\n'


def entrant(name: str, seed: int) -> str:
    return f'[[agents]]\nname = "{name}"\nagent = "random"\noptions = {{ seed = {seed} }}\n'


def test_ladder_add_refuses_a_retired_name_as_another_agent(tmp_path):
    ladder, db = tmp_path / "grow.toml", tmp_path / "grow.db"
    ladder.write_text(LADDER + entrant("r1", 1) + entrant("r2", 2) + entrant("gone", 3))
    played = arena("run", str(ladder), "--db", str(db), "-q", "--jobs", "1")
    assert played.returncode == 0, played.stderr
    ladder.write_text(LADDER + entrant("r1", 1) + entrant("r2", 2))
    assert arena("run", str(ladder), "--db", str(db), "-q", "--jobs", "1").returncode == 0  # "gone" retired
    before = ladder.read_text()
    refused = arena("ladder", "add", str(ladder), "gone=random", "--db", str(db))
    assert refused.returncode == 2 and len(refused.stderr.splitlines()) == 1
    assert re.match(
        r"error: agent 'gone' was 'random' with options \{.*\} and is now 'random'", refused.stderr
    )
    assert "enter it under a new name" in refused.stderr and "the file is unchanged" in refused.stderr
    assert ladder.read_text() == before
    fresh = arena("ladder", "add", str(ladder), "back=random", "--db", str(db))
    assert fresh.returncode == 0, fresh.stderr  # a new name is entered

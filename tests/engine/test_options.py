"""The one option check shared by games' option schemas and agents' declared options."""

import pytest

from engine.options import (
    BadOptions,
    check_schema,
    markdown_table,
    nearest,
    option_rows,
    parse_value,
    validate_options,
)

SCHEMA = {
    "iterations": {"type": "int", "default": None, "min": 1, "help": "iterations a decision"},
    "exploration": {"type": "float", "default": 0.7, "min": 0, "help": "the UCB constant"},
    "epsilon": {"type": "float", "default": 0.6, "min": 0, "max": 1, "help": "random share"},
    "scale": {"type": "float", "default": None, "above": 0, "help": "a margin"},
    "policy": {"type": "str", "default": "random", "choices": ["random", "mast"], "help": "playouts"},
    "reuse": {"type": "bool", "default": True, "help": "keep the tree"},
}


def test_an_agents_options_are_returned_as_given_without_defaults():
    assert validate_options(SCHEMA, {"iterations": 5}, complete=False) == {"iterations": 5}
    assert validate_options(SCHEMA, {}, complete=False) == {}
    # a game's are completed with every default
    assert validate_options(SCHEMA, {"iterations": 5})["policy"] == "random"


def test_a_misspelt_option_names_the_nearest_declared_one():
    with pytest.raises(BadOptions, match="unknown option 'iteratons': did you mean 'iterations'"):
        validate_options(SCHEMA, {"iteratons": 2000}, complete=False)
    assert nearest("polcy", SCHEMA) == "policy"
    # nothing near: every declared name instead
    with pytest.raises(BadOptions, match="unknown option 'zzz'; known options: epsilon, exploration"):
        validate_options(SCHEMA, {"zzz": 1}, complete=False)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"iterations": 0}, "'iterations' must be >= 1, got 0"),
        ({"iterations": 2.5}, "'iterations' must be int, got 2.5"),
        ({"iterations": True}, "'iterations' must be int, got True"),
        ({"iterations": "500"}, "'iterations' must be int, got '500'"),  # a ladder's TOML is typed
        ({"epsilon": 1.5}, "'epsilon' must be within 0..1, got 1.5"),
        ({"scale": 0}, "'scale' must be > 0, got 0.0"),
        ({"exploration": -0.1}, "'exploration' must be >= 0, got -0.1"),
        ({"policy": "smart"}, "'policy' must be one of ['random', 'mast'], got 'smart'"),
        ({"reuse": 1}, "'reuse' must be bool, got 1"),
    ],
)
def test_a_value_of_the_wrong_type_range_or_choice_is_refused(options, message):
    with pytest.raises(BadOptions) as refused:
        validate_options(SCHEMA, options, complete=False)
    assert message in str(refused.value)


def test_an_int_is_a_float_options_value_made_a_float():
    assert validate_options(SCHEMA, {"exploration": 1}, complete=False) == {"exploration": 1.0}


@pytest.mark.parametrize(
    "name, text, value",
    [
        ("iterations", "200", 200),
        ("exploration", "0.25", 0.25),
        ("exploration", "2", 2.0),
        ("policy", "mast", "mast"),
        ("reuse", "false", False),
        ("reuse", "Yes", True),
        ("reuse", "0", False),
    ],
)
def test_a_command_lines_text_becomes_the_declared_type(name, text, value):
    parsed = parse_value(name, SCHEMA[name], text)
    assert parsed == value and type(parsed) is type(value)


@pytest.mark.parametrize(
    "name, text, message",
    [
        ("iterations", "many", "'iterations' must be int, got 'many'"),
        ("iterations", "0", "'iterations' must be >= 1, got 0"),
        ("exploration", "high", "'exploration' must be float, got 'high'"),
        ("epsilon", "2", "'epsilon' must be within 0..1, got 2.0"),
        ("policy", "smart", "must be one of ['random', 'mast']"),
        ("reuse", "maybe", "'reuse' must be true or false, got 'maybe'"),
    ],
)
def test_a_command_lines_text_that_is_not_the_declared_type_is_refused(name, text, message):
    with pytest.raises(BadOptions) as refused:
        parse_value(name, SCHEMA[name], text)
    assert message in str(refused.value)


def test_a_declaration_is_checked_itself():
    assert check_schema(SCHEMA) == []
    problems = check_schema(
        {
            "a": {"type": "integer", "default": 1},
            "b": {"type": "int", "default": "one"},
            "c": {"type": "int", "default": 0, "min": 1},
            "d": {"type": "str", "default": "x", "choise": ["x"]},
        }
    )
    assert problems[0] == "option 'a' needs a 'type' of bool, int, float, str"
    assert "default of option 'b' must be int" in problems[1]
    assert "default of option 'c' must be >= 1" in problems[2]
    assert "option 'd' has unknown keys ['choise']" in problems[3]
    assert check_schema([1, 2]) == ["options must be a dict of option name -> declaration, got list"]


def test_the_options_table_shows_type_default_range_and_meaning():
    rows = {row[0]: row for row in option_rows(SCHEMA)}
    assert rows["iterations"] == ["iterations", "int", "-", ">= 1", "iterations a decision"]
    assert rows["epsilon"][2:4] == ["0.6", "0..1"]
    assert rows["scale"][3] == "> 0"
    assert rows["policy"][3] == "random, mast"
    assert rows["reuse"][2] == "true"
    table = markdown_table(SCHEMA).splitlines()
    assert table[0] == "| option | type | default | allowed | meaning |"
    assert table[2] == "| `iterations` | int | - | >= 1 | iterations a decision |"
    assert len(table) == 2 + len(SCHEMA)

"""Declared options and their check: one format for a game's options and an agent's.

A schema maps each option name to a dict::

    {"type": "int", "default": 2, "min": 1, "max": 6, "help": "plies to look ahead"}

``type`` is "bool", "int", "float" or "str"; ``help`` is one line for people. Optional keys:
``choices`` (the allowed values), ``min``/``max`` (inclusive bounds of an int or float) and
``above`` (an exclusive lower bound: ``above = 0`` for "any number > 0"). ``default`` may be None
where the owner works its default out itself (a bot's default by game), and is then said in
``help``. A game's ``option_schema()`` and an agent's ``AgentSpec.options`` use this format and
are checked by ``validate_options``; ``parse_value`` turns a command line's text into a value.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import Any

Schema = Mapping[str, Mapping[str, Any]]
TYPES: dict[str, type | tuple[type, ...]] = {"bool": bool, "int": int, "float": (int, float), "str": str}
KEYS = {"type", "default", "help", "choices", "min", "max", "above"}
TRUE_WORDS = ("true", "yes", "on", "1")
FALSE_WORDS = ("false", "no", "off", "0")


class BadOptions(ValueError):
    """Options that do not match their owner's option schema."""


def nearest(name: str, known: Iterable[str]) -> str | None:
    """The known name closest to a misspelt ``name`` (``iteratons`` -> ``iterations``), or None."""
    found = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return found[0] if found else None


def unknown_message(name: str, schema: Schema) -> str:
    """Why option ``name`` is refused: not declared; the nearest declared name, else them all."""
    guess = nearest(name, schema)
    if guess is not None:
        return f"unknown option {name!r}: did you mean {guess!r}?"
    return f"unknown option {name!r}; known options: {', '.join(sorted(schema)) or 'none'}"


def allowed(spec: Mapping[str, Any]) -> str:
    """The values an option allows, in a few words ("1..6", ">= 1", "> 0", "win, gain"; "" = any)."""
    if "choices" in spec:
        return ", ".join(str(choice) for choice in spec["choices"])
    low, high = spec.get("min"), spec.get("max")
    if "above" in spec:
        return f"> {spec['above']}" + (f", <= {high}" if high is not None else "")
    if low is not None and high is not None:
        return f"{low}..{high}"
    if low is not None:
        return f">= {low}"
    if high is not None:
        return f"<= {high}"
    return ""


def check_value(name: str, spec: Mapping[str, Any], given: Any) -> Any:
    """``given`` checked against option ``name``'s ``spec`` (a float option's int made a float)."""
    kind = spec["type"]
    value = given
    if given is None and spec.get("default") is None:
        return None  # unset: the owner's own default
    if isinstance(given, bool) and kind != "bool" or not isinstance(given, TYPES[kind]):
        raise BadOptions(f"option {name!r} must be {kind}, got {given!r}")
    if kind == "float":
        value = float(value)  # an int given for a float option
    if "choices" in spec and value not in spec["choices"]:
        raise BadOptions(f"option {name!r} must be one of {list(spec['choices'])}, got {value!r}")
    low, high, above = spec.get("min"), spec.get("max"), spec.get("above")
    if (
        low is not None
        and value < low
        or high is not None
        and value > high
        or above is not None
        and value <= above
    ):
        raise BadOptions(f"option {name!r} must be {describe_bounds(spec)}, got {value!r}")
    return value


def describe_bounds(spec: Mapping[str, Any]) -> str:
    """An option's bounds as its error says them ("within 1..6", ">= 1", "> 0")."""
    text = allowed(spec)
    return f"within {text}" if ".." in text else text


def validate_options(schema: Schema, options: Mapping[str, Any], *, complete: bool = True) -> dict:
    """Check ``options`` against ``schema`` and return them checked.

    With ``complete`` (a game's options) every declared option is returned, the defaults filled
    in; without (an agent's, whose defaults may depend on the game) only those given. Raises
    BadOptions with a message naming the option and what it accepts (and, for an unknown name,
    the nearest known one).
    """
    for name in options:
        if name not in schema:
            raise BadOptions(unknown_message(name, schema))
    names = schema if complete else [name for name in schema if name in options]
    return {
        name: check_value(name, schema[name], options.get(name, schema[name].get("default")))
        for name in names
    }


def parse_value(name: str, spec: Mapping[str, Any], text: str) -> Any:
    """A command line's ``text`` as option ``name``'s declared type, then checked (BadOptions)."""
    return check_value(name, spec, convert(name, spec, text))


def convert(name: str, spec: Mapping[str, Any], text: str) -> Any:
    """A command line's ``text`` as option ``name``'s declared type, unchecked (BadOptions where
    it is not one: "many" for an int)."""
    kind = spec["type"]
    value: Any = text
    try:
        if kind == "int":
            value = int(text)
        elif kind == "float":
            value = float(text)
    except ValueError:
        raise BadOptions(f"option {name!r} must be {kind}, got {text!r}") from None
    if kind == "bool":
        word = text.strip().lower()
        if word not in TRUE_WORDS + FALSE_WORDS:
            raise BadOptions(f"option {name!r} must be true or false, got {text!r}")
        value = word in TRUE_WORDS
    return value


def check_schema(schema: Any) -> list[str]:
    """What is wrong with a declared ``schema`` (empty when nothing): a plugin's mistake, found
    when it registers rather than when a user first passes the option."""
    if not isinstance(schema, Mapping):
        return [f"options must be a dict of option name -> declaration, got {type(schema).__name__}"]
    problems = []
    for name, spec in schema.items():
        if not isinstance(spec, Mapping) or spec.get("type") not in TYPES:
            problems.append(f"option {name!r} needs a 'type' of {', '.join(TYPES)}")
            continue
        extra = set(spec) - KEYS
        if extra:
            problems.append(f"option {name!r} has unknown keys {sorted(extra)}; allowed: {sorted(KEYS)}")
        if not isinstance(spec.get("help", ""), str):
            problems.append(f"option {name!r}: 'help' must be a string")
        try:
            check_value(name, spec, spec.get("default"))
        except BadOptions as error:
            problems.append(f"default of {error}")
    return problems


OPTION_HEADERS = ("option", "type", "default", "allowed", "meaning")


def option_rows(schema: Schema) -> list[list[str]]:
    """One row per declared option (its name, type, default, allowed values, help), as the
    ``arena games``/``arena agents`` tables, the web's agent page and the docs show them."""
    rows = []
    for name, spec in schema.items():
        default = spec.get("default")
        shown = (
            "-" if default is None else str(default).lower() if isinstance(default, bool) else str(default)
        )
        rows.append([name, str(spec["type"]), shown, allowed(spec), str(spec.get("help", ""))])
    return rows


def markdown_table(schema: Schema) -> str:
    """``option_rows`` as a markdown table (the docs' agent option tables are generated by it)."""
    lines = ["| " + " | ".join(OPTION_HEADERS) + " |", "|" + "---|" * len(OPTION_HEADERS)]
    for row in option_rows(schema):
        cells = [cell.replace("|", "\\|") for cell in row]
        cells[0] = f"`{cells[0]}`"
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"

"""The wire messages as types (TypedDicts in arena/wire/protocol.py) say what the run-time tables check."""

from __future__ import annotations

import typing

import pytest

from arena.match.inprocess import decide_message, hello_message
from arena.wire import protocol
from examples.games.goofspiel.game import GAME as GOOFSPIEL

REFEREE_TYPES = [protocol.HelloMessage, protocol.DecideMessage, protocol.EndMessage, protocol.ErrorMessage]
AGENT_TYPES = [protocol.ReadyMessage, protocol.ActMessage, protocol.ErrorMessage]


def message_name(message_type: type) -> str:
    (name,) = typing.get_args(typing.get_type_hints(message_type)["type"])  # Literal["hello"] -> "hello"
    return name


@pytest.mark.parametrize(
    "types, table",
    [(REFEREE_TYPES, protocol.REFEREE_MESSAGES), (AGENT_TYPES, protocol.AGENT_MESSAGES)],
    ids=["referee", "agent"],
)
def test_each_message_type_has_the_fields_and_types_its_table_checks(types, table):
    assert sorted(message_name(t) for t in types) == sorted(table)
    for message_type in types:
        fields = table[message_name(message_type)] | protocol.OPTIONAL_FIELDS.get(
            message_name(message_type), {}
        )
        hints = typing.get_type_hints(message_type)
        assert set(hints) - {"type"} == set(fields), message_type.__name__
        for name, allowed in fields.items():
            runtime = typing.get_origin(hints[name]) or hints[name]
            if typing.is_typeddict(runtime):  # a nested map, e.g. the clock
                runtime = dict
            assert runtime in allowed, f"{message_type.__name__}.{name}: {hints[name]} vs {allowed}"


def test_the_builders_make_messages_their_tables_accept():
    hello = hello_message(GOOFSPIEL, 0, 2, {"cards": 3}, {"seed": 1})
    decide = decide_message(GOOFSPIEL.setup(2, 1, {"cards": 3}), 0, 7)
    assert protocol.check_message(dict(hello), protocol.REFEREE_MESSAGES) == "hello"
    assert protocol.check_message(dict(decide), protocol.REFEREE_MESSAGES) == "decide"
    assert set(hello["clock"]) == set(typing.get_type_hints(protocol.HelloClock))
    assert set(decide["clock"]) == set(typing.get_type_hints(protocol.DecideClock))

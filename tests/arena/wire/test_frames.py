"""The referee's frames are encoded with msgspec (issue 36): the bytes must be msgpack's, exactly."""

from __future__ import annotations

from random import Random

import msgpack
import pytest

from arena.inprocess import decide_message, hello_message
from arena.wire.protocol import HEADER, encode
from engine.teotihuacan import GAME as TEOTIHUACAN
from engine.zapotec import GAME as ZAPOTEC


@pytest.mark.parametrize("game", [ZAPOTEC, TEOTIHUACAN], ids=lambda game: game.id)
def test_every_frame_of_a_game_is_the_bytes_msgpack_writes(game):
    state = game.setup(2, 11, {})
    rng = Random(11)
    messages = [hello_message(game, 0, 2, {}, {"seed": 1})]
    while (seats := state.to_act()) and len(messages) < 400:
        message = decide_message(state, seats[0], len(messages))
        messages.append(message)
        state.apply(seats[0], rng.randrange(len(message["options"])))
    messages.append({"type": "end", "result": {"scores": [1, -2], "ranks": [1, 2]}, "reason": "finished"})
    for message in messages:
        body = msgpack.packb(message, use_bin_type=True)
        assert encode(message) == HEADER.pack(len(body)) + body


def test_edge_values_are_the_bytes_msgpack_writes():
    message = {
        "type": "x",
        "ints": [0, -1, 127, 128, -33, 2**31, -(2**63), 2**64 - 1],
        "floats": [0.5, -1e300, 1.0],
        "text": ["", "é", "a" * 40, "b" * 300, "c" * 70000],
        "bin": b"\x00\xff",
        "nested": {"none": None, "true": True, "false": False, "list": [[], {}]},
        "tuple": (1, 2),
    }
    body = msgpack.packb(message, use_bin_type=True)
    assert encode(message) == HEADER.pack(len(body)) + body

"""The wire's codec: frames are encoded by msgspec and a host decodes the referee's
frames with it, faster than msgpack, with the very same bytes on the wire, so that bots of any
language, and the referee's own msgpack decoder of agents' frames, see nothing change."""

from __future__ import annotations

from random import Random
from typing import Any

import msgpack
import pytest

from arena.match.inprocess import decide_message, hello_message
from arena.wire import protocol
from arena.wire.protocol import ProtocolError, act_message, decode_body, encode
from engine.playout import random_choice
from engine.teotihuacan import GAME as TEOTIHUACAN
from engine.zapotec import GAME as ZAPOTEC


def played_messages(game: Any, seeds: range) -> list[dict[str, Any]]:
    """Every hello, decide, act and end of random games of ``game``, as the referee sends them."""
    messages: list[dict[str, Any]] = []
    for seed in seeds:
        state = game.setup(2, seed, {})
        messages += [dict(hello_message(game, seat, 2, {}, {"seed": seat})) for seat in range(2)]
        rng, steps = Random(seed), 0
        while seats := state.to_act():
            steps += 1
            messages.append(dict(decide_message(state, seats[0], steps)))
            choice = random_choice(state, seats[0], rng)
            messages.append(dict(act_message(steps, choice, info=f"value {choice / 3:.3f}")))
            state.apply(seats[0], choice)
        result = state.result()
        messages.append(
            {"type": "end", "result": {"scores": list(result.scores), "ranks": list(result.ranks)}}
        )
    return messages


@pytest.fixture(params=["msgspec", "plain"])
def codec(request, monkeypatch):
    """Both codecs a process may use: msgspec (the default) and msgpack alone (``plain_codec()``,
    an exec'd agent's host)."""
    if request.param == "plain":
        monkeypatch.setattr(protocol, "_use_msgspec", False)
    return request.param


@pytest.mark.parametrize("game", [ZAPOTEC, TEOTIHUACAN], ids=lambda game: game.id)
def test_frames_are_the_bytes_msgpack_makes_and_read_back_as_msgpack_reads_them(game, codec):
    messages = played_messages(game, range(2))
    assert sum(message["type"] == "decide" for message in messages) > 50
    for message in messages:
        body = msgpack.packb(message, use_bin_type=True)
        assert encode(message)[4:] == body
        assert decode_body(body, deep=False, from_referee=True) == msgpack.unpackb(body, raw=False)


def test_a_hosts_decoder_refuses_what_the_referees_refuses(codec):
    for body in (
        msgpack.packb({"type": "end"}) + b"\x00",  # bytes after the map
        msgpack.packb([1, 2]),  # not a map
        msgpack.packb({1: "x"}, strict_types=False),  # a key that is no string
        msgpack.packb({"type": msgpack.ExtType(5, b"x")}),  # an extension type
        b"\xc1",  # never valid msgpack
    ):
        for from_referee in (False, True):
            with pytest.raises(ProtocolError) as error:
                decode_body(body, deep=False, from_referee=from_referee)
            assert error.value.kind == "bad-frame", body

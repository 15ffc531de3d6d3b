"""The wire codec: round trips, and every malformed input rejected with the right fault name."""

from __future__ import annotations

import io
import json
import struct
import subprocess
import sys

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.wire.agent import Agent
from arena.wire.host import serve
from arena.wire.protocol import (
    AGENT_MESSAGES,
    HEADER,
    REFEREE_MESSAGES,
    FrameBuffer,
    PeerClosed,
    ProtocolError,
    check_message,
    decode_body,
    encode,
    read_frame,
)

scalars = (
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.floats(allow_nan=False) | st.text()
)
values = st.recursive(
    scalars | st.binary(max_size=20),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=30,
)
maps = st.dictionaries(st.text(max_size=8), values, max_size=6)


def kind_of(error: pytest.ExceptionInfo) -> str:
    return error.value.kind


@given(maps, st.lists(st.integers(1, 50), max_size=20))
@settings(max_examples=150, deadline=None)
def test_frames_round_trip_through_any_chunking(message, cuts):
    frames = encode(message) * 2
    buffer = FrameBuffer(limit=1 << 20)
    bodies, position = [], 0
    for size in [*cuts, len(frames)]:
        buffer.feed(frames[position : position + size])
        position += size
        while (body := buffer.next_body()) is not None:
            bodies.append(decode_body(body))
    assert bodies == [message, message] and not buffer.pending


@given(maps)
@settings(max_examples=50, deadline=None)
def test_blocking_read_round_trips(message):
    stream = io.BytesIO(encode(message) + encode({"type": "end"}))
    assert read_frame(stream, 1 << 20) == message
    assert read_frame(stream, 1 << 20) == {"type": "end"}
    with pytest.raises(PeerClosed) as closed:
        read_frame(stream, 1 << 20)
    assert not closed.value.partial


@given(st.binary(max_size=200))
@settings(max_examples=300, deadline=None)
def test_arbitrary_bytes_are_a_map_or_a_bad_frame(body):
    try:
        message = decode_body(body)
    except ProtocolError as error:
        assert error.kind == "bad-frame"
    else:
        assert isinstance(message, dict) and all(isinstance(k, str) for k in message)


@given(maps, st.integers(1, 10**6))
@settings(max_examples=50, deadline=None)
def test_truncated_frame_is_a_partial_close(message, cut):
    frame = encode(message)
    cut = min(cut, len(frame) - 1)
    with pytest.raises(PeerClosed) as closed:
        read_frame(io.BytesIO(frame[:cut]), 1 << 20)
    assert closed.value.partial


@pytest.mark.parametrize(
    "body, fragment",
    [
        (msgpack.packb([1, 2]), "must hold a msgpack map"),
        (msgpack.packb(7), "must hold a msgpack map"),
        (msgpack.packb({1: "a"}), "map key 1 is not a string"),
        (msgpack.packb({"a": {b"k": 1}}), "is not a string"),
        (msgpack.packb({"a": msgpack.ExtType(5, b"x")}), "extension type 5"),
        (msgpack.packb({"a": msgpack.Timestamp(1)}), "Timestamp"),
        (msgpack.packb({"a": 1}) + b"\x01", "left over"),
        (b"\x81\xa1a\xa2\xff\xfe", "not valid msgpack"),  # invalid UTF-8 string
        (b"\xc1", "not valid msgpack"),  # a byte msgpack never uses
        (b"\x82\xa1a", "not valid msgpack"),  # cut short
        (b"", "not valid msgpack"),
    ],
)
def test_malformed_bodies_are_bad_frames(body, fragment):
    with pytest.raises(ProtocolError) as error:
        decode_body(body)
    assert kind_of(error) == "bad-frame" and fragment in str(error.value)


class CountingStream(io.BytesIO):
    """Records how many bytes were asked for, to prove a body is never read when too long."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.asked: list[int] = []

    def read(self, size: int = -1) -> bytes:
        self.asked.append(size)
        return super().read(size)


def test_oversized_frame_is_refused_before_its_body_is_read():
    stream = CountingStream(HEADER.pack(2_000_000) + b"\x00" * 100)
    with pytest.raises(ProtocolError) as error:
        read_frame(stream, 1 << 20)
    assert kind_of(error) == "oversized-frame" and stream.asked == [4]
    buffer = FrameBuffer(limit=1000)
    buffer.feed(struct.pack(">I", 1001))
    with pytest.raises(ProtocolError, match="1001 bytes over the 1000-byte limit"):
        buffer.next_body()


def test_text_on_stdout_gets_a_hint():
    buffer = FrameBuffer(limit=1 << 20)
    buffer.feed(b"Thinking...\n")
    with pytest.raises(ProtocolError, match="print to stdout"):
        buffer.next_body()


@pytest.mark.parametrize(
    "message, kind, fragment",
    [
        ({"choice": 1}, "bad-frame", "no string field 'type'"),
        ({"type": 3}, "bad-frame", "no string field 'type'"),
        ({"type": "ponder"}, "unknown-type", "unknown message type 'ponder'"),
        ({"type": "decide", "id": 1}, "unknown-type", "unknown message type 'decide'"),
        ({"type": "act", "id": 1}, "bad-frame", "lacks field 'choice'"),
        ({"type": "act", "id": 1, "choice": 0, "why": "x"}, "bad-frame", "unknown field 'why'"),
        ({"type": "act", "id": 1, "choice": True}, "bad-frame", "'choice' must be int"),
        ({"type": "act", "id": 1, "choice": 1.0}, "bad-frame", "'choice' must be int"),
        ({"type": "act", "id": "1", "choice": 0}, "bad-frame", "'id' must be int"),
        ({"type": "ready", "name": "x", "version": 2}, "bad-frame", "'version' must be str"),
        ({"type": "error"}, "bad-frame", "lacks field 'message'"),
    ],
)
def test_agent_messages_are_checked_strictly(message, kind, fragment):
    with pytest.raises(ProtocolError) as error:
        check_message(message, AGENT_MESSAGES)
    assert kind_of(error) == kind and fragment in str(error.value)


def test_valid_messages_pass():
    assert check_message({"type": "act", "id": 4, "choice": 0}, AGENT_MESSAGES) == "act"
    assert check_message({"type": "ready", "name": "a", "version": "1"}, AGENT_MESSAGES) == "ready"
    assert check_message({"type": "end", "result": {}, "reason": "finished"}, REFEREE_MESSAGES) == "end"


HELLO = {
    "type": "hello",
    "protocol": 1,
    "game": "goofspiel",
    "game_version": "1",
    "seat": 1,
    "players": 2,
    "options": {},
    "clock": {"move_ms": 100, "bank_ms": 0},
    "agent_options": {},
}


def decide(id_: int, options: int) -> dict:
    return {
        "type": "decide",
        "id": id_,
        "obs": {"round": 0},
        "kind": "bid",
        "prompt": "Bid",
        "options": [{"label": str(i)} for i in range(options)],
        "clock": {"move_ms": 100, "bank_ms_left": 0},
    }


class Last(Agent):
    def setup(self, hello):
        self.seen = [hello["seat"]]

    def act(self, observation, decision):
        return len(decision["options"]) - 1

    def end(self, result):
        self.seen.append(result["ranks"])


def frames(data: bytes) -> list[dict]:
    stream, out = io.BytesIO(data), []
    while True:
        try:
            out.append(read_frame(stream, 1 << 20))
        except PeerClosed:
            return out


def test_host_speaks_for_a_python_agent():
    agent = Last()
    end = {"type": "end", "result": {"scores": [1, 2], "ranks": [2, 1]}, "reason": "finished"}
    inp = io.BytesIO(encode(HELLO) + encode(decide(1, 3)) + encode(decide(2, 2)) + encode(end))
    out = io.BytesIO()
    assert serve(agent, "last", "7", inp, out) == 0
    assert frames(out.getvalue()) == [
        {"type": "ready", "name": "last", "version": "7"},
        {"type": "act", "id": 1, "choice": 2},
        {"type": "act", "id": 2, "choice": 1},
    ]
    assert agent.seen == [1, [2, 1]]


def test_host_reports_a_bot_exception_as_an_error_message():
    class Broken(Agent):
        def act(self, observation, decision):
            raise KeyError("oops")

    out = io.BytesIO()
    assert serve(Broken(), "broken", "1", io.BytesIO(encode(HELLO) + encode(decide(1, 2))), out) == 1
    ready, error = frames(out.getvalue())
    assert error["type"] == "error" and "KeyError" in error["message"]


# `python -m arena.wire.host` as the referee execs it, reporting afterwards which modules it imported.
EXECD_HOST = """
import json, sys
from arena.wire import host
status = host.main(sys.argv[1:])
loaded = ["msgspec", "importlib.metadata", "plugins.bots.ismcts", "plugins.random_agent"]
print(json.dumps({"status": status, "loaded": [name for name in loaded if name in sys.modules]}), file=sys.stderr)
"""


@pytest.mark.parametrize(
    ("args", "loaded"),
    [
        # told its plugin: that module alone, and msgpack alone for its frames (~120 ms of CPU a
        # start instead of ~230: the installed distributions' metadata, every plugin and msgspec)
        (["random", "plugins.random_agent"], ["plugins.random_agent"]),
        # a plugin that is not there (or does not offer the agent): every plugin, as before; the
        # entry points come from the metadata (importlib.metadata) unless an earlier process of
        # the suite kept them for this sys.path (arena/registry/plugins.py), so that import may be either
        (
            ["random", "no_such_plugin_module"],
            ["importlib.metadata?", "plugins.bots.ismcts", "plugins.random_agent"],
        ),
    ],
)
def test_an_execd_host_imports_its_agents_plugin_alone(args, loaded):
    end = {"type": "end", "result": {"scores": [1, 2], "ranks": [2, 1]}, "reason": "finished"}
    played = subprocess.run(
        [sys.executable, "-c", EXECD_HOST, *args],
        input=encode(HELLO) + encode(decide(1, 3)) + encode(end),
        capture_output=True,
        timeout=60,
    )
    report = json.loads(played.stderr.decode().strip().splitlines()[-1])
    either = [name.rstrip("?") for name in loaded if name.endswith("?")]
    required = [name for name in loaded if not name.endswith("?")]
    seen = [name for name in report["loaded"] if name not in either]
    assert (report["status"], seen) == (0, required), played.stderr.decode()
    ready, act = frames(played.stdout)
    assert ready == {"type": "ready", "name": "random", "version": ready["version"]}
    assert act["type"] == "act" and act["id"] == 1 and act["choice"] in range(3)


def _example_bot():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[3] / "examples" / "bots" / "first_option.py"
    spec = importlib.util.spec_from_file_location("first_option", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


EXAMPLE_BOT = _example_bot()


@given(maps)
@settings(max_examples=150, deadline=None)
def test_the_stdlib_example_bot_codec_agrees_with_msgpack(message):
    assert msgpack.unpackb(EXAMPLE_BOT.pack(message), raw=False) == message
    assert EXAMPLE_BOT.unpack(msgpack.packb(message, use_bin_type=True)) == message

"""Wire protocol v1: frames (4-byte big-endian length + one msgpack map) and the message schema.

Transport-free: this module turns messages into bytes and bytes into checked messages. The
referee (trio, arena/match/referee.py) and the agent host (blocking pipes, arena/wire/host.py) both use it.
Every violation raises ``ProtocolError`` whose ``kind`` is a fault name from ``arena.wire.faults``.
The format is documented for bot authors in docs/protocol.md.
"""

from __future__ import annotations

import functools
import operator
import struct
from collections.abc import Mapping
from typing import Any, BinaryIO, Literal, NotRequired, TypedDict

import msgpack

from arena.text.safe import printable
from arena.wire.faults import AgentFault

PROTOCOL_VERSION = 1
HEADER = struct.Struct(">I")
AGENT_FRAME_LIMIT = 1 << 20  # the referee's limit on a frame from an agent (1 MiB)
REFEREE_FRAME_LIMIT = 64 << 20  # the host's limit on a frame from the referee (observations)
READY_TEXT_LIMIT = 64  # characters of an agent's `ready` name and version (copied into every record)
INFO_LIMIT = 2048  # characters of an `act`'s info text kept in the record; the rest is cut off
INFO_CUT = " [...]"  # ends an info text that was cut

# type -> {field: allowed python types}. Every field is required and no other field is allowed.
_INT = (int,)
_STR = (str,)
_MAP = (dict,)
_LIST = (list,)
REFEREE_MESSAGES: dict[str, dict[str, tuple[type, ...]]] = {
    "hello": {
        "protocol": _INT,
        "game": _STR,
        "game_version": _STR,
        "seat": _INT,
        "players": _INT,
        "options": _MAP,
        "clock": _MAP,
        "agent_options": _MAP,
    },
    "decide": {
        "id": _INT,
        "obs": _MAP,
        "kind": _STR,
        "prompt": _STR,
        "options": _LIST,
        "clock": _MAP,
    },
    "end": {"result": _MAP, "reason": _STR},
    "error": {"message": _STR},
}
AGENT_MESSAGES: dict[str, dict[str, tuple[type, ...]]] = {
    "ready": {"name": _STR, "version": _STR},
    "act": {"id": _INT, "choice": _INT},
    "error": {"message": _STR},
}
# Fields a message may leave out (typed like the required ones when present).
OPTIONAL_FIELDS: dict[str, dict[str, tuple[type, ...]]] = {"act": {"info": _STR}}


# The messages as types (what the tables above check at run time; tests/arena/wire/test_protocol.py
# keeps the two in step). A message read from the wire is a plain dict until check_message passed it.


class HelloClock(TypedDict):
    """The clock a ``hello`` announces: ``move_ms`` per decision, a ``bank_ms`` bank for the game."""

    move_ms: int
    bank_ms: int


class DecideClock(TypedDict):
    """The clock of one ``decide``: ``move_ms`` for it, then ``bank_ms_left`` of the bank."""

    move_ms: int
    bank_ms_left: int


class HelloMessage(TypedDict):
    """referee -> agent, first: the match the agent is about to play."""

    type: Literal["hello"]
    protocol: int
    game: str
    game_version: str
    seat: int
    players: int
    options: dict[str, Any]
    clock: HelloClock
    agent_options: dict[str, Any]


class DecideMessage(TypedDict):
    """referee -> agent: decision ``id``, what the seat sees (``obs``) and the legal ``options``."""

    type: Literal["decide"]
    id: int
    obs: dict[str, Any]
    kind: str
    prompt: str
    options: list[dict[str, Any]]
    clock: DecideClock


class EndMessage(TypedDict):
    """referee -> agent, last: ``result`` holds ``scores`` and ``ranks``, ``reason`` why it ended."""

    type: Literal["end"]
    result: dict[str, Any]
    reason: str


class ErrorMessage(TypedDict):
    """Either side: something went wrong, in words."""

    type: Literal["error"]
    message: str


class ReadyMessage(TypedDict):
    """agent -> referee, after ``hello``: its name and version (copied into the record)."""

    type: Literal["ready"]
    name: str
    version: str


class ActMessage(TypedDict):
    """agent -> referee: the index of the chosen option of decision ``id``."""

    type: Literal["act"]
    id: int
    choice: int
    info: NotRequired[str]  # the bot's own view of its move (OPTIONAL_FIELDS)


class ProtocolError(AgentFault):
    """A frame or message that breaks the protocol; ``kind`` names the fault."""


class PeerClosed(Exception):
    """The other side closed the pipe; ``partial`` is True when it stopped inside a frame."""

    def __init__(self, partial: bool) -> None:
        super().__init__("pipe closed inside a frame" if partial else "pipe closed")
        self.partial = partial


def encode(message: Mapping[str, Any]) -> bytes:
    """One frame holding ``message`` (a map with str keys and msgpack-able values).

    Encoded by msgspec: the same bytes as ``msgpack.packb(message, use_bin_type=True)`` for the
    protocol's values (tests/arena/wire/test_codec.py), in about half the time (a ``decide``);
    by msgpack itself after ``plain_codec()``.
    """
    body = msgspec_codec()[0].encode(message) if _use_msgspec else msgpack.packb(message, use_bin_type=True)
    return HEADER.pack(len(body)) + body


def check_length(length: int, limit: int, head: bytes) -> None:
    """Reject an announced body length over ``limit`` before any of the body is read."""
    if length > limit:
        hint = ""
        if head and all(32 <= b < 127 or b in (9, 10, 13) for b in head):
            hint = f" (the header reads as text {head.decode('ascii')!r}: does the agent print to stdout?)"
        raise ProtocolError("oversized-frame", f"frame of {length} bytes over the {limit}-byte limit{hint}")


def _reject_ext(code: int, data: bytes | memoryview) -> Any:
    raise ProtocolError("bad-frame", f"msgpack extension type {code} is not allowed")


_use_msgspec = True


@functools.cache
def msgspec_codec() -> tuple[Any, Any]:
    """msgspec's encoder, and its decoder of a referee's frames: imported at first use (a zygote
    calls it before it forks its children)."""
    import msgspec

    return msgspec.msgpack.Encoder(), msgspec.msgpack.Decoder(ext_hook=_reject_ext)


def plain_codec() -> None:
    """Read and write frames with msgpack alone in this process (the same bytes and values).

    For an agent process exec'd for one match: importing msgspec costs it ~50 ms of CPU at its
    start, more than msgspec saves over the match's frames (~2 ms). A zygote imports it once for
    all its children (arena/process/zygote.py).
    """
    global _use_msgspec
    _use_msgspec = False


def decode_body(body: bytes, deep: bool = True, from_referee: bool = False) -> dict[str, Any]:
    """The msgpack map in ``body``: exactly one object, a map with str keys, no extension types.

    ``deep=False`` skips walking nested values (the host trusts the referee's observations).
    ``from_referee``: a referee's frame, read by an agent's host: decoded by msgspec, faster on a
    large ``decide`` (by msgpack after ``plain_codec()``); the referee reads its agents' frames with
    msgpack, whose errors its faults quote.
    """
    try:
        if from_referee and _use_msgspec:
            message = msgspec_codec()[1].decode(body)
        else:
            message = msgpack.unpackb(body, raw=False, strict_map_key=False, ext_hook=_reject_ext)
    except ProtocolError:
        raise
    except msgpack.ExtraData:
        raise ProtocolError("bad-frame", "bytes left over after the msgpack object") from None
    except Exception as error:  # msgpack raises several types (ValueError, UnicodeDecodeError, ...)
        why = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
        raise ProtocolError(
            "bad-frame", f"not valid msgpack ({why}); the frame's {len(body)} bytes start {body[:16]!r}"
        ) from None
    if not isinstance(message, dict):
        raise ProtocolError("bad-frame", f"a frame must hold a msgpack map, not {type(message).__name__}")
    if deep:
        _check_plain(message)
    elif not all(isinstance(key, str) for key in message):
        raise ProtocolError("bad-frame", "a top-level map key is not a string")
    return message


def _check_plain(value: Any) -> None:
    """Only nil, bool, int, float, str, bin, array and map with str keys (no timestamp extension)."""
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise ProtocolError("bad-frame", f"map key {key!r} is not a string")
            _check_plain(item)
    elif isinstance(value, list):
        for item in value:
            _check_plain(item)
    elif value is not None and not isinstance(value, bool | int | float | str | bytes):
        raise ProtocolError("bad-frame", f"value of type {type(value).__name__} is not allowed")


def check_message(message: dict[str, Any], schema: Mapping[str, Mapping[str, tuple[type, ...]]]) -> str:
    """Check ``message`` against ``schema`` (REFEREE_MESSAGES or AGENT_MESSAGES); return its type."""
    kind = message.get("type")
    if not isinstance(kind, str):
        raise ProtocolError("bad-frame", "message has no string field 'type'")
    fields = schema.get(kind)
    if fields is None:
        raise ProtocolError(
            "unknown-type", f"unknown message type {kind!r}; expected one of {', '.join(schema)}"
        )
    optional = OPTIONAL_FIELDS.get(kind, {}) if schema is AGENT_MESSAGES else {}
    extra = sorted(set(message) - set(fields) - set(optional) - {"type"})
    if extra:
        raise ProtocolError("bad-frame", f"{kind!r} message has unknown field {extra[0]!r}")
    present = {key: types for key, types in optional.items() if key in message}
    for name, types in {**fields, **present}.items():
        if name not in message:
            raise ProtocolError("bad-frame", f"{kind!r} message lacks field {name!r}")
        value = message[name]
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            raise ProtocolError(
                "bad-frame", f"{kind!r} field {name!r} must be {types[0].__name__}, got {value!r:.40}"
            )
    return kind


class FrameBuffer:
    """Incremental frame parser for a non-blocking reader: ``feed`` bytes, take ``frames``.

    The announced length is checked against ``limit`` as soon as the 4-byte header is in, so an
    oversized frame is refused without buffering its body.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._data = bytearray()

    def feed(self, data: bytes) -> None:
        self._data += data

    def next_body(self) -> bytes | None:
        """The next complete frame's body, or None if more bytes are needed."""
        data = self._data
        if len(data) < HEADER.size:
            return None
        (length,) = HEADER.unpack_from(data)
        check_length(length, self.limit, bytes(data[: HEADER.size]))
        end = HEADER.size + length
        if len(data) < end:
            return None
        body = bytes(data[HEADER.size : end])
        del data[:end]
        return body

    @property
    def pending(self) -> bool:
        """True when part of a frame is buffered (so a close now cuts a frame)."""
        return bool(self._data)


def read_frame(stream: BinaryIO, limit: int, deep: bool = True, from_referee: bool = False) -> dict[str, Any]:
    """Blocking read of one frame's map from ``stream``; raises PeerClosed at end of input.
    ``deep``, ``from_referee``: as ``decode_body``'s."""
    header = stream.read(HEADER.size)
    if len(header) < HEADER.size:
        raise PeerClosed(partial=bool(header))
    (length,) = HEADER.unpack(header)
    check_length(length, limit, header)
    body = stream.read(length)
    if len(body) < length:
        raise PeerClosed(partial=True)
    return decode_body(body, deep, from_referee)


def write_frame(stream: BinaryIO, message: Mapping[str, Any]) -> None:
    """Blocking write of one frame, flushed."""
    stream.write(encode(message))
    stream.flush()


# -- session rules: one place for the referee (wire bots) and in-process play (Python bots) ----


def act_message(message_id: int, choice: Any, info: str | None = None) -> ActMessage:
    """The ``act`` a Python agent's return value becomes (arena.wire.host, arena.match.inprocess), with the
    agent's ``info`` text when it gave one.

    Only an int (or an int-like such as numpy's, never a bool) is an index; anything else is
    carried as it came (or its repr, when msgpack cannot carry it), so ``check_reply`` refuses it
    by the same rule as the same bytes from a wire bot.
    """
    if not isinstance(choice, bool) and hasattr(choice, "__index__"):
        choice = operator.index(choice)
    elif choice is not None and not isinstance(choice, bool | float | str | bytes):
        choice = repr(choice)[:100]
    message: ActMessage = {"type": "act", "id": message_id, "choice": choice}
    if info is not None:
        message["info"] = info if isinstance(info, str) else repr(info)[:100]
    return message


def reply_info(reply: dict[str, Any]) -> str | None:
    """The ``info`` text of a checked ``act``, as the record keeps it: its first INFO_LIMIT
    characters, every control or format character escaped (arena/text/safe.py), INFO_CUT appended
    when it was longer; None when it sent none (or an empty one)."""
    info = reply.get("info")
    if not info:
        return None
    text = printable(info[:INFO_LIMIT])
    if len(info) > INFO_LIMIT or len(text) > INFO_LIMIT:
        text = text[:INFO_LIMIT] + INFO_CUT
    return text


def check_ready(ready: dict[str, Any]) -> tuple[str, str]:
    """(name, version) of an agent's checked ``ready`` message: each at most READY_TEXT_LIMIT
    printable characters (no control codes), else a ``bad-frame`` fault."""
    for field in ("name", "version"):
        value = ready[field]
        if len(value) > READY_TEXT_LIMIT or not value.isprintable():
            raise ProtocolError(
                "bad-frame",
                f"'ready' field {field!r} must be at most {READY_TEXT_LIMIT} printable characters "
                f"(got {len(value)} characters starting {value[:20]!r})",
            )
    return ready["name"], ready["version"]


def check_reply(reply: dict[str, Any], decision_id: int, options: int) -> int:
    """The choice in an agent's answer to decision ``decision_id`` with ``options`` options.

    An ``error`` message, a message that is not an ``act``, another id or a choice that is not an
    int in range raises the fault, its detail saying what came back.
    """
    kind = check_message(reply, AGENT_MESSAGES)  # types every field: a bool or "1" is no int
    if kind == "error":
        raise AgentFault("error", reply["message"][:300])
    if kind != "act":
        raise ProtocolError("unknown-type", f"expected 'act', got {kind!r}")
    if reply["id"] != decision_id:
        raise ProtocolError(
            "wrong-id", f"act id {reply['id']} answers no pending decision (expected {decision_id})"
        )
    choice = reply["choice"]
    if not 0 <= choice < options:
        raise ProtocolError("illegal-choice", f"choice {choice} is not in 0..{options - 1}")
    return choice


def unsolicited(message: dict[str, Any] | None) -> ProtocolError:
    """The fault of an agent that sent ``message`` (None: not one whole frame) before it was asked."""
    what = "bytes"
    if message is not None:
        what = f"a {str(message.get('type'))[:20]!r} message"
        if "id" in message:
            what += f" with id {message['id']!r:.20}"
    return ProtocolError("unknown-type", f"sent {what} before it was asked (answers must follow a 'decide')")


def hello_message(
    game_id: str,
    game_version: str,
    seat: int,
    players: int,
    options: Mapping[str, Any],
    clock: Mapping[str, int],
    agent_options: dict,
) -> HelloMessage:
    """The referee's ``hello`` to ``seat`` (``players`` counts the automaton's seat too)."""
    return {
        "type": "hello",
        "protocol": PROTOCOL_VERSION,
        "game": game_id,
        "game_version": game_version,
        "seat": seat,
        "players": players,
        "options": dict(options),
        "clock": {"move_ms": clock["move_ms"], "bank_ms": clock["bank_ms"]},
        "agent_options": agent_options,
    }


def decide_message(
    message_id: int, obs: Any, decision: Any, move_ms: int, bank_ms_left: int
) -> DecideMessage:
    """The referee's ``decide``: a seat's observation ``obs`` and its current ``decision``.

    ``decision`` is the engine's Decision (kind, prompt, options); the wire needs no more of the engine.
    """
    return {
        "type": "decide",
        "id": message_id,
        "obs": obs,
        "kind": decision.kind,
        "prompt": decision.prompt,
        "options": list(decision.options),
        "clock": {"move_ms": move_ms, "bank_ms_left": bank_ms_left},
    }

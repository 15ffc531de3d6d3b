#!/usr/bin/env python3
"""A Tlachtli bot that always picks the first option, written with the standard library only.

It is a model for bots in other languages: it speaks wire protocol v1 (docs/protocol.md) by
itself, with a small msgpack encoder and decoder, and imports nothing from Tlachtli.

Run it in a match by path:   arena play --game zapotec --agent examples/bots/first_option.py --agent random
or declare it in a plugin:   AgentSpec(name="first-option", description="...", argv=("/path/to/first_option.py",))
"""

import struct
import sys

# --- msgpack, the subset the protocol uses (nil, bool, int, float, str, bin, array, map) -------


def pack(value):
    """msgpack bytes of a value made of None, bool, int, float, str, bytes, list/tuple and dict."""
    if value is None:
        return b"\xc0"
    if value is True:
        return b"\xc3"
    if value is False:
        return b"\xc2"
    if isinstance(value, int):
        if 0 <= value < 0x80:
            return struct.pack("B", value)
        if -32 <= value < 0:
            return struct.pack("b", value)
        if 0 <= value < 1 << 64:
            return b"\xcf" + struct.pack(">Q", value)
        return b"\xd3" + struct.pack(">q", value)
    if isinstance(value, float):
        return b"\xcb" + struct.pack(">d", value)
    if isinstance(value, str):
        data = value.encode("utf-8")
        return _header(len(data), 0xA0, 32, b"\xd9", b"\xda", b"\xdb") + data
    if isinstance(value, bytes):
        return _header(len(value), None, 0, b"\xc4", b"\xc5", b"\xc6") + value
    if isinstance(value, (list, tuple)):
        return _header(len(value), 0x90, 16, None, b"\xdc", b"\xdd") + b"".join(pack(v) for v in value)
    if isinstance(value, dict):
        items = b"".join(pack(k) + pack(v) for k, v in value.items())
        return _header(len(value), 0x80, 16, None, b"\xde", b"\xdf") + items
    raise TypeError(f"cannot pack {type(value).__name__}")


def _header(n, fix, fix_limit, code8, code16, code32):
    if fix is not None and n < fix_limit:
        return struct.pack("B", fix | n)
    if code8 is not None and n < 1 << 8:
        return code8 + struct.pack("B", n)
    if n < 1 << 16:
        return code16 + struct.pack(">H", n)
    return code32 + struct.pack(">I", n)


def unpack(data):
    """The value encoded in ``data`` (one complete msgpack object)."""
    value, end = _unpack(data, 0)
    if end != len(data):
        raise ValueError("extra bytes after the msgpack object")
    return value


_FIXED = {0xC0: None, 0xC2: False, 0xC3: True}
_NUMBERS = {  # code: (struct format, size)
    0xCA: (">f", 4), 0xCB: (">d", 8), 0xCC: (">B", 1), 0xCD: (">H", 2), 0xCE: (">I", 4), 0xCF: (">Q", 8),
    0xD0: (">b", 1), 0xD1: (">h", 2), 0xD2: (">i", 4), 0xD3: (">q", 8),
}  # fmt: skip
_LENGTHS = {  # code: (kind, size of the length field)
    0xD9: ("str", 1), 0xDA: ("str", 2), 0xDB: ("str", 4), 0xC4: ("bin", 1), 0xC5: ("bin", 2),
    0xC6: ("bin", 4), 0xDC: ("array", 2), 0xDD: ("array", 4), 0xDE: ("map", 2), 0xDF: ("map", 4),
}  # fmt: skip


def _unpack(data, i):
    code = data[i]
    i += 1
    if code <= 0x7F:
        return code, i
    if code >= 0xE0:
        return code - 0x100, i
    if code in _FIXED:
        return _FIXED[code], i
    if code in _NUMBERS:
        fmt, size = _NUMBERS[code]
        return struct.unpack_from(fmt, data, i)[0], i + size
    if 0xA0 <= code <= 0xBF:
        kind, n = "str", code & 0x1F
    elif 0x90 <= code <= 0x9F:
        kind, n = "array", code & 0x0F
    elif 0x80 <= code <= 0x8F:
        kind, n = "map", code & 0x0F
    elif code in _LENGTHS:
        kind, size = _LENGTHS[code]
        n = int.from_bytes(data[i : i + size], "big")
        i += size
    else:
        raise ValueError(f"unsupported msgpack code 0x{code:02x}")
    if kind in ("str", "bin"):
        raw = data[i : i + n]
        return (raw.decode("utf-8") if kind == "str" else bytes(raw)), i + n
    if kind == "array":
        items = []
        for _ in range(n):
            item, i = _unpack(data, i)
            items.append(item)
        return items, i
    result = {}
    for _ in range(n):
        key, i = _unpack(data, i)
        result[key], i = _unpack(data, i)
    return result, i


# --- frames: 4-byte big-endian length, then one msgpack map ----------------------------------


def read_message(stream):
    header = stream.read(4)
    if len(header) < 4:
        return None  # the referee closed the pipe
    (length,) = struct.unpack(">I", header)
    return unpack(stream.read(length))


def send_message(stream, message):
    body = pack(message)
    stream.write(struct.pack(">I", len(body)) + body)
    stream.flush()


# --- the bot ----------------------------------------------------------------------------------


def main():
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    hello = read_message(inp)
    if hello is None or hello.get("type") != "hello" or hello.get("protocol") != 1:
        send_message(out, {"type": "error", "message": "expected a protocol 1 hello"})
        return 1
    send_message(out, {"type": "ready", "name": "first-option", "version": "1"})
    while True:
        message = read_message(inp)
        if message is None or message["type"] == "end":
            return 0
        if message["type"] == "decide":
            # Option 0 is always legal: the engine offers only legal options.
            send_message(out, {"type": "act", "id": message["id"], "choice": 0})
        elif message["type"] == "error":
            print(f"referee error: {message['message']}", file=sys.stderr)
            return 1


if __name__ == "__main__":
    sys.exit(main())

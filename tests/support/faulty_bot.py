"""A protocol-speaking bot that misbehaves on purpose: ``faulty_bot.py MODE``.

It plays option 0 until decision number ``agent_options["at"]`` (default 2, counted from 1), then
commits the fault named by MODE. Handshake modes misbehave before sending ``ready``. Registered
as agents ``fault-MODE`` by tests/support/faulty_agents.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

from arena.wire.protocol import HEADER, PeerClosed, encode, read_frame

HANDSHAKE_MODES = {"handshake-stall", "handshake-exit", "handshake-crash"}
MOVE_MODES = {
    "crash",  # exit status 3
    "exit",  # exit status 0 before the end
    "sleep",  # never answers
    "garbage",  # a frame whose body is not msgpack
    "print",  # text on stdout (a stray print)
    "oversized",  # announces a 2 MiB frame
    "illegal",  # a choice past the last option
    "wrong-id",  # answers another decision's id
    "unknown-type",  # a message type that does not exist
    "error",  # gives up with an error message
    "orphan",  # starts a long-lived grandchild, then crashes
    "noisy",  # floods stderr, then plays on normally
    "hog",  # allocates 1 GiB (fails under a memory limit)
    "spin",  # burns CPU for 30 s (killed under a CPU limit)
    "slow",  # no fault: sleeps agent_options["sleep_ms"] on every decision, logs its bank
    "choice-str",  # answers with the string "1"
    "choice-float",  # answers with 1.9
    "choice-bool",  # answers with true
    "early",  # answers, and in the same write answers the next decision before it is asked
    "close-stdin",  # closes its stdin, answers, then stays alive
    "huge-ready",  # no fault of its own: a ready whose name and version fill almost 1 MiB
}


def main() -> int:
    mode = sys.argv[1]
    if mode not in HANDSHAKE_MODES | MOVE_MODES:
        raise SystemExit(f"unknown mode {mode}")
    inp, out = sys.stdin.buffer, sys.stdout.buffer

    def send(message: dict) -> None:
        out.write(encode(message))
        out.flush()

    hello = read_frame(inp, 1 << 26)
    if mode == "handshake-stall":
        time.sleep(600)
    if mode == "handshake-exit":
        return 0
    if mode == "handshake-crash":
        raise RuntimeError("broken before ready")
    if mode == "huge-ready":
        send({"type": "ready", "name": "n" * 520_000, "version": "v" * 520_000})
    else:
        send({"type": "ready", "name": f"fault-{mode}", "version": "1"})
    at = hello["agent_options"].get("at", 2)
    count = 0
    while True:
        try:
            message = read_frame(inp, 1 << 26)
        except PeerClosed:
            return 0
        if message["type"] == "end":
            return 0
        count += 1
        reply = {"type": "act", "id": message["id"], "choice": 0}
        if mode == "slow":
            print(f"bank {message['clock']['bank_ms_left']}", file=sys.stderr, flush=True)
            time.sleep(hello["agent_options"]["sleep_ms"] / 1000)
        if count == at:
            if mode == "crash":
                print("crashing on purpose", file=sys.stderr, flush=True)
                return 3
            if mode == "exit":
                return 0
            if mode == "sleep":
                time.sleep(600)
            if mode == "garbage":
                out.write(HEADER.pack(5) + b"\xc1\xc1\xc1\xc1\xc1")
                out.flush()
                time.sleep(600)
            if mode == "print":
                out.write(b"thinking about move 2...\n")
                out.flush()
                time.sleep(600)
            if mode == "oversized":
                out.write(HEADER.pack(2 << 20) + b"\x80" * 1000)
                out.flush()
                time.sleep(600)
            if mode == "illegal":
                reply["choice"] = len(message["options"]) + 5
            if mode == "wrong-id":
                reply["id"] = message["id"] + 100
            if mode == "unknown-type":
                reply = {"type": "ponder", "id": message["id"]}
            if mode == "error":
                reply = {"type": "error", "message": "I give up"}
            if mode.startswith("choice-"):
                reply["choice"] = {"choice-str": "1", "choice-float": 1.9, "choice-bool": True}[mode]
            if mode == "early":  # one write: the guess is in the pipe before the next decide
                out.write(encode(reply) + encode({"type": "act", "id": message["id"] + 1, "choice": 0}))
                out.flush()
                continue
            if mode == "close-stdin":
                os.close(0)
                send(reply)
                time.sleep(600)
            if mode == "orphan":
                child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
                print(f"orphan pid {child.pid}", file=sys.stderr, flush=True)
                os._exit(4)
            if mode == "hog":
                block = bytearray(1 << 30)
                print(f"allocated {len(block)} bytes", file=sys.stderr)
            if mode == "spin":
                end = time.monotonic() + 30
                while time.monotonic() < end:
                    pass
            if mode == "noisy":
                sys.stderr.write("x" * 200_000 + "\nlast noisy line\n")
                sys.stderr.flush()
        send(reply)


if __name__ == "__main__":
    sys.exit(main())

"""The agent side of the wire protocol: runs one plugin agent behind stdin/stdout.

A plugin agent is hosted in one of two ways, both ending in ``host_agent``: the referee execs
``python -m arena.wire.host NAME [MODULE]`` (the default: a fresh process that holds nothing of the
referee's), which imports the plugin module MODULE alone (or, without one or where NAME is not
there, discovers every plugin) and builds agent NAME, or, for trusted bots only, forks itself
(TLACHTLI_AGENT_START=fork, arena/process/spawn.py). Either way the host answers the referee's messages by calling
the agent's ``setup``/``act``/``end``. The protocol owns the real stdout: anything the bot
prints goes to stderr instead (which the referee keeps in the match record), so a stray
``print`` cannot corrupt the frame stream.
"""

from __future__ import annotations

import os
import sys
import traceback
from typing import TYPE_CHECKING, BinaryIO

from arena.wire.agent import Agent, split_answer
from arena.wire.protocol import (
    REFEREE_FRAME_LIMIT,
    REFEREE_MESSAGES,
    PeerClosed,
    ProtocolError,
    act_message,
    check_message,
    plain_codec,
    read_frame,
    write_frame,
)

if TYPE_CHECKING:
    from arena.registry.plugins import AgentSpec


def serve(agent: Agent, name: str, version: str, inp: BinaryIO, out: BinaryIO) -> int:
    """Speak for ``agent`` until the referee ends the match; return the exit status."""
    try:
        hello = read_frame(inp, REFEREE_FRAME_LIMIT, deep=False, from_referee=True)
        if check_message(hello, REFEREE_MESSAGES) != "hello":
            raise ProtocolError("unknown-type", f"expected 'hello', got {hello['type']!r}")
        agent.setup(hello)
        write_frame(out, {"type": "ready", "name": name, "version": version})
        while True:
            message = read_frame(inp, REFEREE_FRAME_LIMIT, deep=False, from_referee=True)
            kind = check_message(message, REFEREE_MESSAGES)
            if kind == "decide":
                # Not coerced: the referee judges a Python bot's choice as it judges a wire bot's.
                write_frame(
                    out, act_message(message["id"], *split_answer(agent, agent.act(message["obs"], message)))
                )
            elif kind == "end":
                agent.end(message["result"])
                return 0
            elif kind == "error":
                print(
                    f"arena.wire.host: the referee reported an error: {message['message']}", file=sys.stderr
                )
                return 1
            else:
                raise ProtocolError("unknown-type", f"unexpected {kind!r} message after the handshake")
    except PeerClosed:
        return 0  # the referee went away: nothing left to do
    except ProtocolError as error:
        print(f"arena.wire.host: protocol error from the referee: {error}", file=sys.stderr)
        _try_send_error(out, str(error))
        return 1
    except Exception as error:  # the bot's own bug: say so on the wire, traceback on stderr
        traceback.print_exc()
        _try_send_error(out, f"{name} raised {type(error).__name__}: {error}")
        return 1


def _try_send_error(out: BinaryIO, text: str) -> None:
    try:
        write_frame(out, {"type": "error", "message": text[:1000]})
    except OSError:
        pass


def claim_stdio() -> tuple[BinaryIO, BinaryIO]:
    """Take the protocol pipes (fds 0 and 1) away from the bot: fd 1 -> stderr, fd 0 -> /dev/null.

    Returns the protocol's (input, output) files.
    """
    inp = os.fdopen(os.dup(0), "rb")
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    return inp, out


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m arena.wire.host NAME`` (the exec start method)."""
    from arena.registry.plugins import PluginError, discover

    args = sys.argv[1:] if argv is None else argv
    if len(args) not in (1, 2) or any(arg.startswith("-") for arg in args):
        print(
            "usage: python -m arena.wire.host AGENT_NAME [PLUGIN_MODULE]   (speaks the wire protocol on stdin/stdout)",
            file=sys.stderr,
        )
        return 2
    # A process for one match: msgpack alone reads and writes its frames (importing msgspec would
    # cost more than it saves), and only its own plugin is imported where it is named (every
    # plugin and the installed distributions' metadata cost ~100 ms of CPU at each start).
    plain_codec()
    inp, out = claim_stdio()
    try:
        name, module = args[0], (args[1] if len(args) == 2 else None)
        alone = discover(games=False, module=module).agents if module else {}
        spec = alone[name] if name in alone else discover(games=False).agent(name)
    except PluginError as error:
        print(f"arena.wire.host: {error}", file=sys.stderr)
        _try_send_error(out, str(error))
        return 2
    return host_agent(spec, inp, out)


def host_agent(spec: AgentSpec, inp: BinaryIO, out: BinaryIO) -> int:
    """Build plugin agent ``spec`` and speak for it on ``inp``/``out``; return the exit status.

    Shared by both start methods: ``main`` (exec) and arena/process/spawn.py (fork).
    """
    if spec.factory is None:
        print(
            f"arena.wire.host: agent {spec.name!r} is an external executable; run {spec.argv} directly",
            file=sys.stderr,
        )
        return 2
    return serve(spec.factory(), spec.name, spec.version, inp, out)


if __name__ == "__main__":
    sys.exit(main())

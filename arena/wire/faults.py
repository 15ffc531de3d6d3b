"""The fault vocabulary: why a seat forfeited. Defined here once; records and tables use these names.

A fault is raised as ``AgentFault(kind, detail)`` wherever it is detected (protocol codec, agent
connection, referee) and ends up in the match record as ``{"seat", "fault", "detail", ...}``.
"""

from __future__ import annotations

# name -> what it means (shown by `arena check` and documented in docs/protocol.md).
FAULTS: dict[str, str] = {
    "spawn": "the agent's executable could not be started",
    "handshake": "no `ready` message within the handshake clock",
    "crash": "the agent process died with a non-zero status or a signal",
    "exit": "the agent process exited (status 0) or closed its stdin or stdout before the match ended",
    "timeout": "no answer within the move clock plus the remaining time bank",
    "bad-frame": "a frame that is not one valid msgpack map of the expected message schema",
    "oversized-frame": "a frame whose announced length is over the referee's limit",
    "wrong-id": "an `act` whose id is not the id of the pending decision",
    "unknown-type": "a message whose type is unknown or not expected at that point",
    "illegal-choice": "a choice that is not the index of one of the offered options",
    "error": "the agent sent an `error` message (it gave up)",
}


class AgentFault(Exception):
    """A seat's agent broke the protocol or the clock; ``kind`` is one of ``FAULTS``."""

    def __init__(self, kind: str, detail: str) -> None:
        if kind not in FAULTS:
            raise ValueError(f"unknown fault kind {kind!r}; known: {', '.join(FAULTS)}")
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail

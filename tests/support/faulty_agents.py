"""Test plugin: agents that commit one protocol fault each (``fault-crash``, ``fault-sleep``, ...).

Loaded through ``TLACHTLI_PLUGINS`` (tests/conftest.py). They are external executables declared
with ``argv`` (tests/support/faulty_bot.py MODE), because a hosted Python bot cannot forge frames.
Also ``rendezvous``, a hosted bot that shows that simultaneous seats are asked concurrently.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from arena.agent import Agent
from arena.plugins import AgentSpec, hookimpl
from tests.support.faulty_bot import HANDSHAKE_MODES, MOVE_MODES

BOT = str(Path(__file__).with_name("faulty_bot.py"))


class Rendezvous(Agent):
    """Answers a decision only once every seat of the match has been asked in the same round.

    Each seat touches ``{dir}/{round}-{seat}`` and waits for the other seats' files: asked one
    after another, the first seat would wait in vain and time out; asked concurrently, all answer.
    It also prints on stdout, which arena.host must keep off the protocol pipe.
    """

    name = "rendezvous"
    version = "1"

    def setup(self, hello: dict[str, Any]) -> None:
        self.dir = Path(hello["agent_options"]["dir"])
        self.seat, self.players = hello["seat"], hello["players"]

    def act(self, observation: dict[str, Any], decision: dict[str, Any]) -> int:
        print("a stray print on stdout must not break the protocol")
        round_ = observation["round"]
        (self.dir / f"{round_}-{self.seat}").touch()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if all((self.dir / f"{round_}-{seat}").exists() for seat in range(self.players)):
                return 0
            time.sleep(0.005)
        raise RuntimeError("the other seats were never asked")


@hookimpl
def tlachtli_agents() -> list[AgentSpec]:
    specs = [
        AgentSpec(name=f"fault-{mode}", description=f"commits fault {mode}", argv=(sys.executable, BOT, mode))
        for mode in sorted(HANDSHAKE_MODES | MOVE_MODES)
    ]
    specs.append(
        AgentSpec(name="rendezvous", description="waits for all seats", factory=Rendezvous, version="1")
    )
    return specs

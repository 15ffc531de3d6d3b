"""Test plugin: bots that send an ``info`` text with each answer (docs/protocol.md).

Loaded through ``TLACHTLI_PLUGINS``. ``talker`` plays option 0 after ``delay_ms`` (agent option;
a match slow enough to be followed live) and explains it: ``info = "plain"`` (the default) says
which step it is, ``"huge"`` sends 1 MB of text, ``"hostile"`` markup, terminal escapes and a
bidi override, ``"answer"`` returns an ``Answer`` instead of calling ``explain``.
"""

from __future__ import annotations

import time
from typing import Any

from arena.registry.plugins import AgentSpec, hookimpl
from arena.wire.agent import Agent, Answer

HOSTILE_INFO = '<img src=x onerror="alert(3)"><b>bold</b>\x1b[2J\x1b]52;c;cGF5\x07\u202eevil\n</span>'


class Talker(Agent):
    """Option 0, with an info text (see the module docstring)."""

    name = "talker"
    version = "1"

    def __init__(self) -> None:
        self.delay_s = 0.0
        self.mode = "plain"
        self.count = 0

    def setup(self, hello: dict[str, Any]) -> None:
        options = hello["agent_options"]
        self.delay_s = float(options.get("delay_ms", 0)) / 1000
        self.mode = str(options.get("info", "plain"))

    def act(self, observation: dict[str, Any], decision: dict[str, Any]) -> int | Answer:
        self.count += 1
        time.sleep(self.delay_s)
        text = {
            "plain": f"thinking #{self.count}: option 0 of {len(decision['options'])}",
            "huge": "x" * 1_000_000,
            "hostile": HOSTILE_INFO,
            "answer": f"answered #{self.count}",
        }[self.mode]
        if self.mode == "answer":
            return Answer(0, text)
        self.explain(text)
        return 0


@hookimpl
def tlachtli_agents() -> list[AgentSpec]:
    return [AgentSpec(name="talker", description="option 0, with an info text", factory=Talker, version="1")]

"""Test plugin: agents that commit one protocol fault each (``fault-crash``, ``fault-sleep``, ...).

Loaded through ``TLACHTLI_PLUGINS`` (tests/conftest.py). They are external executables declared
with ``argv`` (tests/support/faulty_bot.py MODE), because a hosted Python bot cannot forge frames.
Also ``rendezvous``, a hosted bot that shows that simultaneous seats are asked concurrently, and
``hosted-fault``, a hosted bot (so forked from the referee by default) misbehaving as told.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from arena.registry.plugins import AgentSpec, hookimpl
from arena.wire.agent import Agent
from tests.support.faulty_bot import HANDSHAKE_MODES, MOVE_MODES

BOT = str(Path(__file__).with_name("faulty_bot.py"))


class Rendezvous(Agent):
    """Answers a decision only once every seat of the match has been asked in the same round.

    Each seat touches ``{dir}/{round}-{seat}`` and waits for the other seats' files: asked one
    after another, the first seat would wait in vain and time out; asked concurrently, all answer.
    It also prints on stdout, which arena.wire.host must keep off the protocol pipe.
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


class HostedFault(Agent):
    """Plays option 0, printing a line on stdout and on stderr per decision; at decision
    ``agent_options["at"]`` (default 2) misbehaves as ``agent_options["mode"]`` says:

    ``crash`` raises in act; ``exit`` calls sys.exit(``code``, default 5); ``hog`` allocates 1 GiB (``alloc``: ``mb``
    MB, then plays on); ``spin`` burns
    CPU for 30 s; ``family`` starts an exec'd and a forked child, writes their pids and its own
    to ``{dir}/pids``, then sleeps; ``returns`` returns ``value`` (e.g. "1", 1.9, True) from act.
    Mode ``fds`` lists its open file descriptors at setup.
    """

    name = "hosted-fault"
    version = "1"

    def setup(self, hello: dict[str, Any]) -> None:
        self.options = hello["agent_options"]
        self.mode = self.options.get("mode", "")
        self.count = 0
        if self.mode == "fds":
            print("fds", *sorted(int(fd) for fd in os.listdir("/proc/self/fd")), file=sys.stderr)

    def act(self, observation: dict[str, Any], decision: dict[str, Any]) -> int:
        self.count += 1
        print(f"stray print {self.count} on stdout")
        print(f"stderr line {self.count}", file=sys.stderr)
        if self.count == self.options.get("at", 2):
            if self.mode == "crash":
                raise RuntimeError("act broke on purpose")
            if self.mode == "exit":
                sys.exit(self.options.get("code", 5))
            if self.mode in ("hog", "alloc"):
                block = bytearray(self.options.get("mb", 1024) << 20)
                print(f"allocated {len(block)} bytes", file=sys.stderr)
            if self.mode == "spin":
                end = time.monotonic() + 30
                while time.monotonic() < end:
                    pass
            if self.mode == "family":
                self._family(Path(self.options["dir"]))
            if self.mode == "returns":
                return self.options["value"]
        return 0

    def _family(self, where: Path) -> None:
        execd = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        forked = os.fork()
        if forked == 0:
            time.sleep(600)
            os._exit(0)
        (where / "pids.tmp").write_text(f"{os.getpid()} {execd.pid} {forked}")
        (where / "pids.tmp").rename(where / "pids")
        time.sleep(600)


@hookimpl
def tlachtli_agents() -> list[AgentSpec]:
    specs = [
        AgentSpec(name=f"fault-{mode}", description=f"commits fault {mode}", argv=(sys.executable, BOT, mode))
        for mode in sorted(HANDSHAKE_MODES | MOVE_MODES)
    ]
    specs.append(
        AgentSpec(name="rendezvous", description="waits for all seats", factory=Rendezvous, version="1")
    )
    specs.append(
        AgentSpec(name="hosted-fault", description="hosted misbehaviour", factory=HostedFault, version="1")
    )
    return specs

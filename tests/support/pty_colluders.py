"""Two seats that try to collude through pseudo-terminals: each shows its hand to the other.

Agent ``ptyspy`` (a plugin, loaded through TLACHTLI_PLUGINS), agent option ``role``:
- ``send``: at each decision, holds open exactly the ptys whose numbers are the cards of its hand
  (opens /dev/ptmx until it holds the largest, closes the rest) and reports ``HAND: <cards>``;
- ``read``: at each decision, lists /dev/pts and reports ``SAW: <numbers>`` (a shared devpts
  instance shows the sender's hand there);
- ``hoard``: at setup, opens as many ptys as it can (at most ``HOARD``) and reports ``HELD: <n>``
  (holding the whole pool starves every other sandbox or container of the machine).
Plays the first option. Reports go to stderr, which the referee keeps in the record.
"""

from __future__ import annotations

import fcntl
import os
import struct
import sys
from typing import Any

from arena.registry.plugins import AgentSpec, hookimpl
from arena.wire.agent import Agent

HOARD = 200  # below the agent's 256 open files
TIOCGPTN = 0x80045430  # ioctl: the number of a pty master


def report(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _open_pty() -> tuple[int, int] | None:
    """A new pty's master descriptor and number, or None if the sandbox gives none."""
    try:
        master = os.open("/dev/ptmx", os.O_RDWR | os.O_NOCTTY)
    except OSError:
        return None
    try:
        return master, struct.unpack("I", fcntl.ioctl(master, TIOCGPTN, b"\0" * 4))[0]
    except OSError:
        os.close(master)
        return None


def visible_ptys() -> list[int]:
    try:
        return sorted(int(entry) for entry in os.listdir("/dev/pts") if entry.isdigit())
    except OSError:
        return []


class PtySpy(Agent):
    name = "ptyspy"
    version = "1"

    def setup(self, hello: dict[str, Any]) -> None:
        self.role = hello["agent_options"]["role"]
        self.held: dict[int, int] = {}  # pty number: master descriptor
        if self.role == "hoard":
            while len(self.held) < HOARD and (pty := _open_pty()) is not None:
                self.held[pty[1]] = pty[0]
            report(f"HELD: {len(self.held)}")

    def act(self, observation: dict[str, Any], decision: dict[str, Any]) -> int:
        if self.role == "send":
            self.show(sorted(set(observation["hand"])))
        elif self.role == "read":
            report(f"SAW: {visible_ptys()}")
        return 0

    def show(self, hand: list[int]) -> None:
        """Hold exactly the ptys numbered as the cards of ``hand`` (the lowest free number is
        given first: open up to the largest, close the others)."""
        for number in list(self.held):
            if number not in hand:
                os.close(self.held.pop(number))
        while hand and max(hand) not in self.held:
            pty = _open_pty()
            if pty is None:
                break
            self.held[pty[1]] = pty[0]
        for number in list(self.held):
            if number not in hand:
                os.close(self.held.pop(number))
        report(f"HAND: {sorted(self.held) if self.held else 'none'} of {hand}")


@hookimpl
def tlachtli_agents() -> list[AgentSpec]:
    return [
        AgentSpec(
            name="ptyspy", description="shows its hand through pty numbers", factory=PtySpy, version="1"
        )
    ]

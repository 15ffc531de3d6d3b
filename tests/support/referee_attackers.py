"""Test plugin: hostile bots that attack their referee (their parent process) in the middle of a match.

``referee-killer`` sends SIGKILL to its parent, ``referee-stopper`` SIGSTOP, at its first
decision. Without a sandbox the parent is the referee, i.e. the runner's worker process; the
runner's watchdog must end the match and, when it keeps happening, record it as aborted.

Agent option ``once_in``: a directory; the attack happens only if ``{once_in}/attacked`` does not
exist yet (the bot creates it), so a replay of the same match plays normally.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

from arena.registry.plugins import AgentSpec, hookimpl
from arena.wire.agent import Agent


class _RefereeAttacker(Agent):
    version = "1"
    signum = signal.SIGKILL

    def setup(self, hello: dict[str, Any]) -> None:
        once_in = hello["agent_options"].get("once_in")
        self.marker = Path(once_in) / "attacked" if once_in else None

    def act(self, observation: dict[str, Any], decision: dict[str, Any]) -> int:
        if self.marker is None or first_to_claim(self.marker):
            os.kill(os.getppid(), self.signum)
        return 0


def first_to_claim(marker: Path) -> bool:
    """Create ``marker``; True only for the one caller that created it. Atomic (O_EXCL): two
    attackers in matches played side by side must not both see it missing and both attack."""
    try:
        os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return False
    return True


class RefereeKiller(_RefereeAttacker):
    """Kills its parent (the referee) with SIGKILL at its first decision."""

    name = "referee-killer"
    signum = signal.SIGKILL


class RefereeStopper(_RefereeAttacker):
    """Stops its parent (the referee) with SIGSTOP at its first decision."""

    name = "referee-stopper"
    signum = signal.SIGSTOP


@hookimpl
def tlachtli_agents() -> list[AgentSpec]:
    return [
        AgentSpec(name=cls.name, description=cls.__doc__.splitlines()[0], factory=cls, version="1")
        for cls in (RefereeKiller, RefereeStopper)
    ]

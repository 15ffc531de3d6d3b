"""How an agent process starts: one launcher per start method, behind one interface.

- ``EXEC`` (the default): a fresh jail (arena/process/sandbox.py) and cgroup, then the agent's
  command exec'd in them (arena/process/spawn.py: an executable, or ``python -m arena.wire.host``).
- ``FORK``: a trusted Python plugin agent without a sandbox, forked from the referee's process.
- ``ZygoteLauncher``: a Python plugin agent in a bubblewrap sandbox, forked from a warm zygote
  (arena/process/zygote.py), where ``TLACHTLI_AGENT_START=zygote`` asks for it and the machine allows.

``launcher_for`` picks one for an agent each time it is asked, as the start method stands then.
A launcher puts what it started on the agent (``process``, ``jail``, ``cgroup``), so that no
exit path can miss it; ``AgentProcess`` (arena/process/connection.py) talks to it and ends it.
"""

from __future__ import annotations

import contextlib
import os
from typing import TYPE_CHECKING, Protocol

import trio

from arena.process.limits import BotCgroup, oom_killer_first, set_rlimits
from arena.process.sandbox import Jail
from arena.process.seccomp import join_fresh_session_keyring
from arena.process.spawn import ForkedProcess, agent_start_method, exec_agent, fork_agent
from arena.process.zygote import Limits, Zygote, ZygoteChild, ZygoteKey, zygote, zygote_key, zygote_supported

if TYPE_CHECKING:
    from arena.registry.plugins import AgentSpec


class Launched(Protocol):
    """What a launcher reads from and writes onto the agent it starts."""

    argv: list[str]
    hosted: AgentSpec | None
    plugin: str | None
    package: str | None
    sandbox: str
    memory_mb: int | None
    cpu_seconds: int | None
    bot_memory_mb: int
    cpus: int | None
    in_bwrap: bool
    jail: Jail | None
    cgroup: BotCgroup | None
    process: ForkedProcess | ZygoteChild | None


class Launcher(Protocol):
    """One start method."""

    def prepare(self, agent: Launched) -> None:
        """The referee's own start-up for ``agent``, before its handshake clock runs."""

    async def launch(self, agent: Launched) -> None:
        """Start ``agent``: set its ``process`` (and ``jail``, ``cgroup``); OSError if it cannot."""

    def prestart_successor(self, agent: Launched) -> None:
        """Start the next match's agent ahead (in a process that keeps its zygotes between
        matches), where this method can; else nothing."""


class _Exec:
    """Exec the agent's command in a fresh jail and cgroup."""

    def prepare(self, agent: Launched) -> None:
        pass

    async def launch(self, agent: Launched) -> None:
        agent.jail = Jail(agent.sandbox, package=agent.package)
        agent.cgroup = BotCgroup.create(agent.bot_memory_mb, agent.cpus)
        self._start(agent)

    @trio.lowlevel.enable_ki_protection
    def _start(self, agent: Launched) -> None:
        # Protected: a Ctrl-C (KeyboardInterrupt) landing between the start and keeping the child
        # in agent.process would leave it where no exit path kills it; trio delivers it later.
        jail = agent.jail
        assert jail is not None
        try:
            agent.process = exec_agent(
                jail.wrap(agent.argv),
                lambda: _before_exec(agent),
                jail.directory,
                jail.environment(),
                jail.pass_fds,
            )
        finally:
            jail.close_fds()

    def prestart_successor(self, agent: Launched) -> None:
        pass


class _Fork(_Exec):
    """Fork the referee's process into the trusted Python agent ``agent.hosted``."""

    @trio.lowlevel.enable_ki_protection
    def _start(self, agent: Launched) -> None:
        # Protected: as _Exec._start.
        assert agent.jail is not None and agent.hosted is not None
        agent.process = fork_agent(
            agent.hosted,
            agent.memory_mb,
            agent.cpu_seconds,
            lambda: _join_cgroup(agent),
            agent.jail.directory,
        )


EXEC: Launcher = _Exec()
FORK: Launcher = _Fork()


class ZygoteLauncher:
    """Fork the Python plugin agent from the zygote of its environment (one per agent: the
    zygote's key is built once, not at each use)."""

    def __init__(self, plugin: str, package: str | None = None) -> None:
        self.plugin = plugin  # for a bot package: its handover (arena/process/zygote.py)
        self.package = package
        self._key: ZygoteKey | None = None

    def zygote(self) -> Zygote:
        """The zygote for this agent's environment (the same through its match), started if need be:
        a bot package's is the one serving its folder of packages."""
        if self._key is None:
            self._key = zygote_key(os.path.dirname(self.package)) if self.package else zygote_key()
        return zygote(self._key)

    def prepare(self, agent: Launched) -> None:
        # the zygote, which a worker starts at its first match (a Python start and every plugin's
        # import: seconds on a loaded machine, none of them the agent's)
        self.zygote()

    async def launch(self, agent: Launched) -> None:
        # its jail and cgroup come with it (the zygote's spawn removes them if it fails or is cancelled)
        agent.process, agent.jail, agent.cgroup = await self.zygote().spawn(self.plugin, _limits(agent))
        agent.in_bwrap = False  # it holds its pipes alone: a closed stdout is an end of file

    def prestart_successor(self, agent: Launched) -> None:
        with contextlib.suppress(OSError):
            self.zygote().prestart(_limits(agent))


def launcher_for(agent: Launched, from_zygote: ZygoteLauncher | None) -> Launcher:
    """The start method of ``agent`` now: its zygote launcher (given for a sandboxed Python plugin
    agent) where the start method is "zygote" and the machine allows it, else a fork for a hosted
    agent, else an exec."""
    if from_zygote is not None and agent_start_method() == "zygote" and zygote_supported():
        return from_zygote
    return FORK if agent.hosted is not None else EXEC


def _limits(agent: Launched) -> Limits:
    return Limits(agent.bot_memory_mb, agent.cpus, agent.memory_mb, agent.cpu_seconds)


def _join_cgroup(agent: Launched) -> None:
    """In the child: join the cgroup, and be the OOM killer's first choice."""
    if agent.cgroup is not None:
        agent.cgroup.enter()
    oom_killer_first()


def _before_exec(agent: Launched) -> None:
    """In the child before exec: join the cgroup, a keyring of its own, then the per-process limits."""
    assert agent.jail is not None
    _join_cgroup(agent)
    join_fresh_session_keyring()
    set_rlimits(agent.memory_mb, agent.cpu_seconds, processes=agent.jail.own_uid)

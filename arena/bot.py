"""Everything a bot author imports, in one module: ``from arena.bot import Agent, DecisionView, ...``.

- ``Agent``: the base class of a Python bot (``setup``, ``act``, ``end``), hosted by ``arena.wire.host``.
- ``DecisionView``, ``Option``, ``Clock``, ``Hello``: the protocol's ``decide`` and ``hello``
  messages as frozen, typed objects (``DecisionView.from_wire(decision)`` in ``act``).
- ``hookimpl`` and ``AgentSpec``: how a plugin module offers its agents (``tlachtli_agents``);
  ``EvaluatorSpec`` for a game's position evaluator (``tlachtli_evaluators``).
- ``play_in_process`` and ``discover``: a bot's own tests, whole games in one process against the
  installed agents (``discover().agent("random").factory()``).

The names here are the bot author's stable surface; the modules they come from may move.
tests/arena/test_bot_surface.py keeps the examples and the ``arena new-bot`` template on it.
"""

from __future__ import annotations

from arena.match.inprocess import play_in_process
from arena.registry.hookspecs import AgentSpec, EvaluatorSpec, hookimpl
from arena.registry.plugins import Registry, discover
from arena.wire.agent import Agent, Clock, DecisionView, Hello, Option

__all__ = [
    "Agent",
    "AgentSpec",
    "Clock",
    "DecisionView",
    "EvaluatorSpec",
    "Hello",
    "Option",
    "Registry",
    "discover",
    "hookimpl",
    "play_in_process",
]

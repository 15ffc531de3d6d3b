"""The base class of Python bots. ``arena.host`` speaks the wire protocol on its behalf."""

from __future__ import annotations

from typing import Any


class Agent:
    """Subclass this and override ``act`` (and ``setup``/``end`` if needed).

    One instance plays one seat of one match. ``hello`` is the protocol's hello message (game,
    game_version, seat, players, options, clock, agent_options).
    """

    name: str = "agent"
    version: str = "0"

    def setup(self, hello: dict[str, Any]) -> None:
        """Called once before the first decision."""

    def act(self, observation: dict[str, Any], decision: dict[str, Any]) -> int:
        """Return the index of the chosen option in ``decision["options"]``."""
        raise NotImplementedError

    def end(self, result: dict[str, Any]) -> None:
        """Called once when the match is over (``result`` holds scores and ranks)."""

# The hook specs below have no body (pluggy calls the plugins' implementations, never a spec):
# mypy: disable-error-code="empty-body"
"""What a Tlachtli plugin is written against: the hook markers, the specs it returns, every hook.

The shape of pytest's and datasette's ``hookspecs``: a plugin module marks functions named after
these hooks with ``hookimpl`` (bots may import it from ``arena.plugins``, which re-exports it).
Discovery and the registry live in arena/plugins.py.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pluggy

from engine.api import Game

PROJECT = "tlachtli"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


class PluginError(RuntimeError):
    """A plugin that cannot be loaded or that clashes with another one."""


@dataclass(frozen=True)
class AgentSpec:
    """An agent a plugin offers.

    Exactly one of ``factory`` (a callable returning an ``arena.bot.Agent``, hosted by
    ``arena.host``) and ``argv`` (an external executable speaking the wire protocol) is set.
    ``games`` is empty when the agent plays any game. ``source`` (where it comes from, for people)
    and ``plugin`` (its plugin's module, for an agent process to import alone: arena/host.py) are
    filled in by discovery.
    """

    name: str
    description: str
    games: tuple[str, ...] = ()
    factory: Callable[[], Any] | None = None
    argv: tuple[str, ...] | None = None
    version: str = "0"
    players: tuple[int, ...] = ()  # seat counts the agent claims; empty = any the game allows
    source: str = field(default="", compare=False)
    plugin: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if (self.factory is None) == (self.argv is None):
            raise PluginError(f"agent {self.name!r}: give exactly one of factory= or argv=")

    def plays(self, game_id: str) -> bool:
        """Whether this agent claims to play ``game_id``."""
        return not self.games or game_id in self.games


# The words an evaluator may give for the search bots' settings: checked where the spec is made, so
# a wrong one names the evaluator, not an agent option nobody passed.
REWARDS = ("win", "gain", "mean")
GREEDY_LINES = ("turn", "step")
ISMCTS_POLICIES = ("random", "evaluator", "mast")


@dataclass(frozen=True)
class EvaluatorSpec:
    """A position evaluator for one game, used by search bots (``ismcts``, ``greedy``).

    ``evaluate(state)`` returns one number per seat (automaton seats included, as in
    ``Result.scores``): an estimate of that seat's final score, in the game's score units, so
    it can stand in for ``Result.scores`` at a playout cut-off. ``scale`` is a typical final
    score margin between two seats (it turns margins into rewards). ``depth`` is how many
    playout decisions a search should play before asking the evaluator (0: the bot's own
    default); it depends on how much one decision of the game changes. ``rivals_depth`` is the
    same when other agents decide too (not only automata, which play inside ``apply``): their
    random moves then fill part of the playout (0: ``depth`` everywhere). ``reward`` is what a
    search maximises by default: "win" (the margin over the best other seat, squashed around 0:
    winning is what counts) or "gain" (the same margin squashed around the one the evaluator
    gives at the root: improving on the position is what counts, which still tells moves apart
    when every playout ends far from level, e.g. against a strong automaton). ``turn_start``
    names the decision kinds that open a seat's turn: a one-turn look-ahead (``greedy``) stops
    there, where no other seat is asked in between (against an automaton). ``turn_count``
    (optional) counts the turns played so far in a state, for a game that asks a ``turn_start``
    decision again within a turn (Teotihuacan, after a discovery tile or a paid unlock): the
    look-ahead then stops at one only once the count has changed. ``greedy_plies``
    and ``greedy_width`` are ``greedy``'s defaults for its options of the same names (how many
    of its own decisions of a turn it searches, and how many options of each after the first;
    1 and 0: a one-step continuation); ``greedy_turns`` and ``greedy_top`` its ``turns`` and
    ``top`` (the ``top`` best options played on through that many more own turns; 0: none),
    ``greedy_line`` its ``line`` (each decision of those play-outs by its look-ahead, "turn", or
    the option best one step ahead, "step"), ``greedy_samples`` its ``samples`` (the states each of
    those options is played on in: the one sampled and others redrawn from it).
    ``ismcts_prior`` is ``ismcts``'s default for its ``prior``
    option (the visits each root option starts with at greedy's value of it; 0: none),
    ``ismcts_prior_samples`` its ``prior_samples`` (the prior's greedy's ``samples``) and
    ``ismcts_rivals_prior_samples`` the same where other agents decide too (0: the same);
    ``ismcts_policy`` its default ``policy`` (how a playout picks moves: "random", "evaluator" or
    "mast"), and ``ismcts_rivals_policy`` the same where other agents decide too ("": ``ismcts_policy``
    everywhere).
    ``source`` is filled in by whoever collects the specs.
    """

    game: str
    evaluate: Callable[[Any], Any]
    description: str = ""
    scale: float = 10.0
    depth: int = 0
    rivals_depth: int = 0
    reward: str = "win"
    turn_start: tuple[str, ...] = ()
    turn_count: Callable[[Any], int] | None = None
    greedy_plies: int = 1
    greedy_width: int = 0
    greedy_turns: int = 0
    greedy_top: int = 3
    greedy_line: str = "turn"
    greedy_samples: int = 1
    ismcts_prior: int = 0
    ismcts_prior_samples: int = 1
    ismcts_rivals_prior_samples: int = 0
    ismcts_policy: str = "random"
    ismcts_rivals_policy: str = ""
    source: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        for name, allowed in (
            ("reward", REWARDS),
            ("greedy_line", GREEDY_LINES),
            ("ismcts_policy", ISMCTS_POLICIES),
            ("ismcts_rivals_policy", ("", *ISMCTS_POLICIES)),
        ):
            value = getattr(self, name)
            if value not in allowed:
                raise ValueError(
                    f"the {self.game!r} evaluator's {name} must be one of {list(allowed)}, got {value!r}"
                )


# -- the hooks a Tlachtli plugin may implement ---------------------------------------------------


@hookspec
def tlachtli_agents() -> list[AgentSpec]:
    """Return the agents this plugin offers, as ``AgentSpec`` objects.

    A Python bot gives ``factory=MyAgentClass``; a bot in another language gives
    ``argv=("path/to/bot", "--flag")`` and speaks the wire protocol on stdin/stdout.
    """


@hookspec
def tlachtli_games() -> list[Game]:
    """Return the rules engines (``engine.api.Game`` objects) this plugin offers."""


@hookspec
def tlachtli_evaluators() -> list[EvaluatorSpec]:
    """Return position evaluators (``EvaluatorSpec``, one per game id) for search bots.

    Bot knowledge, not rules: a game package may offer one so that ``ismcts`` can cut its
    playouts short and ``greedy`` can play it (docs/bots.md).
    """

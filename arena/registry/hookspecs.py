# The hook specs below have no body (pluggy calls the plugins' implementations, never a spec):
# mypy: disable-error-code="empty-body"
"""What a Tlachtli plugin is written against: the hook markers, the specs it returns, every hook.

The shape of pytest's and datasette's ``hookspecs``: a plugin module marks functions named after
these hooks with ``hookimpl`` (bots may import it from ``arena.registry.plugins``, which re-exports it).
Discovery and the registry live in arena/registry/plugins.py.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pluggy

from engine.api import Game
from engine.options import BadOptions, check_schema, validate_options

PROJECT = "tlachtli"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


class PluginError(RuntimeError):
    """A plugin that cannot be loaded or that clashes with another one."""


@dataclass(frozen=True)
class AgentSpec:
    """An agent a plugin offers.

    Exactly one of ``factory`` (a callable returning an ``arena.bot.Agent``, hosted by
    ``arena.wire.host``) and ``argv`` (an external executable speaking the wire protocol) is set.
    ``games`` is empty when the agent plays any game. ``options`` declares the agent options it
    takes, in the format of a game's option schema (engine/options.py): name -> {"type", "default",
    "help"} plus "min"/"max"/"above" or "choices"; an option not declared, or of the wrong type or
    range, is refused before a match starts. None: not declared (any option is passed on
    unchecked); {}: it takes none. ``source`` (where it comes from, for people) and ``plugin`` (its
    plugin's module, for an agent process to import alone: arena/wire/host.py) are filled in by discovery.
    """

    name: str
    description: str
    games: tuple[str, ...] = ()
    factory: Callable[[], Any] | None = None
    argv: tuple[str, ...] | None = None
    version: str = "0"
    players: tuple[int, ...] = ()  # seat counts the agent claims; empty = any the game allows
    options: Mapping[str, Mapping[str, Any]] | None = field(default=None, hash=False)
    source: str = field(default="", compare=False)
    plugin: str = field(default="", compare=False)
    # a bot package's folder (arena/submissions/): read from its manifest, run sandboxed only
    package: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if (self.factory is None) == (self.argv is None):
            raise PluginError(f"agent {self.name!r}: give exactly one of factory= or argv=")
        if self.options is not None:
            problems = check_schema(self.options)
            if problems:
                raise PluginError(f"agent {self.name!r}: {'; '.join(problems)}")

    def check_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """``options`` checked against the declared ones (passed on as given where none are
        declared); BadOptions naming the agent, the option and the nearest declared name."""
        if self.options is None:
            return dict(options)
        try:
            return validate_options(self.options, options, complete=False)
        except BadOptions as error:
            raise BadOptions(f"agent {self.name!r}: {error}") from None

    def plays(self, game_id: str) -> bool:
        """Whether this agent claims to play ``game_id``."""
        return not self.games or game_id in self.games


# The rewards an evaluator may name: checked where the spec is made, so a wrong one names the
# evaluator, not an agent option nobody passed.
REWARDS = ("win", "gain", "mean")


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
    look-ahead then stops at one only once the count has changed. (Each bundled bot's own
    defaults by game live with the bots: plugins/bots/tuning.py.)
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
    source: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if self.reward not in REWARDS:
            raise ValueError(
                f"the {self.game!r} evaluator's reward must be one of {list(REWARDS)}, got {self.reward!r}"
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

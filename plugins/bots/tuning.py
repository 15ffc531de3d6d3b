"""The bundled search bots' defaults by game: what ``greedy`` and ``ismcts`` play with where an
agent option is not given, measured per game (docs/bots.md).

Bot knowledge, owned by the bots: a game's evaluator (``EvaluatorSpec``) says how to value a
position; how hard these two bots search it is theirs to tune. A game not listed here gets
``Tuning()``, the bots' plain defaults.
"""

from __future__ import annotations

from dataclasses import dataclass

GREEDY_LINES = ("turn", "step")
ISMCTS_POLICIES = ("random", "evaluator", "mast")


@dataclass(frozen=True)
class Tuning:
    """One game's defaults for the search bots' options.

    ``greedy_plies`` and ``greedy_width`` are ``greedy``'s defaults for its options of the same
    names (how many of its own decisions of a turn it searches, and how many options of each after
    the first; 1 and 0: a one-step continuation); ``greedy_turns`` and ``greedy_top`` its ``turns``
    and ``top`` (the ``top`` best options played on through that many more own turns; 0: none),
    ``greedy_line`` its ``line`` (each decision of those play-outs by its look-ahead, "turn", or
    the option best one step ahead, "step"), ``greedy_samples`` its ``samples`` (the states each
    of those options is played on in: the one sampled and others redrawn from it).
    ``ismcts_prior`` is ``ismcts``'s default for its ``prior`` option (the visits each root option
    starts with at greedy's value of it; 0: none), ``ismcts_prior_samples`` its ``prior_samples``
    (the prior's greedy's ``samples``) and ``ismcts_rivals_prior_samples`` the same where other
    agents decide too (0: the same); ``ismcts_policy`` its default ``policy`` (how a playout picks
    moves: "random", "evaluator" or "mast"), and ``ismcts_rivals_policy`` the same where other
    agents decide too ("": ``ismcts_policy`` everywhere).
    """

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

    def __post_init__(self) -> None:
        for name, allowed in (
            ("greedy_line", GREEDY_LINES),
            ("ismcts_policy", ISMCTS_POLICIES),
            ("ismcts_rivals_policy", ("", *ISMCTS_POLICIES)),
        ):
            value = getattr(self, name)
            if value not in allowed:
                raise ValueError(f"tuning: {name} must be one of {list(allowed)}, got {value!r}")


TUNING: dict[str, Tuning] = {
    "teotihuacan": Tuning(
        greedy_plies=2,  # greedy searches 2 decisions of its turn, 3 options of the second:
        greedy_width=3,  # +13 VP a game more against Teotibot, 5 ms a decision (docs/bots.md)
        # greedy plays its 3 best options on through its next 2 turns, its own choices (~140 ms a
        # decision): 32% to 70% of fresh deals against Teotibot (1 turn: 59%; docs/bots.md)
        greedy_turns=2,
        # ismcts's root options start at greedy's values (its play-outs), worth 3000 visits: at 300
        # iterations +8.2 VP a game against Teotibot over 300 visits of its look-ahead, +7.5 over
        # those at 1200 iterations; as greedy alone. Against other agents too, greedy's play-outs
        # modelling their turns: 2-player, 1200 iterations, 72 of 80 games (90%; 65% before)
        # against the previous ismcts (docs/bots.md)
        ismcts_prior=3000,
        # the prior's greedy plays its options on in 3 sampled states against Teotibot: +4.1 VP a
        # game (s.e. 1.4) over 1 sample, paired on 186 deals; 75.5% of deals 0-199 (65.0%), 1.7
        # times the CPU (docs/bots.md); 4 samples at 150 iterations, the same CPU: -0.4 VP
        # (s.e. 2.0); 5 samples for the 2 best on the first (ismcts's prior_keep 2): -2.4 VP
        # (s.e. 1.7). Against other agents, not measured: 1 (its play-outs model their turns,
        # already dearer)
        ismcts_prior_samples=3,
        ismcts_rivals_prior_samples=1,
    ),
    "zapotec": Tuning(
        greedy_plies=5,  # greedy searches 5 decisions of its turn, 3 options each after the first:
        greedy_width=3,  # +10 VP a game against Cocijobot, ~30 ms a decision (docs/bots.md)
        # playouts by each move's mean reward (MAST), at 2000 iterations: solo +4.0 VP a game
        # (s.e. 1.6) against Cocijobot, 71 to 80 of 100 fresh deals; 2 players, against the
        # previous ismcts, 58% of 152 games with random playouts, 81% of 200 with MAST (docs/bots.md)
        ismcts_policy="mast",
    ),
}


def tuning_for(game_id: str) -> Tuning:
    """The search bots' defaults for ``game_id`` (the plain ``Tuning()`` for a game not listed)."""
    return TUNING.get(game_id, Tuning())


def by_game(field: str) -> str:
    """A default that depends on the game, in words for an option's help: "teotihuacan 2, zapotec 5,
    else 1" (the tuned games' values that differ from the plain one, then the plain one)."""
    plain = getattr(Tuning(), field)
    tuned = [
        f"{game} {getattr(tuning, field)}"
        for game, tuning in sorted(TUNING.items())
        if getattr(tuning, field) != plain
    ]
    return ", ".join([*tuned, f"else {plain}"]) if tuned else str(plain)

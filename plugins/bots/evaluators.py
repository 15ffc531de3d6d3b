"""The bundled evaluators (a plugin) and the lookup search bots use to find a game's evaluator.

Any plugin may offer evaluators through the ``tlachtli_evaluators`` hook (arena/plugins.py);
``find_evaluator`` collects them all once per process.
"""

from __future__ import annotations

from typing import Any

from arena.plugins import EvaluatorSpec, PluginError, hookimpl, plugin_manager

# Evaluators found so far, by game id; None = discovery ran.
_FOUND: dict[str, EvaluatorSpec] | None = None


def collect_evaluators() -> dict[str, EvaluatorSpec]:
    """Every evaluator the installed plugins offer, by game id; one game offered twice is an error."""
    from dataclasses import replace

    found: dict[str, EvaluatorSpec] = {}
    manager = plugin_manager()
    for impl in manager.hook.tlachtli_evaluators.get_hookimpls():
        try:
            specs: Any = impl.function()  # pluggy types a hook's return as object
        except ValueError as error:  # a spec refused its own settings (EvaluatorSpec.__post_init__)
            raise PluginError(f"plugin {impl.plugin_name}: {error}") from None
        for spec in specs or []:
            if not isinstance(spec, EvaluatorSpec):
                raise PluginError(f"plugin {impl.plugin_name}: tlachtli_evaluators returned {spec!r}")
            if spec.game in found:
                raise PluginError(
                    f"game {spec.game!r} has two evaluators: from {found[spec.game].source} and {impl.plugin_name}"
                )
            found[spec.game] = replace(spec, source=impl.plugin_name)
    return found


def find_evaluator(game_id: str) -> EvaluatorSpec | None:
    """The evaluator for ``game_id`` offered by some plugin, or None (remembered per process)."""
    global _FOUND
    if _FOUND is None:
        _FOUND = collect_evaluators()
    return _FOUND.get(game_id)


def seat_margin(values, seat: int) -> float:
    """``seat``'s score over the best other seat's (negative when behind)."""
    best_other = max((v for i, v in enumerate(values) if i != seat), default=0.0)
    return values[seat] - best_other


def seat_reward(values, seat: int, scale: float, centre: float = 0.0) -> float:
    """A reward in [0, 1] for ``seat`` from per-seat scores: its margin over the best other seat,
    less ``centre``, squashed so that ``scale`` points above the centre are worth about 0.88
    (0.5 = the centre: level with the best other seat when ``centre`` is 0)."""
    from math import tanh

    return 0.5 + 0.5 * tanh((seat_margin(values, seat) - centre) / scale)


@hookimpl
def tlachtli_evaluators() -> list[EvaluatorSpec]:
    # Imported here, not at the top: plugin discovery imports this module in every agent process
    # (a `random` bot too), and the evaluators import both engines (~40% of an agent's start-up).
    from . import teotihuacan_eval, zapotec_eval

    return [
        EvaluatorSpec(
            game="teotihuacan",
            evaluate=teotihuacan_eval.evaluate,
            description="VP plus a fitted linear forecast: holdings by the game left, Temple Bonus and final scoring now, Eclipse standing, salary",
            scale=25.0,
            depth=10,  # a turn is a chain of a few small decisions (measured: docs/bots.md)
            reward="gain",  # far behind Teotibot, a win reward is ~0 everywhere (docs/bots.md)
            # greedy's look-ahead ends with the turn (the turn decision asked again after a tile or
            # a paid unlock opens none): +12 VP a game against Teotibot, 3 ms a decision (docs/bots.md)
            turn_start=("turn",),
            turn_count=teotihuacan_eval.turns_played,
            greedy_plies=2,  # greedy searches 2 decisions of its turn, 3 options of the second:
            greedy_width=3,  # +13 VP a game more against Teotibot, 5 ms a decision (docs/bots.md)
            # greedy plays its 3 best options on through its next 2 turns, its own choices (~140 ms a
            # decision): 32% to 70% of fresh deals against Teotibot (1 turn: 59%; docs/bots.md)
            greedy_turns=2,
            # ismcts's root options start at greedy's values (its play-outs), worth 3000 visits: at 300
            # iterations +8.2 VP a game against Teotibot over 300 visits of its look-ahead, +7.5 over
            # those at 1200 iterations; as greedy alone. Against other agents too, greedy's play-outs
            # modelling their turns: 2-player, 1200 iterations, 72 of 80 games (90%; 65% before)
            # against last round's ismcts (docs/bots.md)
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
        EvaluatorSpec(
            game="zapotec",
            evaluate=zapotec_eval.evaluate,
            description="score plus the end scoring if the game ended now, resources, Houses by rounds left, open Pyramid pieces",
            scale=10.0,
            # solo: 6 (about one turn's Capital actions and builds) was the best of 1/3/6/12/40 at 100
            # iterations with random playouts; at 2000 with MAST, 12 won 72 of 81 deals against 66
            # (+6.0 VP a game) and 89% of 200; 9, 16 and 20 lost 2-3 VP to it (docs/bots.md)
            depth=12,
            # against other agents, whose random moves fill the playout: 40 beat 6; 20 (about the
            # seat's own turn) won as often as 40 and costs 30% less a decision (docs/bots.md)
            rivals_depth=20,
            turn_start=(
                "choose-card",
            ),  # greedy's look-ahead ends with the turn: +2.8 VP on fresh deals (docs/bots.md)
            greedy_plies=5,  # greedy searches 5 decisions of its turn, 3 options each after the first:
            greedy_width=3,  # +10 VP a game against Cocijobot, ~30 ms a decision (docs/bots.md)
            # playouts by each move's mean reward (MAST), at 2000 iterations: solo +4.0 VP a game
            # (s.e. 1.6) against Cocijobot, 71 to 80 of 100 fresh deals; 2 players, against last
            # round's ismcts, 58% of 152 games with random playouts, 81% of 200 with MAST (docs/bots.md)
            ismcts_policy="mast",
        ),
    ]

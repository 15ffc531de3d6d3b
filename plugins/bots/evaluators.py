"""The bundled evaluators (a plugin) and the lookup search bots use to find a game's evaluator.

Any plugin may offer evaluators through the ``tlachtli_evaluators`` hook (arena/registry/plugins.py);
``find_evaluator`` collects them all once per process.
"""

from __future__ import annotations

from typing import Any

from arena.registry.plugins import EvaluatorSpec, PluginError, hookimpl, plugin_manager

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
        ),
    ]

"""A plugin whose evaluator names a reward no search bot has: discovery must refuse it, naming
the plugin and the setting (not an agent option nobody passed)."""

from __future__ import annotations

from arena.registry.plugins import EvaluatorSpec, hookimpl


@hookimpl
def tlachtli_evaluators() -> list[EvaluatorSpec]:
    return [EvaluatorSpec(game="goofspiel", evaluate=lambda state: [0.0, 0.0], reward="smart")]

"""A plugin that offers a second Zapotec evaluator: discovery must refuse the clash."""

from __future__ import annotations

from arena.registry.plugins import EvaluatorSpec, hookimpl


@hookimpl
def tlachtli_evaluators() -> list[EvaluatorSpec]:
    return [EvaluatorSpec(game="zapotec", evaluate=lambda state: [0.0], description="clash")]

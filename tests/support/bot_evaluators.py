"""A third-party evaluator plugin for the test game goofspiel: the scores so far plus the prize on offer."""

from __future__ import annotations

from arena.registry.plugins import EvaluatorSpec, hookimpl


def evaluate(state) -> list[float]:
    return [float(score) for score in state.scores]


@hookimpl
def tlachtli_evaluators() -> list[EvaluatorSpec]:
    return [EvaluatorSpec(game="goofspiel", evaluate=evaluate, description="scores so far", scale=5.0)]

"""The learned value function: a small multilayer perceptron per game, run in numpy.

The network reads one row of ``value_features.seat_features`` per seat and predicts what the
seat's final score adds to the points it has banked; ``evaluator(game, options)`` turns it into an
evaluator (``state -> one estimated final score per seat``) that ``greedy``, ``ismcts`` and the
``value`` agent use as they use the linear tables.

Its weights ship in the package (plugins/bots/weights/value-KIND.npz, a few tens of kB, KIND a
game or ``teotihuacan-modules`` for Teotihuacan with Late Preclassic modules), made
by bench/train_value.py (``fit``: scikit-learn's MLPRegressor, the ``train`` extra). Play needs
numpy only: the forward pass below is the regressor's (ReLU hidden layers, a linear output, the
inputs standardised by the training rows' mean and spread), one matrix product a layer for all
seats at once. Each game's file is read once per process.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from .value_features import kind, names, seat_features

WEIGHTS = Path(__file__).resolve().parent / "weights"


def weights_path(rows: str) -> Path:
    """Where the network over feature rows of kind ``rows`` (a game, or
    ``value_features.KINDS``) is shipped."""
    return WEIGHTS / f"value-{rows}.npz"


@dataclass(frozen=True)
class ValueNet:
    """A fitted network: input standardisation, layers, and the target's scale."""

    mean: np.ndarray  # of each input column over the training rows
    spread: np.ndarray  # their standard deviation (1 where a column is constant)
    weights: tuple[np.ndarray, ...]  # one (inputs, outputs) matrix a layer
    biases: tuple[np.ndarray, ...]
    target_mean: float  # the network predicts (final - banked - target_mean) / target_spread
    target_spread: float
    columns: tuple[str, ...]  # the input columns it was trained on (value_features.names)

    def predict(self, rows: np.ndarray) -> np.ndarray:
        """The forecast (final score - points banked) for each row of ``rows`` (2-D)."""
        hidden = (rows - self.mean) / self.spread
        last = len(self.weights) - 1
        for layer, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            hidden = hidden @ w + b
            if layer < last:
                np.maximum(hidden, 0.0, out=hidden)  # ReLU
        return hidden[:, 0] * self.target_spread + self.target_mean

    def save(self, path: Path, **meta: Any) -> None:
        """Write the network (and ``meta``, e.g. the command that made it) to ``path`` (.npz)."""
        arrays: dict[str, Any] = {
            "mean": self.mean,
            "spread": self.spread,
            "target": np.array([self.target_mean, self.target_spread]),
            "columns": np.array(self.columns),
            "layers": np.array(len(self.weights)),
        }
        for i, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            arrays[f"w{i}"], arrays[f"b{i}"] = w, b
        arrays.update({f"meta_{key}": np.array(str(value)) for key, value in meta.items()})
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(path, **arrays)

    @classmethod
    def load(cls, path: Path) -> ValueNet:
        """The network saved at ``path``."""
        with np.load(path) as data:
            layers = int(data["layers"])
            return cls(
                mean=data["mean"],
                spread=data["spread"],
                weights=tuple(data[f"w{i}"] for i in range(layers)),
                biases=tuple(data[f"b{i}"] for i in range(layers)),
                target_mean=float(data["target"][0]),
                target_spread=float(data["target"][1]),
                columns=tuple(str(c) for c in data["columns"]),
            )


@cache
def network(rows: str) -> ValueNet | None:
    """The shipped network over rows of kind ``rows`` (a game, or ``value_features.KINDS``),
    read once per process (None: none ships for it). A file whose columns are not today's
    features is refused: the features changed since it was trained."""
    path = weights_path(rows)
    if not path.exists():
        return None
    net = ValueNet.load(path)
    if list(net.columns) != names(rows):
        raise ValueError(f"{path.name} was trained on other features: retrain it (bench/train_value.py)")
    return net


def has_network(game: str, options: Mapping[str, Any] | None = None) -> bool:
    """Whether a network ships for ``game`` played with ``options`` (the match's game options)."""
    return weights_path(kind(game, options)).exists()


def evaluator(game: str, options: Mapping[str, Any] | None = None) -> Callable[[Any], list[float]]:
    """The network as an evaluator for ``game`` played with ``options`` (Teotihuacan's modules
    pick their own network): a state -> every seat's estimated final score (the final scores
    themselves once the game is over)."""
    rows = kind(game, options)
    net = network(rows)
    if net is None:
        raise ValueError(f"no value network ships for {rows!r}")

    def evaluate(state: Any) -> list[float]:
        if state.terminal():
            return [float(s) for s in state.result().scores]
        banked, features = seat_features(rows, state)
        return (banked + net.predict(features)).tolist()

    return evaluate

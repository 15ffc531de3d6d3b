"""Move-Average Sampling (MAST) for ``ismcts`` playouts: the mean reward of each move, whatever the position.

Every move an iteration makes (in the tree and in the playout), keyed by seat and option label,
adds the reward its seat got at the end of that iteration. A playout then takes, with
probability ``1 - epsilon``, the legal option with the best mean so far (a move never seen counts
as the best reward, so each gets tried), else a uniformly random one (Finnsson and Björnsson
2008; in ISMCTS: Powley, Whitehouse and Cowling 2013). It is game-independent and cheap: a dict
lookup per option, no evaluator call.
"""

from __future__ import annotations

from random import Random

from engine.draws import below

UNSEEN = 1.0  # the mean of a move not yet seen: the best reward, so that it gets tried


class MoveAverages:
    """Per move key, [total reward, times played]; ``choose`` picks a playout move from them."""

    __slots__ = ("table",)

    def __init__(self) -> None:
        self.table: dict[tuple, list[float]] = {}

    def add(self, key: tuple, reward: float) -> None:
        """Count one more play of ``key`` that ended with ``reward`` for its seat."""
        entry = self.table.get(key)
        if entry is None:
            self.table[key] = [reward, 1.0]
        else:
            entry[0] += reward
            entry[1] += 1.0

    def decay(self, factor: float) -> None:
        """Weigh what was learned so far by ``factor`` before a new decision's search: the means
        stay, their counts shrink, so the new search's moves soon outweigh them (0 forgets all)."""
        if factor <= 0:
            self.table.clear()
            return
        for entry in self.table.values():
            entry[0] *= factor
            entry[1] *= factor

    def mean(self, key: tuple) -> float:
        entry = self.table.get(key)
        return UNSEEN if entry is None else entry[0] / entry[1]

    def choose(self, keys: list[tuple], rng: Random, epsilon: float) -> int:
        """An index into ``keys``: at random with probability ``epsilon``, else the best mean
        (ties to the lowest index)."""
        if rng.random() < epsilon:
            return below(rng, len(keys))
        best, best_mean = 0, -1.0
        for i, key in enumerate(keys):
            mean = self.mean(key)
            if mean > best_mean:
                best, best_mean = i, mean
        return best

"""Checks on what less-trusted cluster workers report: audits by replay, and result statistics.

A worker's record is checked by replay (arena/tournament/run/verify.py): its moves are legal and give
the result it claims. That proves nothing about *who* chose the moves: a worker could play a
seat with another bot and return a consistent record. Two checks find that:

- **audits**: a share of each worker's matches is played again on the submitting machine and
  compared move by move (``first_difference``). Where the seats' bots are deterministic for
  their seed (fixed iteration budgets, seeded generators) the moves must be the same; a second
  local play tells a lying worker (the two local plays agree, the worker's differs) from bots
  that are not deterministic (the local plays differ too: no verdict);
- **statistics** (``WorkerStats``): each agent's mean result on each worker is compared with the
  same agent's results in the matches played here (the audits' plays: the only results no worker
  could forge); a worker whose seats do far better than chance allows (a z-score over
  ``FLAG_Z``) is flagged.

arena/tournament/run/cluster.py acts on both: the worker is distrusted and the matches it played in
the run are played again elsewhere (docs/cluster.md, *What a certificate holder can still do*).
"""

from __future__ import annotations

import math
import threading
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

AUDIT_SHARE = 0.1  # of each worker's matches, played again here by default
FLAG_Z = 4.0  # how far beyond chance a worker's seats must do to be flagged
MIN_GAMES = 8  # results of an agent on a worker (and elsewhere) before it is judged
HERE = "here"  # the results of the matches played on the submitting machine (audits)
MIN_VARIANCE = 0.05  # a floor on a result's variance: a handful of equal results is not certainty


def first_difference(reported: Mapping[str, Any], replayed: Mapping[str, Any]) -> str | None:
    """Where two records of one match part (the first move of another seat or choice, or a
    different length), in words; None when every move is the same."""
    ours = [(move["seat"], move["choice"]) for move in replayed["moves"]]
    theirs = [(move["seat"], move["choice"]) for move in reported["moves"]]
    for index, (a, b) in enumerate(zip(theirs, ours, strict=False), 1):
        if a != b:
            return f"move {index} is seat {a[0]} choosing {a[1]} there, seat {b[0]} choosing {b[1]} here"
    if len(theirs) != len(ours):
        return f"{len(theirs)} moves there, {len(ours)} here"
    return None


def seat_results(record: Mapping[str, Any]) -> dict[str, float]:
    """Each agent's result in a match, 1 for first place down to 0 for last (ties share)."""
    ranks = record["result"]["ranks"]
    players = len(ranks)
    if players < 2:
        return {}
    return {
        str(entry.get("display", entry["agent"])): (players - rank) / (players - 1)
        for entry, rank in zip(record["agents"], ranks, strict=True)
    }


class WorkerStats:
    """Each agent's results by worker (or "here"), to find a worker whose seats do too well."""

    def __init__(self) -> None:
        self._results: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
        self._lock = threading.Lock()  # audits add their plays from threads of their own

    def add(self, worker: str, record: Mapping[str, Any]) -> None:
        with self._lock:
            for agent, result in seat_results(record).items():
                self._results[worker][agent].append(result)

    def flagged(self, worker: str) -> str | None:
        """Why ``worker``'s results are far beyond chance (an agent's mean there against its mean in
        the matches played HERE, the only results nobody could forge, in standard errors), or None.
        Against other workers it could not tell: a rogue's wins are its honest peers' losses."""
        with self._lock:
            results = {
                name: (list(found), list(self._results[HERE].get(name, [])))
                for name, found in self._results[worker].items()
            }
        for agent, (there, here) in results.items():
            if worker == HERE:
                continue
            if len(there) < MIN_GAMES or len(here) < MIN_GAMES:
                continue
            z = _z(there, here)
            if z > FLAG_Z:
                return (
                    f"its {agent!r} did far better than on this machine: mean result {_mean(there):.2f} in"
                    f" {len(there)} matches there, {_mean(here):.2f} in {len(here)} here ({z:.1f} standard errors)"
                )
        return None


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def _variance(values: list[float]) -> float:
    mean = _mean(values)
    return max(MIN_VARIANCE, sum((v - mean) ** 2 for v in values) / max(1, len(values) - 1))


def _z(there: list[float], elsewhere: list[float]) -> float:
    error = math.sqrt(_variance(there) / len(there) + _variance(elsewhere) / len(elsewhere))
    return (_mean(there) - _mean(elsewhere)) / error

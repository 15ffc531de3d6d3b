"""The table of a solo ladder: agents ranked by their mean margin against the automaton.

In a solo ladder every agent plays the same deals (seeds) against the game's automaton, so
scores compare directly and TrueSkill or the MLE fit (which see only wins and losses against
one common opponent that nearly always wins) are the wrong tools. The unit is the deal: an
agent's margin on a deal is its score minus the automaton's, averaged over the agent's matches
of that deal (one match with ``players = 1``). docs/ratings.md has the formulas.

- ``mean_margin`` with a 95% Student-t interval over the agent's deals;
- ``gap_above``: the row above's margin minus this row's, paired over the deals both played
  (the deal's luck cancels, so this interval is far narrower than the two rows' own);
- ``win_rate``: matches finished ahead of the automaton (a tie counts half), Wilson interval.

The automaton's seat is the last of every match (``arena.match.spec.table_seats``); it is not a row.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from statistics import fmean, stdev
from typing import Any

from arena.tournament.stats.elo import wilson_interval
from arena.tournament.stats.ratings import SeatLine, effective_ranks


def t_quantile(df: int) -> float:
    """The two-sided 95% quantile of Student's t with ``df`` degrees of freedom."""
    from scipy.stats import t  # here: scipy loads only when a table is asked for

    return float(t.ppf(0.975, df))


def mean_interval(values: Sequence[float]) -> tuple[float, float | None, float | None]:
    """The mean of ``values`` with its 95% t interval; no interval with fewer than two values."""
    mean = fmean(values)
    if len(values) < 2:
        return mean, None, None
    half = t_quantile(len(values) - 1) * stdev(values) / math.sqrt(len(values))
    return mean, mean - half, mean + half


@dataclass
class _Agent:
    """What one agent did, deal by deal (a deal is a seed)."""

    margins: dict[int, list[int]] = field(default_factory=dict)
    scores: dict[int, list[int]] = field(default_factory=dict)
    matches: int = 0
    points: float = 0.0  # ahead of the automaton 1, level 1/2
    faults: int = 0

    def deal_margins(self) -> dict[int, float]:
        return {deal: fmean(values) for deal, values in self.margins.items()}


def solo_rows(matches: Iterable[tuple[int, Sequence[SeatLine]]]) -> list[dict[str, Any]]:
    """The solo table from done matches given as (seed, seats); the last seat is the automaton.

    One dict per agent, best mean margin first: rank, agent, mean_margin, margin_low,
    margin_high, gap_above, gap_low, gap_high, gap_deals, mean_score, win_rate, win_low,
    win_high, deals, matches, faults (None where a figure needs more deals).
    """
    agents: dict[str, _Agent] = {}
    for seed, seats in matches:
        automaton = seats[-1]
        ranks = effective_ranks(seats)
        for seat, rank in zip(seats[:-1], ranks[:-1], strict=True):
            agent = agents.setdefault(seat.agent, _Agent())
            agent.margins.setdefault(seed, []).append(seat.score - automaton.score)
            agent.scores.setdefault(seed, []).append(seat.score)
            agent.matches += 1
            agent.points += 1.0 if rank < ranks[-1] else 0.5 if rank == ranks[-1] else 0.0
            agent.faults += seat.fault is not None
    by_deal = {name: agent.deal_margins() for name, agent in agents.items()}
    means = {name: fmean(margins.values()) for name, margins in by_deal.items()}
    order = sorted(agents, key=lambda name: (-means[name], name))
    rows = []
    for place, name in enumerate(order, start=1):
        agent = agents[name]
        mean, low, high = mean_interval(list(by_deal[name].values()))
        above = by_deal[order[place - 2]] if place > 1 else None
        gap, gap_low, gap_high, shared = paired_gap(above, by_deal[name]) if above else (None,) * 4
        win_low, win_high = wilson_interval(agent.points, agent.matches)
        rows.append(
            {
                "rank": place,
                "agent": name,
                "mean_margin": _round(mean),
                "margin_low": _round(low),
                "margin_high": _round(high),
                "gap_above": _round(gap),
                "gap_low": _round(gap_low),
                "gap_high": _round(gap_high),
                "gap_deals": shared,
                "mean_score": _round(fmean(fmean(scores) for scores in agent.scores.values())),
                "win_rate": _round(agent.points / agent.matches),
                "win_low": _round(win_low),
                "win_high": _round(win_high),
                "deals": len(agent.margins),
                "matches": agent.matches,
                "faults": agent.faults,
            }
        )
    return rows


def paired_gap(
    above: dict[int, float], below: dict[int, float]
) -> tuple[float | None, float | None, float | None, int]:
    """``above`` minus ``below`` over the deals both played: mean, 95% t interval, deal count."""
    shared = sorted(above.keys() & below.keys())
    if not shared:
        return None, None, None, 0
    mean, low, high = mean_interval([above[deal] - below[deal] for deal in shared])
    return mean, low, high, len(shared)


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)

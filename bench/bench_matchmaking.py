"""Season matchmaking against a round robin and the swiss format, on simulated seasons (no engine).

Every bot has a known strength (Elo, normal with sd ``--spread``); a game's order is drawn from
the Plackett-Luce model of those strengths, the model the MLE table fits. Half the bots are
there at the start, the rest arrive over the first 80% of the games; 10% of all bots are new
versions of a bot already there (stronger by 20 to 150 Elo; the old version withdraws), 2% crash
in 30% of their games. Each schedule plays the same budget of games on the same field:

- **season**: arena/tournament/plan/matchmaking.py (its default knobs, ``--seats`` as the game
  allows), the final phase over the last ``--final`` share of the budget, stopping early when
  the top 10 are separated at 95%; a game with a crash is voided (only the offender's rating
  moves) and a bot with 3 errors in 10 games is suspended;
- **round robin**: every active bot plays equally often against opponents at random (a round
  robin's cycle, shuffled: a full one of 1,000 bots needs 500,000 pairs), forfeits rated last;
- **swiss**: arena/tournament/plan/swiss.py's rounds (every agent a leader, most uncertain first,
  grouped by match quality over meetings), 2 seats only (its rounds rescore every pair: too
  slow beyond ``--swiss-max`` bots), the widths from the MLE fit every round.

Measured on the final MLE table (voided games left out) of the bots active at the end, crashing
bots excepted: Kendall tau against the true order; whether the top 10 are exact (no bot ranked
below one of the top 10 is 20 Elo or more stronger than it); games until a new bot's live rank
(TrueSkill mu) stays within 5% of its final one; the share of seats the crashing bots took; and
for the season how far the top 10 moved (mean and largest change of rank) in the final phase.

Usage: python bench/bench_matchmaking.py [--bots N] [--games G] [--seats 2,3,4] [--seed S]
       [--spread ELO] [--final SHARE] [--swiss-max N]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from unittest import mock

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.tournament.plan import swiss  # noqa: E402
from arena.tournament.plan.matchmaking import Matchmaker, MatchmakingPolicy, counted  # noqa: E402
from arena.tournament.stats.elo import ELO_PER_NAT  # noqa: E402
from arena.tournament.stats.ratings import SeatLine, effective_ranks  # noqa: E402
from arena.tournament.stats.ratings_mle import mle_ratings  # noqa: E402

CRASH_RATE = 0.3  # a crashing bot crashes in this share of its games
TRACK = 100  # a new bot's live rank is followed over its first this many games
IN_A_ROW = 10  # placed: within 5% of its final rank for this many games in a row
CLUSTERS = 200  # games grouped at random into this many deals for the MLE intervals
TOP = 10


@dataclass
class World:
    """The bots, their strengths and when they arrive: the same for every schedule."""

    strength: np.ndarray  # Elo
    crashes: np.ndarray  # bool
    arrive: np.ndarray  # game index of arrival (0: there from the start)
    replaces: dict[int, int]  # new version -> the bot it replaces


def make_world(bots: int, games: int, spread: float, seed: int) -> World:
    rng = np.random.default_rng(seed)
    strength = rng.normal(0, spread, bots)
    crashes = np.zeros(bots, dtype=bool)
    crashes[rng.choice(bots, max(1, round(0.02 * bots)), replace=False)] = True
    arrive = np.where(np.arange(bots) < bots // 2, 0, rng.integers(1, max(2, int(0.8 * games)), bots))
    order = np.argsort(arrive, kind="stable")
    replaces: dict[int, int] = {}
    versions = [int(b) for b in order[bots // 2 :] if not crashes[b]][: round(0.1 * bots)]
    for bot in versions:  # an older bot, there before it and not yet replaced, gets a stronger version
        taken = set(replaces) | set(replaces.values())
        olders = [int(b) for b in order if arrive[b] < arrive[bot] and not crashes[b] and b not in taken]
        if olders:
            old = olders[int(rng.integers(len(olders)))]
            replaces[bot] = old
            strength[bot] = strength[old] + rng.uniform(20, 150)
    return World(strength, crashes, arrive, replaces)


@dataclass
class Log:
    """What a schedule played and what the measures need of it."""

    games: list[tuple[Any, Sequence[SeatLine]]] = field(default_factory=list)  # (deal, seats) that count
    seats: int = 0
    crash_seats: int = 0
    ranks: dict[int, list[float]] = field(default_factory=dict)  # new bot -> live rank fraction per game
    played: int = 0
    final: dict[str, object] = field(default_factory=dict)
    window: tuple[int, int] = (0, 0)  # games over which settled bots' live ranks are sampled
    settled: list[tuple[int, float]] = field(default_factory=list)  # (bot, live rank fraction)

    @classmethod
    def of(cls, budget: int) -> Log:
        """A log sampling settled bots between half the budget and the final phase's start."""
        return cls(window=(budget // 2, int(0.9 * budget)))


def outcome(world: World, group: list[int], rng: np.random.Generator) -> tuple[list[int], list[bool]]:
    """Places (1 = first) by Plackett-Luce (Gumbel noise on strength), and who crashed."""
    noisy = world.strength[group] / ELO_PER_NAT + rng.gumbel(size=len(group))
    places = list(np.argsort(np.argsort(-noisy)) + 1)
    errors = [bool(world.crashes[b] and rng.random() < CRASH_RATE) for b in group]
    return [int(p) for p in places], errors


def seat_lines(group: list[int], places: list[int], errors: list[bool]) -> list[SeatLine]:
    return [
        SeatLine(f"b{b}", 0, place, "crash" if error else None)
        for b, place, error in zip(group, places, errors, strict=True)
    ]


def track(log: Log, world: World, bot: int, mu: np.ndarray, active: np.ndarray, index: int) -> None:
    """Record a new bot's live rank (share of active bots with a higher mu) after its game; and
    every tenth game, a settled bot's (there from the start), for the live table's own noise."""
    if world.crashes[bot]:
        return
    if world.arrive[bot] == 0:
        if log.window[0] <= log.played < log.window[1] and log.played % 10 == 0:
            log.settled.append((bot, live_rank(mu, active, index)))
        return
    ranks = log.ranks.setdefault(bot, [])
    if len(ranks) < TRACK:
        ranks.append(live_rank(mu, active, index))


def live_rank(mu: np.ndarray, active: np.ndarray, index: int) -> float:
    """The share of active bots with a higher TrueSkill mu."""
    return float(np.count_nonzero(mu[active] > mu[index])) / max(1, int(active.sum()))


def arrivals(world: World) -> list[tuple[int, int]]:
    return sorted((int(world.arrive[b]), b) for b in range(len(world.strength)))


# -- the schedules ------------------------------------------------------------------------


class Book:
    """Today's TrueSkill (as the leaderboard rates: forfeits last, every seat counts), incremental."""

    def __init__(self, bots: int) -> None:
        import trueskill

        self.env = trueskill.TrueSkill(draw_probability=swiss.DRAW_PROBABILITY, backend=None)
        self.mu = np.full(bots, self.env.mu)
        self.sigma = np.full(bots, self.env.sigma)
        self.active = np.zeros(bots, dtype=bool)

    def rate(self, group: list[int], lines: list[SeatLine]) -> None:
        teams = [(self.env.create_rating(self.mu[b], self.sigma[b]),) for b in group]
        for b, (rating,) in zip(group, self.env.rate(teams, ranks=effective_ranks(lines)), strict=True):
            self.mu[b], self.sigma[b] = rating.mu, rating.sigma


def join(world: World, book: Book, bot: int) -> None:
    """A bot arrives; the older version it replaces withdraws."""
    book.active[bot] = True
    if bot in world.replaces:
        book.active[world.replaces[bot]] = False


def play_round_robin(world: World, budget: int, seats: tuple[int, ...], seed: int) -> Log:
    rng = np.random.default_rng(seed)
    book, log, queue = Book(len(world.strength)), Log.of(budget), arrivals(world)
    waiting: list[int] = []
    while log.played < budget:
        while queue and queue[0][0] <= log.played:
            join(world, book, queue.pop(0)[1])
        if not waiting:  # a new cycle: every active bot once, in a random order
            waiting = list(rng.permutation(np.flatnonzero(book.active)))
        size = min(int(rng.choice(seats)), int(book.active.sum()))
        if len(waiting) < size:
            waiting += [b for b in rng.permutation(np.flatnonzero(book.active)) if b not in waiting]
        group = [int(b) for b in waiting[:size]]
        del waiting[:size]
        play_game(world, log, book, group, rng)
    return log


def play_game(world: World, log: Log, book: Book, group: list[int], rng: np.random.Generator) -> None:
    """One game of a baseline: rated as today (forfeits last), logged, new bots tracked."""
    places, errors = outcome(world, group, rng)
    lines = seat_lines(group, places, errors)
    book.rate(group, lines)
    log.games.append((log.played % CLUSTERS, lines))
    count(world, log, group)
    for b in group:
        track(log, world, b, book.mu, book.active, b)
    log.played += 1


def count(world: World, log: Log, group: list[int]) -> None:
    log.seats += len(group)
    log.crash_seats += int(world.crashes[group].sum())


def play_swiss(world: World, budget: int, seed: int) -> Log:
    """swiss.py's rounds at 2 seats; its leaderboard replay swapped for the incremental one."""
    rng = np.random.default_rng(seed)
    book, log, queue = Book(len(world.strength)), Log.of(budget), arrivals(world)
    meetings: Counter[frozenset[str]] = Counter()
    while log.played < budget:
        while queue and queue[0][0] <= log.played:
            join(world, book, queue.pop(0)[1])
        names = [f"b{b}" for b in np.flatnonzero(book.active)]
        fits = mle_ratings(log.games) if len(log.games) > 1 else {}
        played = Counter(line.agent for _, lines in log.games for line in lines)
        widths = {
            name: None
            if fit.low is None or fit.high is None or fit.matches < swiss.MIN_DEALS * 2
            else fit.high - fit.low
            for name, fit in fits.items()
        }
        leaders = swiss.uncertain(names, widths, None, played)
        ladder = SimpleNamespace(entrants=[SimpleNamespace(name=name) for name in names], players=2)
        standings = [
            SimpleNamespace(agent=n, mu=book.mu[int(n[1:])], sigma=book.sigma[int(n[1:])]) for n in names
        ]
        with mock.patch.object(swiss, "leaderboard", lambda _, rows=standings: rows):
            groups = swiss.next_round(ladder, [], meetings, leaders)  # type: ignore[arg-type]
        for group in groups:
            meetings[frozenset(group)] += 1
            for rotation in (group, group[::-1]):  # the deal in both seatings
                if log.played < budget:
                    play_game(world, log, book, [int(n[1:]) for n in rotation], rng)
    return log


def play_season(world: World, budget: int, seats: tuple[int, ...], final: float, seed: int) -> Log:
    policy = MatchmakingPolicy(seats=seats, final_budget=max(1, int(final * budget)))
    maker = Matchmaker(policy, seed)
    rng = np.random.default_rng(seed + 1)
    log, queue = Log.of(budget), arrivals(world)
    final_at = budget - policy.final_budget
    check = max(100, policy.final_budget // 20)  # games between two looks at the stop rule
    top_before: list[str] = []
    among: list[tuple[Any, Sequence[SeatLine]]] = []  # the games among the top K (the stop rule's fit)
    while log.played < budget:
        while queue and queue[0][0] <= log.played and log.played < final_at:
            bot = queue.pop(0)[1]
            maker.join(f"b{bot}")
            if bot in world.replaces and f"b{world.replaces[bot]}" in maker.index:
                maker.withdraw(f"b{world.replaces[bot]}")
        if log.played == final_at:
            top_before = mle_order(log, maker.table())[:TOP]
            maker.start_final(top_before)
            among = [(d, s) for d, s in log.games if all(line.agent in top_before for line in s)]
        if maker.final_top is not None and (log.played - final_at) % check == 0 and log.played > final_at:
            fits = mle_ratings(among)
            order = sorted(maker.final_top, key=lambda n: -fits[n].elo if n in fits else 0)
            if maker.final_over(fits, order):
                break
        group_names = maker.next_group()
        if group_names is None:
            break
        group = [int(name[1:]) for name in group_names]
        places, errors = outcome(world, group, rng)
        maker.record(group_names, places, errors)
        for game in counted([(log.played % CLUSTERS, seat_lines(group, places, errors))]):
            log.games.append(game)  # the published table leaves voided games out
            if maker.final_top is not None:
                among.append(game)
        count(world, log, group)
        for b in group:
            track(log, world, b, maker.mu, maker.active, maker.index[f"b{b}"])
        log.played += 1
    if top_before:
        after = mle_order(log, maker.table())
        moves = [abs(after.index(n) - k) if n in after else len(after) for k, n in enumerate(top_before)]
        log.final = {"games": log.played - final_at, "mean": float(np.mean(moves)), "max": max(moves)}
    log.final["suspended"] = len(maker.suspended)
    return log


# -- the measures -------------------------------------------------------------------------


def mle_order(log: Log, names: list[str]) -> list[str]:
    fits = mle_ratings(log.games)
    return sorted(names, key=lambda n: (-fits[n].elo if n in fits else 0.0, n))


@dataclass
class Measures:
    """One schedule's figures on the final table."""

    tau: float  # Kendall tau against the true order
    inversions: int  # pairs out of order by >= 20 Elo with one of them in the top 10
    placed: list[int]  # each new bot's games until placed
    settled: float  # share of settled bots' sampled games with the live rank within 5%
    crash_share: float  # crashing bots' share of the seats
    played: int


def measure(world: World, log: Log, active: list[int]) -> Measures:
    from scipy.stats import kendalltau

    honest = [b for b in active if not world.crashes[b]]
    order = [int(n[1:]) for n in mle_order(log, [f"b{b}" for b in honest])]
    tau = kendalltau(np.arange(len(order)), -world.strength[order]).statistic
    bad = sum(
        1
        for k, a in enumerate(order[:TOP])
        for b in order[k + 1 :]
        if world.strength[b] >= world.strength[a] + 20
    )
    where = {b: k / len(order) for k, b in enumerate(order)}
    placed = []
    for bot, ranks in log.ranks.items():
        if bot not in where or len(ranks) < TRACK:
            continue
        within = [abs(r - where[bot]) <= 0.05 for r in ranks]
        runs = (g for g in range(TRACK - IN_A_ROW + 1) if all(within[g : g + IN_A_ROW]))
        placed.append(next(runs, TRACK) + 1)  # its games when it was placed (TRACK + 1: never)
    settled = [abs(r - where[bot]) <= 0.05 for bot, r in log.settled if bot in where]
    return Measures(
        tau=float(tau),
        inversions=bad,
        placed=placed,
        settled=float(np.mean(settled)) if settled else float("nan"),
        crash_share=log.crash_seats / max(1, log.seats),
        played=log.played,
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--bots", type=int, default=60)
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--seats", default="2", help="seat counts the game allows, e.g. 2,3,4")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--spread", type=float, default=200.0, help="sd of the true strengths (Elo)")
    parser.add_argument("--final", type=float, default=0.1, help="share of the budget for the final phase")
    parser.add_argument("--swiss-max", type=int, default=80, help="skip the swiss beyond this many bots")
    args = parser.parse_args([] if argv is None and Path(sys.argv[0]).name == "run_all.py" else argv)
    seats = tuple(int(n) for n in args.seats.split(","))
    world = make_world(args.bots, args.games, args.spread, args.seed)
    print(
        f"{args.bots} bots ({len(world.replaces)} new versions, {int(world.crashes.sum())} crashing),"
        f" {args.games} games of {args.seats} seats, spread {args.spread:g} Elo, seed {args.seed};"
        f" {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}"
    )
    ended = {b for b in range(args.bots)} - set(world.replaces.values())
    rows = []
    schedules = [
        ("season", lambda: play_season(world, args.games, seats, args.final, args.seed)),
        ("round robin", lambda: play_round_robin(world, args.games, seats, args.seed)),
    ]
    if seats == (2,) and args.bots <= args.swiss_max:
        schedules.append(("swiss", lambda: play_swiss(world, args.games, args.seed)))
    for label, run in schedules:
        started = time.perf_counter()
        log = run()
        seconds = time.perf_counter() - started
        rows.append((label, measure(world, log, sorted(ended)), log, seconds))
    print(
        f"{'schedule':12s} {'games':>8s} {'tau':>6s} {'top 10':>7s} {'placed (median/p90, <=50)':>26s}"
        f" {'settled':>7s} {'crash seats':>11s} {'final: games, top-10 moves':>27s} {'s':>6s}"
    )
    for label, m, log, seconds in rows:
        placed = m.placed
        place = (
            f"{np.median(placed):.0f}/{np.percentile(placed, 90):.0f}, {np.mean(np.array(placed) <= 50):.0%}"
            if placed
            else "-"
        )
        fin = (
            f"{log.final['games']}, mean {log.final['mean']:.1f} max {log.final['max']}"
            if "games" in log.final
            else "-"
        )
        top = f"{'yes' if m.inversions == 0 else 'no'} ({m.inversions})"
        print(
            f"{label:12s} {m.played:8d} {m.tau:6.3f} {top:>7s} {place:>26s} {m.settled:7.0%}"
            f" {m.crash_share:11.2%}"
            f" {fin:>27s} {seconds:6.0f}"
        )
    print(
        f"(placed: games until {IN_A_ROW} in a row within 5% of the final rank, {TRACK + 1} = not in {TRACK} games;"
        " settled: share of the games of bots there from the start with the live rank within 5%;"
        " top 10 in brackets: pairs out of order by >= 20 Elo)"
    )


if __name__ == "__main__":
    main()

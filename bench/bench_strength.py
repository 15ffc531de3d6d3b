"""Strength of the bundled search bots, in process: paired deals, Wilson 95% intervals on the win
rates, the mean margin with its standard error, games spread over ``--workers`` processes.

    .venv/bin/python bench/bench_strength.py --games 100 --iterations 200
    .venv/bin/python bench/bench_strength.py --game zapotec --pairing ismcts-automaton \
        --iterations 3000 --games 50 --first-deal 50 --ismcts-option reward=win --workers 16
    .venv/bin/python bench/bench_strength.py --game teotihuacan --pairing greedy-automaton \
        --games 40 --save new.json --paired-with old.json

Pairings: ismcts vs Teotibot, vs Cocijobot (normal), vs flatmc (2 players, both games, both
seatings of each deal), vs a rival ismcts (``ismcts-ismcts``: "last round's ismcts",
the code and evaluator tables of ``--rival-commit``, by default the bots of commit 3f100e2
(bench/rival.py), at 1000 iterations unless ``--rival-option`` says otherwise; both seatings);
greedy vs random (both seatings) and vs each automaton; the value agent vs each automaton. A deal is a seed:
every run plays deal ``d`` with the same game seed and agent seeds, so two runs (two versions,
two option sets) on the same deals are paired, and ``--paired-with`` gives the per-deal
difference of margins with its standard error (far tighter than comparing two win rates).
Every agent is seeded and ismcts runs a fixed iteration budget (``--iterations``), so the
figures replay exactly (times aside) on any machine and with any ``--workers``; ``--time-ms``
gives ismcts a clock per decision instead (it then depends on the machine and its load).
``--first-deal`` lets several runs share one long range (deals 0-49 and 50-99 add up to 0-99).
Each line gives the CPU milliseconds per decision of both sides, to compare budgets fairly.
Under ``make bench`` (bench/run_all.py) the defaults keep it to a few minutes on one core.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import typer

# This checkout's code, not whichever one the environment's editable install names (a git worktree
# sharing another checkout's .venv measured that checkout's bots, silently).
CHECKOUT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(CHECKOUT))

from arena.cli.common import parse_agent_settings  # noqa: E402
from arena.match.inprocess import play_in_process  # noqa: E402
from arena.wire.agent import Agent, Answer  # noqa: E402
from bench.rival import LAST_ROUND, extract, rival_ismcts  # noqa: E402
from engine.api import Game  # noqa: E402
from engine.teotihuacan import GAME as TEOTIHUACAN  # noqa: E402
from engine.zapotec import GAME as ZAPOTEC  # noqa: E402
from plugins.bots import greedy as greedy_bot  # noqa: E402
from plugins.bots import ismcts as ismcts_bot  # noqa: E402
from plugins.bots.greedy import GreedyAgent  # noqa: E402
from plugins.bots.ismcts import ISMCTSAgent  # noqa: E402
from plugins.bots.value_agent import SPEC as VALUE_SPEC  # noqa: E402
from plugins.bots.value_agent import ValueAgent  # noqa: E402
from plugins.flat_mc_agent import FlatMonteCarloAgent  # noqa: E402
from plugins.random_agent import RandomAgent  # noqa: E402

GAMES: dict[str, Game] = {"teotihuacan": TEOTIHUACAN, "zapotec": ZAPOTEC}
AUTOMATA = {"teotihuacan": ("teotibot", {}), "zapotec": ("cocijobot", {"difficulty": "normal"})}
PAIRINGS = (
    "ismcts-automaton",
    "ismcts-flatmc",
    "ismcts-ismcts",
    "greedy-random",
    "greedy-automaton",
    "value-automaton",
)
# Without --pairing, all but ismcts-ismcts and value-automaton: the 1000-iteration rival alone would
# take ``make bench`` (10 deals, both games) about half an hour of one core; the value agent is a yardstick.
DEFAULT_PAIRINGS = tuple(p for p in PAIRINGS if p not in ("ismcts-ismcts", "value-automaton"))
# The rival of ismcts-ismcts: last round's search (no greedy prior) at the budget docs/bots.md measures against.
RIVAL_ISMCTS = {"iterations": 1000, "prior": 0}
FLATMC_PLAYOUTS = {"teotihuacan": 16, "zapotec": 160}  # as bench_flat_mc plays it
Z95 = 1.96


# ---- statistics --------------------------------------------------------------------------------


def wilson(wins: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score 95% interval for a proportion of ``wins`` out of ``n`` (ties count half)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def mean_and_error(values: Sequence[float]) -> tuple[float, float]:
    """The mean of ``values`` and its standard error (sample standard deviation / sqrt(n));
    the error is nan with fewer than two values (nothing to measure a spread from)."""
    n = len(values)
    if n == 0:
        return math.nan, math.nan
    mean = sum(values) / n
    if n < 2:
        return mean, math.nan
    variance = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, math.sqrt(variance / n)


def paired_difference(new: dict[int, list[float]], old: dict[int, list[float]]) -> tuple[float, float, int]:
    """Per deal, the mean of ``new``'s margins less the mean of ``old``'s, over the deals both
    played: (mean difference, its standard error, deals compared). A deal is the unit (its
    seatings share a deal's luck), so the error counts deals, not games."""
    common = sorted(set(new) & set(old))
    diffs = [sum(new[d]) / len(new[d]) - sum(old[d]) / len(old[d]) for d in common if new[d] and old[d]]
    mean, error = mean_and_error(diffs)
    return mean, error, len(diffs)


def flips(new: dict[int, list[float]], old: dict[int, list[float]]) -> tuple[int, int]:
    """Games of the deals both runs played that ``new`` did better in (won where ``old`` lost or
    tied, tied where it lost) and worse in: (gained, lost). Outcomes are 1 / 0.5 / 0 per game,
    a deal's seatings in the same order in both runs."""
    pairs = [(a, b) for d in set(new) & set(old) for a, b in zip(new[d], old[d], strict=False)]
    return sum(a > b for a, b in pairs), sum(a < b for a, b in pairs)


def mcnemar(gained: int, lost: int) -> float:
    """The exact two-sided McNemar p-value of ``gained`` against ``lost`` flips: how often a coin
    splits ``gained + lost`` flips at least that unevenly."""
    n = gained + lost
    tail = sum(math.comb(n, k) for k in range(min(gained, lost) + 1)) / 2**n
    return min(1.0, 2 * tail)


def paired_report(new: list[DealResult], old: list[DealResult]) -> str:
    """Two runs on the deals both played: the mean per-deal margin difference with its standard
    error, and the games that flipped (with McNemar's p: are the flips more than a coin?)."""
    mean, error, n = paired_difference(margins_by_deal(new), margins_by_deal(old))
    gained, lost = flips(outcomes_by_deal(new), outcomes_by_deal(old))
    return (
        f"{mean:+.1f} VP a deal (s.e. {error:.1f}) over {n} deals; "
        f"games flipped {gained} won / {lost} lost (McNemar p {mcnemar(gained, lost):.2f})"
    )


# ---- playing -----------------------------------------------------------------------------------


@dataclass
class DealResult:
    """One deal's games: per game (1 win / 0.5 tie / 0 loss, margin), and the CPU each side
    spent deciding ([seconds, decisions])."""

    deal: int
    games: list[tuple[float, int]]
    mine: list[float] = field(default_factory=lambda: [0.0, 0])
    theirs: list[float] = field(default_factory=lambda: [0.0, 0])


class Thinking(Agent):
    """An agent that adds up the CPU time of its decisions in ``tally`` ([seconds, decisions])."""

    def __init__(self, agent: Agent, tally: list) -> None:
        self.agent, self.tally = agent, tally

    def setup(self, hello: dict[str, Any]) -> None:
        self.agent.setup(hello)

    def act(self, observation: dict[str, Any], decision: dict[str, Any]) -> int | Answer:
        started = time.process_time()
        choice = self.agent.act(observation, decision)
        self.tally[0] += time.process_time() - started
        self.tally[1] += 1
        return choice

    def end(self, result: dict[str, Any]) -> None:
        self.agent.end(result)


def outcome(result, seat: int) -> tuple[float, int]:
    """(1 win / 0.5 tie / 0 loss, score margin over the best other seat) for ``seat``."""
    others = [s for i, s in enumerate(result.scores) if i != seat]
    margin = result.scores[seat] - max(others)
    rank_ties = sum(1 for r in result.ranks if r == result.ranks[seat])
    won = 1.0 if result.ranks[seat] == 1 and rank_ties == 1 else 0.5 if result.ranks[seat] == 1 else 0.0
    return won, margin


@dataclass(frozen=True)
class Plan:
    """What to play on every deal (picklable: it travels to the worker processes)."""

    pairing: str
    game_id: str
    bot_options: dict
    game_options: dict
    flatmc_playouts: int
    rival_options: dict = field(default_factory=lambda: dict(RIVAL_ISMCTS))
    # ismcts-ismcts: the rival's commit and the folder bench/rival.py extracted its bots into
    # (None: this checkout's ismcts)
    rival_commit: str | None = None
    rival_dir: str | None = None


def bot_factory(pairing: str) -> Callable[[], Agent]:
    bot = pairing.split("-")[0]
    return {"ismcts": ISMCTSAgent, "value": ValueAgent}.get(bot, GreedyAgent)


def play_deal(plan: Plan, deal: int) -> DealResult:
    """Play ``deal`` of ``plan``: one game against the automaton, or two with the seats swapped."""
    game = GAMES[plan.game_id]
    result = DealResult(deal, [])
    make = bot_factory(plan.pairing)
    options = {**plan.bot_options, "seed": deal}
    if plan.pairing.endswith("automaton"):
        automaton, automaton_options = AUTOMATA[plan.game_id]
        state = play_in_process(
            game, [Thinking(make(), result.mine)], 1000 + deal, options={**automaton_options, **plan.game_options},
            agent_options=[options], automaton=automaton,
        )  # fmt: skip
        result.games.append(outcome(state.result(), 0))
        return result
    if plan.pairing.endswith("flatmc"):
        other: Callable[[], Agent] = FlatMonteCarloAgent
        other_options = {"playouts": plan.flatmc_playouts, "seed": 500 + deal}
    elif plan.pairing == "ismcts-ismcts":
        other = rival_ismcts(plan.rival_dir) if plan.rival_dir else ISMCTSAgent
        other_options = {**plan.rival_options, "seed": 500 + deal}
    else:
        other, other_options = RandomAgent, {}  # seeded by its seat, as the figures were played
    for seat in (0, 1):
        agents = [Thinking(other(), result.theirs), Thinking(other(), result.theirs)]
        agent_options = [other_options, other_options]
        agents[seat], agent_options[seat] = Thinking(make(), result.mine), options
        state = play_in_process(
            game, agents, 1000 + deal, options=plan.game_options, agent_options=agent_options
        )
        result.games.append(outcome(state.result(), seat))
    return result


def game_said(won: float, margin: int) -> str:
    """One game's outcome for the progress line; a level score is decided by the tie-break."""
    if won == 0.5:
        return "tied"
    outcome = "won" if won == 1 else "lost"
    return f"{outcome} by {margin:+d}" if margin else f"{outcome} on the tie-break"


def show_progress(done: list[DealResult], total: int) -> None:
    """The run so far on stderr (a line per deal, or one line rewritten on a terminal), so a long
    run shows progress and a stopped one leaves what it played."""
    last = done[-1]
    wins = sum(w for d in done for w, _ in d.games)
    played = sum(len(d.games) for d in done)
    said = ", ".join(game_said(w, m) for w, m in last.games)
    line = f"  deal {last.deal}: {said}; {wins:g} won of {played} played ({len(done)} of {total} deals)"
    line += f", {per_decision(tally(done, 'mine'))} so far"  # a stopped run's log keeps its cost too
    if sys.stderr.isatty():
        print("\x1b[2K\r" + line, end="" if len(done) < total else "\x1b[2K\r", file=sys.stderr, flush=True)
    else:
        print(line, file=sys.stderr, flush=True)


def play_all(
    plan: Plan,
    deals: Sequence[int],
    workers: int,
    keep: Callable[[list[DealResult]], None] | None = None,
    kept: Sequence[DealResult] = (),
) -> list[DealResult]:
    """Every deal of ``deals``, in ``workers`` processes (1: in this one); in deal order. Each deal
    is shown as it ends (with workers, in the order they end: a stopped run's log keeps them all),
    with the ``kept`` ones of a resumed run in its tallies, and handed with those before it to
    ``keep`` (``--save``: a stopped run's file keeps them too); the ``kept`` are not returned."""
    done: list[DealResult] = list(kept)

    def ended(result: DealResult) -> None:
        done.append(result)
        show_progress(done, len(deals) + len(kept))
        if keep:
            keep(sorted(done, key=lambda result: result.deal))

    if workers <= 1:
        for deal in deals:
            ended(play_deal(plan, deal))
    else:
        # The workers take SIGTERM's default (they inherit the script's KeyboardInterrupt): ended, silently.
        default_sigterm = (signal.SIGTERM, signal.SIG_DFL)
        with ProcessPoolExecutor(
            max_workers=workers, initializer=signal.signal, initargs=default_sigterm
        ) as pool:
            try:
                for future in as_completed([pool.submit(play_deal, plan, deal) for deal in deals]):
                    ended(future.result())
            except BaseException:  # stopped: leaving the pool would first play every deal queued
                pool.shutdown(wait=False, cancel_futures=True)
                for worker in multiprocessing.active_children():
                    worker.terminate()
                raise
    return sorted(done[len(kept) :], key=lambda result: result.deal)


# ---- reporting ---------------------------------------------------------------------------------


def tally(results: Sequence[DealResult], side: str) -> list[float]:
    """[seconds, decisions] one side ("mine": the bot measured, or "theirs") spent deciding."""
    return [sum(getattr(d, side)[0] for d in results), sum(getattr(d, side)[1] for d in results)]


def per_decision(seconds_decisions: Sequence[float]) -> str:
    if not seconds_decisions[1]:  # a file saved before the CPU was kept
        return "? ms/decision"
    return f"{1000 * seconds_decisions[0] / seconds_decisions[1]:.0f} ms/decision"


def summary(label: str, results: list[DealResult], seconds: float | None, played: int | None = None) -> str:
    """One line: wins (ties half) with the Wilson interval, the mean margin with its standard
    error, the time per game (``seconds`` over the ``played`` games, by default all: a resumed
    run's kept games took no time of this one; none if ``seconds`` is None), and the CPU each
    side spent per decision."""
    games = [g for d in results for g in d.games]
    n = len(games)
    wins = sum(w for w, _ in games)
    low, high = wilson(wins, n)
    # the error over deals: the two seatings of a deal share its luck
    margin, error = mean_and_error([sum(m for _, m in d.games) / len(d.games) for d in results])
    mine, theirs = tally(results, "mine"), tally(results, "theirs")
    thinking = per_decision(mine) + (f" against {per_decision(theirs)}" if theirs[1] else "")
    pace = "" if seconds is None else f"{seconds / max(1, n if played is None else played):.1f} s/game, "
    return (
        f"{label}: {wins:g}/{n} = {wins / max(1, n):.0%} (95% {low:.0%}-{high:.0%}), "
        f"mean margin {margin:+.1f} (s.e. {error:.1f}), {pace}{thinking}"
    )


def margins_by_deal(results: list[DealResult]) -> dict[int, list[float]]:
    return {d.deal: [float(m) for _, m in d.games] for d in results}


def outcomes_by_deal(results: list[DealResult]) -> dict[int, list[float]]:
    return {d.deal: [float(w) for w, _ in d.games] for d in results}


def saved_plan(plan: Plan) -> dict[str, Any]:
    """What a saved run records of its plan, as JSON reads it back; not the rival's folder (a
    temporary one, a new one each run)."""
    return json.loads(json.dumps({k: v for k, v in plan.__dict__.items() if k != "rival_dir"}))


def save(path: Path, plan: Plan, results: list[DealResult]) -> None:
    """The per-deal outcomes so far, and each deal's CPU ([seconds, decisions] of the bot, then
    of its opponents), as JSON: for a later ``--paired-with``, a resumed run, ``compare_strength``.
    Written beside and then renamed, so a run stopped while saving keeps the file it had."""
    part = path.with_name(path.name + ".part")
    part.write_text(
        json.dumps(
            {
                "plan": saved_plan(plan),
                "deals": {str(d.deal): [list(g) for g in d.games] for d in results},
                "cpu": {str(d.deal): [*d.mine, *d.theirs] for d in results},
            },
            indent=1,
        )
    )
    os.replace(part, path)


def load_run(path: Path, flag: str = "--paired-with") -> tuple[dict[str, Any], list[DealResult]]:
    """The plan and the deals of a file ``--save`` wrote (files without CPU figures, written before
    they were kept, read as taking none); a one-line error naming ``flag`` if it is not one."""
    try:
        data = json.loads(path.read_text())
        cpu = data.get("cpu", {})
        results = []
        for deal, games in sorted(data["deals"].items(), key=lambda item: int(item[0])):
            spent = [float(x) for x in cpu.get(deal, [0, 0, 0, 0])]
            result = DealResult(int(deal), [(float(w), int(m)) for w, m in games], spent[:2], spent[2:])
            results.append(result)
        return data["plan"], results
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise SystemExit(f"error: {flag} {path}: not a file bench_strength --save wrote ({error})") from None


def resumed(path: Path | None, plan: Plan) -> list[DealResult]:
    """The deals an earlier run of the same plan saved in ``path`` (none if there is no file):
    a stopped run started again plays only the rest, and one file can grow over several ranges."""
    if path is None or not path.exists():
        return []
    kept_plan, kept = load_run(path, "--save")
    wanted = saved_plan(plan)  # the options, not the code: a changed checkout needs a new file
    if kept_plan != wanted:
        differ = sorted(k for k in kept_plan.keys() | wanted.keys() if kept_plan.get(k) != wanted.get(k))
        raise SystemExit(
            f"error: --save {path} holds another run (its {', '.join(differ)} differ): "
            "give a new file, or delete this one to start over"
        )
    return kept


def run(plan: Plan, deals: range, workers: int, save_to: Path | None, paired_with: Path | None) -> None:
    """Play one pairing on ``deals`` and print its line (and the paired difference if asked)."""
    named = ", ".join(f"{k}={v}" for k, v in plan.bot_options.items())
    bot = f"{plan.pairing.split('-')[0]} ({named})" if named else plan.pairing.split("-")[0]
    rival = plan.pairing.split("-")[1]
    searcher = "ismcts" if plan.rival_dir is None else f"ismcts of {plan.rival_commit}"
    rival = {
        "automaton": AUTOMATA[plan.game_id][0],
        "flatmc": f"flatmc ({plan.flatmc_playouts} playouts)",
        "ismcts": f"{searcher} (" + ", ".join(f"{k}={v}" for k, v in plan.rival_options.items()) + ")",
    }.get(rival, rival)
    seatings = "" if plan.pairing.endswith("automaton") else ", both seatings"
    extra = "".join(f", {k}={v}" for k, v in plan.game_options.items())
    label = f"{plan.game_id}{extra}: {bot} vs {rival}{seatings}, deals {deals.start}-{deals.stop - 1}"
    old = load_run(paired_with)[1] if paired_with else None
    kept = resumed(save_to, plan)
    done = {d.deal for d in kept}
    if kept:
        print(
            f"resuming {save_to}: {sum(d in done for d in deals)} of these deals already played",
            file=sys.stderr,
        )
    others = [d for d in kept if d.deal not in deals]  # other ranges the file holds stay in it
    keep = (lambda new: save(save_to, plan, sorted(others + new, key=lambda d: d.deal))) if save_to else None
    started = time.perf_counter()
    mine = [d for d in kept if d.deal in deals]
    fresh = play_all(plan, [d for d in deals if d not in done], workers, keep, mine)
    results = sorted(mine + fresh, key=lambda d: d.deal)
    played = sum(len(d.games) for d in fresh)
    print(summary(label, results, time.perf_counter() - started, played), flush=True)
    if old is not None:
        print(f"  paired with {paired_with}: {paired_report(results, old)}", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=" ".join(__doc__.split("\n\n")[0].split()),
        epilog="Deals are seeds: the same deals in two runs are paired.",
    )
    parser.add_argument(
        "--games", type=int, default=10, help="deals per pairing (head to head: 2 games each)"
    )
    parser.add_argument("--first-deal", type=int, default=0, help="the first deal played (deals are seeds)")
    parser.add_argument("--iterations", type=int, default=100, help="ismcts iterations per decision")
    parser.add_argument(
        "--time-ms", type=int, help="ismcts milliseconds per decision instead of --iterations"
    )
    parser.add_argument(
        "--ismcts-option", action="append", default=[], metavar="KEY=VALUE",
        help="another ismcts option, e.g. reward=win or depth=20 (repeatable)",
    )  # fmt: skip
    parser.add_argument(
        "--greedy-option", action="append", default=[], metavar="KEY=VALUE", help="a greedy option"
    )
    parser.add_argument(
        "--value-option", action="append", default=[], metavar="KEY=VALUE", help="a value agent option"
    )
    parser.add_argument(
        "--game-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a game option, e.g. modules=all (Teotihuacan's expansion)",
    )
    parser.add_argument(
        "--flatmc-playouts", type=int, help="flatmc's playouts (default: 16 Teotihuacan, 160 Zapotec)"
    )
    parser.add_argument(
        "--rival-option", action="append", default=[], metavar="KEY=VALUE",
        help="an option of ismcts-ismcts's rival ismcts (default iterations=1000, prior=0: last round's search; repeatable)",
    )  # fmt: skip
    parser.add_argument(
        "--rival-commit", default=LAST_ROUND, metavar="REV",
        help=f"ismcts-ismcts's rival is the ismcts (and evaluators) of this commit of the checkout's history "
        f"(default {LAST_ROUND}: last round's); 'here': this checkout's ismcts",
    )  # fmt: skip
    parser.add_argument("--game", choices=sorted(GAMES), action="append", help="only this game (repeatable)")
    parser.add_argument(
        "--pairing",
        choices=PAIRINGS,
        action="append",
        help="only this pairing (repeatable; default: all but ismcts-ismcts)",
    )
    parser.add_argument("--workers", type=int, default=1, help="processes playing deals at once (default 1)")
    parser.add_argument(
        "--save",
        type=Path,
        metavar="FILE",
        help="write the per-deal outcomes (JSON) to FILE, rewritten as each deal ends; if FILE holds "
        "a run of the same plan, its deals are kept and only the others played (a stopped run resumes)",
    )
    parser.add_argument(
        "--paired-with",
        type=Path,
        metavar="FILE",
        help="also print the per-deal margin difference from FILE's run",
    )
    args = parser.parse_args(argv or [])
    if args.games < 1 or args.workers < 1:
        parser.error("--games and --workers must be at least 1")
    budget = {"time_ms": args.time_ms} if args.time_ms else {"iterations": args.iterations}
    # a malformed KEY=VALUE, or one the bot does not declare: parse_agent_settings has printed its
    # one-line error (the rival's options are its own commit's to check)
    try:
        ismcts = {**budget, **parse_agent_settings(args.ismcts_option, "--ismcts-option", ismcts_bot.SPEC)}
        # greedy's play-outs ignore the clock here: the figures replay on a slow or loaded machine too
        greedy = {
            "clock": False,
            **parse_agent_settings(args.greedy_option, "--greedy-option", greedy_bot.SPEC),
        }
        value = parse_agent_settings(args.value_option, "--value-option", VALUE_SPEC)
        game_options = parse_agent_settings(args.game_option, "--game-option")
        rival = {**RIVAL_ISMCTS, **parse_agent_settings(args.rival_option, "--rival-option")}
    except typer.Exit as stop:
        raise SystemExit(stop.exit_code) from None
    deals = range(args.first_deal, args.first_deal + args.games)
    pairings = args.pairing or DEFAULT_PAIRINGS
    if (args.save or args.paired_with) and len(pairings) * len(args.game or GAMES) > 1:
        parser.error("--save and --paired-with need one --game and one --pairing")
    with tempfile.TemporaryDirectory(prefix="tlachtli-rival-") as folder:
        commit = None if args.rival_commit == "here" else args.rival_commit
        rival_dir = None
        if "ismcts-ismcts" in pairings and commit:
            rival_dir = str(extract(CHECKOUT, commit, Path(folder)))
        for game_id in args.game or sorted(GAMES):
            for pairing in pairings:
                playouts = args.flatmc_playouts or FLATMC_PLAYOUTS[game_id]
                options = {"ismcts": ismcts, "value": value}.get(pairing.split("-")[0], greedy)
                plan = Plan(pairing, game_id, options, game_options, playouts, rival, commit, rival_dir)
                run(plan, deals, args.workers, args.save, args.paired_with)


def interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


if __name__ == "__main__":
    # SIGTERM (how a background run, which ignores Ctrl-C, is stopped) unwinds as Ctrl-C does: the
    # rival's temporary folder is removed and the worker processes end.
    signal.signal(signal.SIGTERM, interrupt)
    try:
        main(sys.argv[1:])
    except KeyboardInterrupt:
        print("stopped: a --save file keeps the deals that ended; the same command resumes", file=sys.stderr)
        raise SystemExit(130) from None

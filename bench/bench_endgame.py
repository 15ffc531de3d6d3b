"""``ismcts`` with its exact end-game search (``endgame=true``) against the same bot without it,
on paired deals against the game's automaton (Teotibot, Cocijobot normal).

With ``endgame`` on, the agent plays exactly as without it until the first decision its exact
search makes (the search draws its samples from its own generator), so one game is played per
deal up to the game's last stretch (``plugins.bots.endgame.near_end``) and forked there: the
agent and the position are copied, one copy plays on with the exact search and the other
without. The two arms are the very games two whole runs would play (a test checks one against
a whole game), at less than half the cost. Prints the win rates (Wilson 95% intervals), the
paired mean margin difference with its standard error, the games that flipped, and the CPU
milliseconds a decision costs in the last stretch in each arm.

    .venv/bin/python bench/bench_endgame.py --game zapotec --iterations 300 --games 100
    .venv/bin/python bench/bench_endgame.py --game teotihuacan --iterations 300 --games 20 \
        --ismcts-option endgame_nodes=5000 --save teo.jsonl

``--save`` appends a line per deal and skips the deals already in the file (a stopped run resumes).
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import time
from pathlib import Path
from typing import Any

import typer

# This checkout's code, not whichever one the environment's editable install names.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.cli.common import parse_agent_settings  # noqa: E402
from arena.match.inprocess import decide_message, hello_message  # noqa: E402
from arena.wire.agent import split_answer  # noqa: E402
from bench.bench_strength import AUTOMATA, GAMES, mcnemar, mean_and_error, outcome, wilson  # noqa: E402
from engine.api import State  # noqa: E402
from plugins.bots import ismcts as ismcts_bot  # noqa: E402
from plugins.bots.endgame import near_end  # noqa: E402
from plugins.bots.ismcts import ISMCTSAgent  # noqa: E402


def without_endgame(agent: ISMCTSAgent) -> ISMCTSAgent:
    """A copy of ``agent`` (its trees, generators and tables) that searches no end game. The
    game and the evaluators are shared: they hold no play state."""
    memo: dict[int, Any] = {id(agent.game): agent.game, id(agent.evaluator): agent.evaluator}
    if agent.greedy is not None:
        memo[id(agent.greedy.game)] = agent.greedy.game
        memo[id(agent.greedy.evaluator)] = agent.greedy.evaluator
    twin = copy.deepcopy(agent, memo)
    twin.solver = None
    return twin


def play_on(state: State, agent: ISMCTSAgent, step: int, times: list[float]) -> tuple[float, int]:
    """Play ``state`` to its end, seat 0 ``agent`` (the automaton moves inside the engine);
    the CPU seconds of each of the agent's choices among several go to ``times``."""
    while state.to_act():
        seat = state.to_act()[0]
        message = decide_message(state, seat, step)
        started = time.process_time()
        choice = split_answer(agent, agent.act(message["obs"], dict(message)))[0]
        if len(message["options"]) > 1:
            times.append(time.process_time() - started)
        state.apply(seat, choice)
        step += 1
    return outcome(state.result(), 0)


def play_deal(game_id: str, deal: int, options: dict) -> dict[str, Any]:
    """One deal: the game to its last stretch, then forked with and without the exact search."""
    game = GAMES[game_id]
    automaton, automaton_options = AUTOMATA[game_id]
    given = {**automaton_options, "automaton": automaton}
    state = game.setup(1, 1000 + deal, given)
    agent = ISMCTSAgent()
    agent.setup(dict(hello_message(game, 0, 2, given, {**options, "endgame": True, "seed": deal})))
    step = 1
    while state.to_act() and not near_end(game_id, state):
        seat = state.to_act()[0]
        message = decide_message(state, seat, step)
        state.apply(seat, split_answer(agent, agent.act(message["obs"], dict(message)))[0])
        step += 1
    off_state, off_agent = state.clone(), without_endgame(agent)
    on_times: list[float] = []
    off_times: list[float] = []
    on = play_on(state, agent, step, on_times)
    off = play_on(off_state, off_agent, step, off_times)
    return {
        "deal": deal,
        "on": list(on),
        "off": list(off),
        "solved": agent.solved,
        "on_ms": 1000 * sum(on_times) / max(1, len(on_times)),
        "off_ms": 1000 * sum(off_times) / max(1, len(off_times)),
        "on_max_ms": 1000 * max(on_times, default=0.0),
    }


def report(rows: list[dict[str, Any]]) -> str:
    """Win rates with Wilson intervals, the paired margin difference, flips, decision costs."""
    n = len(rows)
    lines = [f"{n} deals"]
    for arm in ("on", "off"):
        wins = sum(row[arm][0] for row in rows)
        low, high = wilson(wins, n)
        margin, error = mean_and_error([row[arm][1] for row in rows])
        lines.append(
            f"  endgame {arm:3}: won {100 * wins / n:.1f}% ({100 * low:.1f}%-{100 * high:.1f}%), "
            f"mean margin {margin:+.1f} ({error:.1f})"
        )
    diff, error = mean_and_error([row["on"][1] - row["off"][1] for row in rows])
    gained = sum(row["on"][0] > row["off"][0] for row in rows)
    lost = sum(row["on"][0] < row["off"][0] for row in rows)
    changed = sum(row["on"] != row["off"] for row in rows)
    lines.append(
        f"  paired margin difference on - off: {diff:+.2f} ({error:.2f}); games changed {changed}, "
        f"flipped {gained} to the better, {lost} to the worse (McNemar p={mcnemar(gained, lost):.2f})"
    )
    on_ms, _ = mean_and_error([row["on_ms"] for row in rows])
    off_ms, _ = mean_and_error([row["off_ms"] for row in rows])
    slowest = max(row["on_max_ms"] for row in rows)
    solved, _ = mean_and_error([row["solved"] for row in rows])
    lines.append(
        f"  last stretch, CPU ms a decision: on {on_ms:.0f} (slowest {slowest:.0f}), off {off_ms:.0f}; "
        f"decisions solved exactly a game {solved:.1f}"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--game", choices=sorted(GAMES), required=True)
    parser.add_argument("--games", type=int, default=10, help="deals played (default 10)")
    parser.add_argument("--first-deal", type=int, default=0, help="the first deal played (deals are seeds)")
    parser.add_argument(
        "--iterations", type=int, default=300, help="ismcts iterations a decision (default 300)"
    )
    parser.add_argument(
        "--ismcts-option", action="append", default=[], metavar="KEY=VALUE",
        help="another ismcts option for both arms, e.g. endgame_nodes=5000 (repeatable)",
    )  # fmt: skip
    parser.add_argument(
        "--save", type=Path, help="append a JSON line per deal; deals already there are skipped"
    )
    args = parser.parse_args(argv)
    if args.games < 1 or args.iterations < 1:
        parser.error("--games and --iterations must be at least 1")
    options: dict[str, Any] = {"iterations": args.iterations}
    try:  # a malformed or undeclared KEY=VALUE: parse_agent_settings has printed its one-line error
        options.update(parse_agent_settings(args.ismcts_option, "--ismcts-option", ismcts_bot.SPEC))
    except typer.Exit as stop:
        raise SystemExit(stop.exit_code) from None
    rows: list[dict[str, Any]] = []
    if args.save and args.save.exists():
        rows = [json.loads(line) for line in args.save.read_text().splitlines() if line.strip()]
    done = {row["deal"] for row in rows}
    for deal in range(args.first_deal, args.first_deal + args.games):
        if deal in done:
            continue
        row = play_deal(args.game, deal, options)
        rows.append(row)
        if args.save:
            with args.save.open("a") as out:
                out.write(json.dumps(row) + "\n")
        print(
            f"deal {deal}: on {row['on']}, off {row['off']}, solved {row['solved']}",
            file=sys.stderr,
            flush=True,
        )
    wanted = range(args.first_deal, args.first_deal + args.games)
    print(report([row for row in rows if row["deal"] in wanted]))


if __name__ == "__main__":
    main()

"""Forward-model speed, what search bots buy their strength with: for each engine,
the time of one random decision + apply and of one clone() at mid-game, the bundled evaluator's
time per call, and ismcts iterations per second, 2 players, on one core.

Each figure is measured over many batches and printed as the median with the 10th-90th
percentile spread of the batches. Times are this process's CPU time (time.process_time), so
that other work on a shared machine does not count as ours. Mid-game positions: seeded random 2-player games stopped
halfway (by decision count). Run with ``make bench`` or
``.venv/bin/python bench/run_all.py forward_model`` (``--quick`` for a short run).
"""

from __future__ import annotations

import statistics
import sys
import time
from random import Random

from engine.api import Game, State
from engine.playout import Counter, option_counter
from engine.teotihuacan import GAME as TEOTIHUACAN
from engine.zapotec import GAME as ZAPOTEC

POSITIONS = 8  # mid-game positions per engine (seeds 0..7)
PLAYOUT_STEPS = 100  # random decisions timed per batch, from one mid-game position
CLONES = 200  # clone() calls per batch
EVALS = 50  # evaluator calls per batch
ISMCTS_ITERATIONS = 30  # ismcts iterations per timed decision


def mid_game(game: Game, seed: int) -> State:
    """A seeded random 2-player game, stopped after half of its decisions."""
    decisions = random_steps(game.setup(2, seed, {}), Random(seed), 10**6)
    state = game.setup(2, seed, {})
    random_steps(state, Random(seed), decisions // 2)
    return state


def random_steps(state: State, rng: Random, limit: int, count: Counter | None = None) -> int:
    """Play up to ``limit`` random decisions on ``state`` (in place); how many were played.
    ``count``: None asks for each Decision (as an agent does), else counts the options only (as a
    playout does: the game's ``option_counter``)."""
    steps = 0
    while steps < limit:
        seats = state.to_act()
        if not seats:
            break
        seat = seats[0]
        options = len(state.decision(seat).options) if count is None else count(state, seat)
        state.apply(seat, rng.randrange(options))
        steps += 1
    return steps


def spread(samples: list[float]) -> str:
    """'median (p10-p90)' of per-unit times in microseconds."""
    deciles = statistics.quantiles(samples, n=10)
    return f"{statistics.median(samples):7.1f} us (p10-p90 {deciles[0]:.1f}-{deciles[-1]:.1f})"


def step_times(positions: list[State], rounds: int, count: Counter | None) -> list[float]:
    """Microseconds per random decision + apply, one sample per batch of PLAYOUT_STEPS."""
    samples = []
    for r in range(rounds):
        for k, start in enumerate(positions):
            state = start.clone()
            began = time.process_time()
            steps = random_steps(state, Random(r * 1000 + k), PLAYOUT_STEPS, count)
            if steps:
                samples.append((time.process_time() - began) / steps * 1e6)
    return samples


def clone_times(positions: list[State], rounds: int) -> list[float]:
    """Microseconds per clone(), one sample per batch of CLONES."""
    samples = []
    for _ in range(rounds):
        for state in positions:
            began = time.process_time()
            for _ in range(CLONES):
                state.clone()
            samples.append((time.process_time() - began) / CLONES * 1e6)
    return samples


def eval_times(game: Game, positions: list[State], rounds: int) -> list[float]:
    """Microseconds per call of the game's bundled evaluator, one sample per batch of EVALS."""
    from plugins.bots.evaluators import find_evaluator

    spec = find_evaluator(game.id)
    assert spec is not None, f"{game.id} has no bundled evaluator"
    evaluate = spec.evaluate
    samples = []
    for _ in range(rounds):
        for state in positions:
            began = time.process_time()
            for _ in range(EVALS):
                evaluate(state)
            samples.append((time.process_time() - began) / EVALS * 1e6)
    return samples


def ismcts_rates(game: Game, positions: list[State]) -> list[float]:
    """ismcts iterations per second (default options, fixed iteration budget), one sample per position."""
    from plugins.bots.ismcts import ISMCTSAgent

    samples = []
    for k, state in enumerate(positions):
        state = state.clone()
        while len(state.decision(state.to_act()[0]).options) < 2:  # a real choice to search
            random_steps(state, Random(k), 1)
        seat = state.to_act()[0]
        agent = ISMCTSAgent()
        agent.setup(
            {"game": game.id, "seat": seat, "agent_options": {"seed": k, "iterations": ISMCTS_ITERATIONS}}
        )
        decision = state.decision(seat)
        message = {"options": list(decision.options), "id": 1}
        began = time.process_time()
        agent.act(state.observation(seat), message)
        samples.append(ISMCTS_ITERATIONS / (time.process_time() - began))
    return samples


def main() -> None:
    quick = "--quick" in sys.argv
    rounds = 2 if quick else 6
    for game in (TEOTIHUACAN, ZAPOTEC):
        positions = [mid_game(game, seed) for seed in range(POSITIONS)]
        print(
            f"{game.id:11s} decision + apply, random, from mid-game: {spread(step_times(positions, rounds, None))}"
        )
        print(
            f"{game.id:11s} option count + apply (a playout step):   {spread(step_times(positions, rounds, option_counter(game)))}"
        )
        print(
            f"{game.id:11s} clone() at mid-game:                     {spread(clone_times(positions, rounds))}"
        )
        print(
            f"{game.id:11s} bundled evaluator call at mid-game:      {spread(eval_times(game, positions, rounds))}"
        )
        rates = ismcts_rates(game, positions)
        deciles = statistics.quantiles(rates, n=10)
        print(
            f"{game.id:11s} ismcts, 2 players, {ISMCTS_ITERATIONS} iterations/decision: "
            f"{statistics.median(rates):.0f} iterations/s (p10-p90 {deciles[0]:.0f}-{deciles[-1]:.0f})"
        )


if __name__ == "__main__":
    main()

"""Digests of seeded games played by ``ismcts`` at a fixed iteration budget: what a speed-up of
an engine or of the search must leave unchanged (the same seed and budget give the same
choices, bit for bit).

Each game is solo against the game's automaton (Teotibot, Cocijobot) or 2-player (ismcts
against itself); Teotihuacan's with the base rules or all the Late Preclassic modules. Its
digest covers every choice made and the result. Prints one line
per game (``name digest``, plus the CPU seconds it took on stderr); ``--check FILE`` compares
with a saved run and names the games that differ (exit status 1 if any).

    python bench/ismcts_digest.py > before.txt
    python bench/ismcts_digest.py --check before.txt
    python bench/ismcts_digest.py --game zapotec --iterations 300 > before.txt
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

# This checkout's code, not whichever one the environment's editable install names: a "before"
# digest taken in a git worktree sharing the main checkout's .venv digested the main checkout.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.api import Game  # noqa: E402
from engine.teotihuacan import GAME as TEOTIHUACAN  # noqa: E402
from engine.zapotec import GAME as ZAPOTEC  # noqa: E402
from plugins.bots.ismcts import ISMCTSAgent  # noqa: E402

GAMES: dict[str, Game] = {"teotihuacan": TEOTIHUACAN, "zapotec": ZAPOTEC}
MODULES = {"teotihuacan": ("", "all"), "zapotec": ("",)}  # Zapotec has no modules


def game_digest(game: Game, players: int, modules: str, seed: int, iterations: int) -> str:
    """The digest of one game: every seat's choices (ismcts for agents) and the result."""
    options: dict = {"modules": modules} if game is TEOTIHUACAN else {}
    if players == 1 and game is TEOTIHUACAN:
        options["automaton"] = "teotibot"  # Zapotec's solo game always has Cocijobot
    state = game.setup(players, seed, options)
    agents = {}
    for seat in range(players):  # the agents; an automaton sits after them
        agent = ISMCTSAgent()
        hello = {
            "game": game.id,
            "seat": seat,
            "players": players,
            "options": options,
            "agent_options": {"seed": seed * 10 + seat, "iterations": iterations},
        }
        agent.setup(hello)
        agents[seat] = agent
    h = hashlib.sha256()
    decide_id = 0
    while state.to_act():
        seat = state.to_act()[0]
        decision = state.decision(seat)
        decide_id += 1
        message = {"options": list(decision.options), "id": decide_id}
        choice = agents[seat].act(state.observation(seat), message)
        h.update(f"{seat}:{choice};".encode())
        state.apply(seat, choice)
    result = state.result()
    h.update(repr((result.scores, result.ranks)).encode())
    return h.hexdigest()[:16]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=sorted(GAMES), default="teotihuacan", help="the game (teotihuacan)")
    parser.add_argument("--seeds", type=int, default=2, help="seeds per setting (2)")
    parser.add_argument("--iterations", type=int, default=30, help="ismcts iterations a decision (30)")
    parser.add_argument(
        "--check", metavar="FILE", help="compare with a saved run; name the games that differ"
    )
    args = parser.parse_args()
    lines = []
    for players in (1, 2):
        for modules in MODULES[args.game]:
            for seed in range(args.seeds):
                began = time.process_time()
                name = f"p{players}-{modules or 'base'}-s{seed}"
                lines.append(
                    f"{name} {game_digest(GAMES[args.game], players, modules, seed, args.iterations)}"
                )
                print(f"{name}: {time.process_time() - began:.1f} s", file=sys.stderr, flush=True)
                if not args.check:
                    print(lines[-1], flush=True)
    if args.check:
        with open(args.check) as saved:
            expected = dict(line.split() for line in saved if line.strip())
        differ = [line.split()[0] for line in lines if expected.get(line.split()[0]) != line.split()[1]]
        for name in differ:
            print(f"differs: {name}")
        print("all identical" if not differ else f"{len(differ)} of {len(lines)} differ")
        return 1 if differ else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())

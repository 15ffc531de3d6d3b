"""Seeded digests of Teotihuacan games over every module set (the base game and the 31 sets of
the Late Preclassic modules), at 1-4 players: what a refactor of the rules must leave unchanged.

Each game is played with seeded random choices; its digest covers every decision offered (prompt,
labels, acts), the log, the result and each agent seat's observation every ``--every`` steps
(less the engine version it names: a version bump alone changes no game).
Prints one line per module set (``name digest``); ``--check FILE`` compares with a saved run and
names the sets that differ (exit status 1 if any).

    python bench/teotihuacan_digests.py > before.txt
    python bench/teotihuacan_digests.py --check before.txt
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from itertools import combinations
from random import Random
from typing import Any

import msgpack

from engine.teotihuacan import GAME

MODULES = ("priests", "height", "seasons", "architecture", "development")
SETS = [""] + [",".join(c) for r in range(1, len(MODULES) + 1) for c in combinations(MODULES, r)]


def game_digest(h: Any, modules: str, players: int, seed: int, every: int) -> None:
    """Feed one seeded game into ``h``."""
    options: dict = {"modules": modules}
    if players == 1:
        options["automaton"] = "teotibot"
    if seed % 3 == 1:
        options["expert_pyramid"] = True
    st = GAME.setup(players, seed, options)
    rng = Random(seed)
    step = 0
    while st.to_act():
        seat = st.to_act()[0]
        decision = st.decision(seat)
        h.update(msgpack.packb([seat, decision.kind, decision.prompt, list(decision.options)]))
        if step % every == 0:
            for viewer in st.agent_seats():
                h.update(observed(st, viewer))
        st.apply(seat, rng.randrange(len(decision.options)))
        step += 1
    h.update(msgpack.packb([list(e) for e in st.events]))
    h.update(msgpack.packb(st.log()))
    result = st.result()
    h.update(repr((result.scores, result.ranks, result.details)).encode())
    for viewer in st.agent_seats():
        h.update(observed(st, viewer))


def observed(st: Any, viewer: int) -> bytes:
    """``viewer``'s observation, packed, without the engine version."""
    observation = dict(st.observation(viewer))
    observation.pop("version", None)
    return msgpack.packb(observation)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2, help="seeds per player count and module set (2)")
    parser.add_argument("--every", type=int, default=25, help="observe every N steps (25)")
    parser.add_argument("--check", metavar="FILE", help="compare with a saved run; name the sets that differ")
    args = parser.parse_args()
    lines = []
    for modules in SETS:
        h = hashlib.sha256()
        for players in (1, 2, 3, 4):
            for seed in range(args.games):
                game_digest(h, modules, players, seed, args.every)
        lines.append(f"{modules or 'base'} {h.hexdigest()[:16]}")
        if not args.check:
            print(lines[-1], flush=True)
    if args.check:
        with open(args.check) as f:
            saved = dict(line.split() for line in f if line.strip())
        now = dict(line.split() for line in lines)
        differ = [name for name in now if saved.get(name) != now[name]]
        print(
            f"{len(now) - len(differ)} of {len(now)} module sets identical; differ: {', '.join(differ) or 'none'}"
        )
        return 1 if differ else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())

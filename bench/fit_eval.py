"""Fit the weights of a bundled evaluator (plugins/bots/teotihuacan_eval.py, zapotec_eval.py) to played games.

    # play and save positions (seeds from --first-seed on; keep them apart from bench_strength's
    # 1000 + deal), then fit and print the weight tables (--write puts them into the module):
    .venv/bin/python bench/fit_eval.py --game zapotec --games 200 --save a.npz
    .venv/bin/python bench/fit_eval.py --game zapotec --load a.npz --load b.npz

Teotihuacan's tables came from two rounds of greedy (its look-ahead, without the play-outs that
greedy's ``turns`` adds, as ``solo-greedy`` plays unless ``--turns`` is given) against Teotibot, more random
than the default (about 4 minutes each on the shared 2-core machine,
niced), the first played with the tables before them (fitted on the old one-step greedy's games):

    .venv/bin/python bench/fit_eval.py --games 512 --first-seed 320000 --epsilon 0.3 \
        --kinds solo-greedy --policy-eval fitted --save r3eps.npz --write
    .venv/bin/python bench/fit_eval.py --games 512 --first-seed 330000 --epsilon 0.3 \
        --kinds solo-greedy --policy-eval fitted --save r4eps.npz
    .venv/bin/python bench/fit_eval.py --load r3eps.npz --load r4eps.npz --write

Zapotec's the same way, with ``--game zapotec`` (docs/bots.md, Evaluators).

Games (each kind gets ``--games`` seeds; a seed is the game's seed and its agents' seeds):

- ``solo-greedy``: greedy vs the automaton (Teotibot, Cocijobot normal), a random option instead of greedy's with probability
  ``--epsilon`` (so that positions vary); with ``--turns N`` greedy plays its best options on through
  its next N turns as the shipped greedy does (about 6 s a Teotihuacan game at 2, against 0.5 without);
- ``solo-random``: the random agent vs the automaton (a tenth of the games: weak play, other states);
- ``solo-ismcts``: ismcts (``--ismcts-iterations``) vs the automaton (a tenth of the games: slow);
- ``duo-greedy``: two epsilon-greedy seats; ``duo-mixed``: epsilon-greedy vs random.

Greedy and ismcts play with the evaluator named by ``--policy-eval``: ``v1`` (the first,
hand-weighted one, ``evaluate_v1``) or ``fitted`` (the weights in the module now: a second
round plays with the first round's weights, so that the data come from positions the fitted
evaluator leads to).

At every decision, with probability ``--sample``, each seat's row of the module's ``features``
(public information only) is recorded with the points it has banked (Teotihuacan: its VP;
Zapotec: its score if the game ended now); at the end of the game its final score. The fit: for
players' seats and for the automaton's separately, ridge least squares of (final - banked) on
the features (standardised, ``--ridge``), games split 80/20 into fit and held-out sets by seed.
It prints R^2 and the RMSE on both sets, the same figures for the first evaluator's estimate
(``evaluate_v1`` - banked, given its best affine use of the time left, fitted on the same rows)
and for the module's tables as they are now (before ``--write``) on the same positions, and the
two weight tables in the module's format.
"""

from __future__ import annotations

import argparse
import datetime
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from random import Random
from types import ModuleType
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.match.inprocess import decide_message, hello_message  # noqa: E402
from engine.api import Game  # noqa: E402
from engine.teotihuacan import GAME as TEOTIHUACAN  # noqa: E402
from engine.teotihuacan.core import TeoCore  # noqa: E402
from engine.teotihuacan.observation import PublicView  # noqa: E402
from engine.zapotec import GAME as ZAPOTEC  # noqa: E402
from engine.zapotec.core import ZapotecCore  # noqa: E402
from plugins.bots import teotihuacan_eval, zapotec_eval  # noqa: E402
from plugins.bots.evaluators import find_evaluator  # noqa: E402
from plugins.bots.greedy import GreedyAgent  # noqa: E402
from plugins.bots.ismcts import ISMCTSAgent  # noqa: E402
from plugins.random_agent import RandomAgent  # noqa: E402

KINDS = ("solo-greedy", "solo-random", "solo-ismcts", "duo-greedy", "duo-mixed")
EVALUATORS = ("v1", "fitted")  # the module's evaluate_v1, its evaluate


@dataclass(frozen=True)
class Target:
    """What the fit needs of one game's evaluator module (``FEATURES``, ``features``,
    ``evaluate``, ``evaluate_v1`` and a BEGIN FITTED block with the two tables)."""

    game: Game
    module: ModuleType  # the evaluator's module: its FEATURES, evaluate, evaluate_v1
    solo: dict  # the setup options of a game against the automaton
    bot_table: str  # the name of the automaton seat's table in the module
    # per seat: the points banked (what the fit does not forecast), the feature rows; the automaton's seat (-1: none)
    view: Callable[[Any], tuple[list, list, int]]  # the game's own state class
    sampled: Callable[[Any], bool]  # positions worth recording
    time_feature: str  # the share of the game left, for the first evaluator's affine rescale
    nonpositive: tuple[str, ...]  # signs (--signs): never worth more; "unsigned" ones are free
    unsigned: tuple[str, ...]


def _teotihuacan_view(state: TeoCore) -> tuple[list, list, int]:
    public = PublicView(state)
    return public["vp"], teotihuacan_eval.features(public), public["bot"]


def _zapotec_view(state: ZapotecCore) -> tuple[list, list, int]:
    bot = zapotec_eval.BOT_SEAT if state.solo else -1
    return zapotec_eval.if_ended_now(state), zapotec_eval.features(state), bot


TARGETS = {
    "teotihuacan": Target(
        game=TEOTIHUACAN,
        module=teotihuacan_eval,
        solo={"automaton": "teotibot"},
        bot_table="TEOTIBOT",
        view=_teotihuacan_view,
        sampled=lambda state: state.eclipses < 3,  # not the final scoring's steps
        time_feature="time",
        nonpositive=("salary_short", "salary_short_near"),
        unsigned=("time", "const", "locked"),
    ),
    "zapotec": Target(
        game=ZAPOTEC,
        module=zapotec_eval,
        solo={"automaton": "cocijobot", "difficulty": "normal"},
        bot_table="COCIJOBOT",
        view=_zapotec_view,
        sampled=lambda state: state.final is None,
        time_feature="turns",
        nonpositive=(),
        unsigned=("turns", "const"),
    ),
}


def evaluator(target: Target, name: str):
    return target.module.evaluate_v1 if name == "v1" else target.module.evaluate


class EpsilonGreedy(GreedyAgent):
    """greedy with the chosen evaluator, playing a random option with probability ``epsilon``."""

    def __init__(self, evaluate, epsilon: float, turns: int) -> None:
        super().__init__()
        self.evaluate, self.epsilon, self.fit_turns = evaluate, epsilon, turns

    def setup(self, hello):
        super().setup(hello)
        assert self.evaluator is not None  # setup() refuses a game without one
        self.evaluator = replace(self.evaluator, evaluate=self.evaluate)
        # greedy's ``turns`` (--turns, default 0): the shipped Teotihuacan tables were fitted on games
        # without play-outs; with two turns a Teotihuacan game costs ~10 times the CPU
        self.turns = self.fit_turns
        self.clocked = False  # its play-outs never cut short: the same seed, the same games on any machine
        self.explore = Random(hello.get("agent_options", {}).get("seed", 0) + 7)

    def act(self, observation, decision):
        if self.explore.random() < self.epsilon:
            return self.explore.randrange(len(decision["options"]))
        return super().act(observation, decision)


class SearchWith(ISMCTSAgent):
    """ismcts with the chosen evaluator."""

    def __init__(self, evaluate) -> None:
        super().__init__()
        self.evaluate = evaluate

    def setup(self, hello):
        super().setup(hello)
        assert self.evaluator is not None  # setup() refuses a game without one
        self.evaluator = replace(self.evaluator, evaluate=self.evaluate)


def agents_for(kind: str, evaluate, args):
    greedy = lambda: EpsilonGreedy(evaluate, args.epsilon, args.turns)  # noqa: E731
    return {
        "solo-greedy": [greedy()],
        "solo-random": [RandomAgent()],
        "solo-ismcts": [SearchWith(evaluate)],
        "duo-greedy": [greedy(), greedy()],
        "duo-mixed": [greedy(), RandomAgent()],
    }[kind]


def play(target: Target, kind: str, seed: int, args, evaluate) -> tuple[list, list]:
    """One game; the sampled rows (features, banked points, v1 estimate, seat, is_bot) and the final scores."""
    agents = agents_for(kind, evaluate, args)
    options = dict(target.solo) if kind.startswith("solo") else {}
    state = target.game.setup(len(agents), seed, options)
    players = len(agents) + (1 if options else 0)
    for seat, agent in enumerate(agents):
        extra = {"seed": seed + seat}
        if isinstance(agent, ISMCTSAgent):
            extra["iterations"] = args.ismcts_iterations
        agent.setup(hello_message(target.game, seat, players, options, extra))
    sampler = Random(seed * 31 + 5)
    rows = []
    step = 0
    while state.to_act():
        seat = state.to_act()[0]
        if target.sampled(state) and sampler.random() < args.sample:
            banked, features, bot = target.view(state)
            v1 = target.module.evaluate_v1(state)
            for s, row in enumerate(features):
                rows.append((row, banked[s], v1[s], s, s == bot))
        step += 1
        message = decide_message(state, seat, step)
        state.apply(seat, agents[seat].act(message["obs"], message))
    return rows, list(state.result().scores)


def collect(target: Target, args) -> dict:
    evaluate = evaluator(target, args.policy_eval)
    feats, vps, v1s, finals, games, bots = [], [], [], [], [], []
    started = time.perf_counter()
    for k, kind in enumerate(args.kinds):
        count = args.games if kind in ("solo-greedy", "duo-greedy", "duo-mixed") else max(1, args.games // 10)
        for i in range(count):
            seed = args.first_seed + 1000 * k + i
            rows, scores = play(target, kind, seed, args, evaluate)
            for row, vp, v1, seat, is_bot in rows:
                feats.append(row)
                vps.append(vp)
                v1s.append(v1)
                finals.append(scores[seat])
                games.append(seed)
                bots.append(is_bot)
            print(
                f"  {kind} seed {seed}: scores {scores}, {len(rows)} rows, {time.perf_counter() - started:.0f} s",
                file=sys.stderr,
                flush=True,
            )
    return {
        "features": np.array(feats, dtype=float),
        "vp": np.array(vps, dtype=float),
        "v1": np.array(v1s, dtype=float),
        "final": np.array(finals, dtype=float),
        "game": np.array(games),
        "bot": np.array(bots, dtype=bool),
        "names": np.array(target.module.FEATURES),
    }


def merge(target: Target, parts: list[dict]) -> dict:
    for part in parts:
        if list(part["names"]) != list(target.module.FEATURES):
            raise SystemExit(
                f"saved data have other features than {target.module.__name__}.FEATURES: play again"
            )
    return {key: np.concatenate([p[key] for p in parts]) for key in parts[0] if key != "names"}


def r2_rmse(y, pred) -> tuple[float, float]:
    resid = y - pred
    return 1 - resid.var() / y.var(), float(np.sqrt((resid**2).mean()))


# Signs the fit may impose (--signs): more of a holding or a standing is never worth less, a
# missing salary never more (Target.nonpositive). Without them, features that go with weak play
# (a greedy seat that hoards what it cannot use) can come out negative although having more can
# never hurt.
def fit(target: Target, X, y, ridge: float, signs: bool = False) -> np.ndarray:
    """Ridge least squares on features scaled to unit spread (a constant column unpenalised),
    weights back in raw units. With ``signs``, a weight of the wrong sign is fixed at 0 (the most
    wrong first) and the rest refitted, until none is left."""
    names = list(target.module.FEATURES)
    nonpositive = set(target.nonpositive)
    nonnegative = set(names) - nonpositive - set(target.unsigned)
    free_cols = list(range(X.shape[1]))
    while True:
        w = np.zeros(X.shape[1])
        w[free_cols] = _ridge(X[:, free_cols], y, ridge)
        if not signs:
            return w
        wrong = [
            (abs(w[i]) * X[:, i].std(), i)
            for i in free_cols
            if (names[i] in nonnegative and w[i] < 0) or (names[i] in nonpositive and w[i] > 0)
        ]
        if not wrong:
            return w
        free_cols.remove(max(wrong)[1])


def _ridge(X, y, ridge: float) -> np.ndarray:
    std = X.std(axis=0)
    free = (std == 0) & (X[0] != 0)  # the constant column
    std[std == 0] = 1.0
    Z = X / std
    penalty = ridge * len(Z) * np.diag(np.where(free, 0.0, 1.0))
    beta = np.linalg.pinv(Z.T @ Z + penalty) @ (Z.T @ y)
    return beta / std


def report(target: Target, data: dict, args) -> None:
    X, y = data["features"], data["final"] - data["vp"]
    v1 = data["v1"] - data["vp"]
    held = (data["game"] % 5) == 0
    tables = {}
    for label, mask in (("PLAYER", ~data["bot"]), (target.bot_table, data["bot"])):
        if not mask.any():
            continue
        fit_rows, test_rows = mask & ~held, mask & held
        w = fit(target, X[fit_rows], y[fit_rows], args.ridge, args.signs)
        print(
            f"{label}: {fit_rows.sum()} fit rows, {test_rows.sum()} held-out rows ({len(set(data['game'][mask]))} games)"
        )
        # The first evaluator's (estimate - VP) is no forecast of the VP to come (it has no
        # level for the time left): give it its best affine use of the time left, fitted too.
        time_col = X[:, list(target.module.FEATURES).index(target.time_feature)]
        V = np.column_stack([v1, time_col, np.ones(len(v1))])
        v1_fit = V @ np.linalg.lstsq(V[fit_rows], y[fit_rows], rcond=None)[0]
        # the module's table now (before any --write), as it is, on the same rows
        table = getattr(target.module, label)
        now = np.array([table[name] for name in target.module.FEATURES])
        for name_set, rows in (("fit", fit_rows), ("held-out", test_rows)):
            r2, rmse = r2_rmse(y[rows], X[rows] @ w)
            r2_old, rmse_old = r2_rmse(y[rows], v1_fit[rows])
            r2_now, rmse_now = r2_rmse(y[rows], X[rows] @ now)
            print(
                f"  {name_set}: R^2 {r2:.3f}, RMSE {rmse:.1f} VP (first evaluator, rescaled: R^2 {r2_old:.3f}, RMSE {rmse_old:.1f};"
                f" the module's table now: R^2 {r2_now:.3f}, RMSE {rmse_now:.1f})"
            )
        tables[label] = w
    block = weight_block(target, tables, data, args)
    print("\n" + block)
    if args.write:
        assert target.module.__file__ is not None  # a plugin module, loaded from its file
        module = Path(target.module.__file__)
        text = module.read_text()
        head, rest = text.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        module.write_text(head + BEGIN + "\n" + block + END + tail)
        print(f"written to {module}")


BEGIN = "# BEGIN FITTED (bench/fit_eval.py --write replaces this block)"
END = "# END FITTED"


def weight_block(target: Target, tables: dict, data: dict, args) -> str:
    """The weight tables as Python, with where they come from."""
    today = datetime.date.today().isoformat()
    sources = (
        ", ".join(Path(p).name for p in args.load)
        if args.load
        else f"{args.games} games per kind from seed {args.first_seed}"
    )
    lines = [
        f"# Fitted on {today} by bench/fit_eval.py --game {args.game}: {len(set(data['game']))} games",
        f"# ({sources}), {len(data['final'])} seat-positions, ridge {args.ridge}"
        + (", signs imposed." if args.signs else "."),
        "# fmt: off",
    ]
    for label, w in tables.items():
        lines.append(f"{label} = {{")
        lines.extend(
            f'    "{name}": {value:.3f},' for name, value in zip(target.module.FEATURES, w, strict=True)
        )
        lines.append("}")
    lines.append("# fmt: on")
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--game", choices=sorted(TARGETS), default="teotihuacan", help="whose evaluator to fit"
    )
    parser.add_argument(
        "--games", type=int, default=100, help="games per kind (a tenth for solo-random/-ismcts)"
    )
    parser.add_argument(
        "--first-seed", type=int, default=100000, help="game seeds start here (bench uses 1000+)"
    )
    parser.add_argument("--kinds", nargs="+", choices=KINDS, default=list(KINDS))
    parser.add_argument("--epsilon", type=float, default=0.1, help="greedy's random-move probability")
    parser.add_argument(
        "--turns",
        type=int,
        default=0,
        help="greedy's play-outs: its best options played on through this many more turns (0: its look-ahead only)",
    )
    parser.add_argument(
        "--sample", type=float, default=0.3, help="probability of recording a decision's position"
    )
    parser.add_argument(
        "--policy-eval", choices=EVALUATORS, default="v1", help="the evaluator greedy and ismcts play with"
    )
    parser.add_argument("--ismcts-iterations", type=int, default=30)
    parser.add_argument("--ridge", type=float, default=1e-3, help="ridge penalty (standardised features)")
    parser.add_argument("--signs", action="store_true", help="impose the signs of NONNEGATIVE / NONPOSITIVE")
    parser.add_argument("--save", help="save the positions (.npz)")
    parser.add_argument(
        "--write", action="store_true", help="write the fitted tables into the game's evaluator module"
    )
    parser.add_argument("--load", action="append", default=[], help="fit on saved positions (repeatable)")
    args = parser.parse_args(argv)
    target = TARGETS[args.game]
    find_evaluator(args.game)
    if args.load:
        data = merge(target, [dict(np.load(path)) for path in args.load])
    else:
        data = collect(target, args)
        if args.save:
            np.savez_compressed(args.save, **data)
    report(target, data, args)


if __name__ == "__main__":
    main(sys.argv[1:])

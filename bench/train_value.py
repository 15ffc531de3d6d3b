"""Train the learned value function (plugins/bots/value_net.py): play games, fit, evaluate.

    # 1. play seeded games and keep each seat's features at sampled decisions (one file a game in
    #    DIR: a stopped run resumes, skipping the games it has; --workers plays games side by side)
    .venv/bin/python bench/train_value.py generate --game zapotec --games 400 --out data/zap --workers 2
    # 2. fit the network on the games of DIR (seed % 5 == 0 held out), print the held-out error
    #    next to the linear tables', and write the weights the bots load (--write)
    .venv/bin/python bench/train_value.py fit --game zapotec --data data/zap --write
    # 3. held-out error of the shipped network and the tables on other games
    .venv/bin/python bench/train_value.py evaluate --game zapotec --data data/zap-test

Games (``--kinds``; each gets ``--games`` seeds, a seed is the game's and its agents'):
``solo-greedy`` greedy (its turn's look-ahead, the shipped tables) against the automaton
(Teotibot; Cocijobot normal), a random option instead of greedy's with probability
``--epsilon`` (exploration: positions good play would not reach); ``duo-greedy`` two such
seats; ``solo-value`` and ``duo-value`` the same with the ``value`` agent on the shipped
network (a second round on the network's own games). At each decision, with probability
``--sample``, every seat's feature row is kept with its points banked; its final score is added
when the game ends. The fit (the ``train`` extra: scikit-learn) learns final - banked.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from random import Random
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.match.inprocess import decide_message, hello_message  # noqa: E402
from arena.wire.agent import Agent  # noqa: E402
from bench.fit_eval import TARGETS, EpsilonGreedy  # noqa: E402
from plugins.bots import value_net  # noqa: E402
from plugins.bots.value_agent import ValueAgent  # noqa: E402
from plugins.bots.value_features import names, seat_features  # noqa: E402

KINDS = ("solo-greedy", "duo-greedy", "solo-value", "duo-value")
HIDDEN = (64, 32)


# ---- generate ----------------------------------------------------------------------------------


class EpsilonValue(ValueAgent):
    """The ``value`` agent, playing a random option with probability ``epsilon``."""

    def __init__(self, epsilon: float) -> None:
        super().__init__()
        self.epsilon = epsilon

    def setup(self, hello):
        super().setup(hello)
        self.explore = Random(hello.get("agent_options", {}).get("seed", 0) + 7)

    def act(self, observation, decision):
        if self.explore.random() < self.epsilon:
            return self.explore.randrange(len(decision["options"]))
        return super().act(observation, decision)


def make_agents(game: str, kind: str, epsilon: float, turns: int) -> list[Agent]:
    tables = TARGETS[game].module.evaluate
    one: Callable[[], Agent] = (
        (lambda: EpsilonGreedy(tables, epsilon, turns))
        if kind.endswith("greedy")
        else (lambda: EpsilonValue(epsilon))
    )
    return [one() for _ in range(1 if kind.startswith("solo") else 2)]


def play_game(
    game: str, kind: str, seed: int, epsilon: float, sample: float, turns: int = 0
) -> dict[str, np.ndarray]:
    """One game: every sampled seat-position's features, points banked, final score and game seed."""
    target = TARGETS[game]
    agents = make_agents(game, kind, epsilon, turns)
    options = dict(target.solo) if kind.startswith("solo") else {}
    state = target.game.setup(len(agents), seed, options)
    players = len(agents) + (1 if options else 0)
    for seat, agent in enumerate(agents):
        agent.setup(dict(hello_message(target.game, seat, players, options, {"seed": seed + seat})))
    sampler = Random(seed * 31 + 5)
    rows: list[np.ndarray] = []
    banked: list[np.ndarray] = []
    seats: list[np.ndarray] = []
    step = 0
    while state.to_act():
        seat = state.to_act()[0]
        if target.sampled(state) and sampler.random() < sample:
            points, features = seat_features(game, state)
            rows.append(features)
            banked.append(points)
            seats.append(np.arange(len(points)))
        step += 1
        message: dict[str, Any] = dict(decide_message(state, seat, step))
        choice = agents[seat].act(message["obs"], message)
        assert isinstance(choice, int)  # these agents answer with the option alone
        state.apply(seat, choice)
    scores = np.asarray(state.result().scores, dtype=float)
    seat_of = np.concatenate(seats) if seats else np.zeros(0, dtype=int)
    width = len(names(game))
    return {
        "features": np.vstack(rows) if rows else np.zeros((0, width)),
        "banked": np.concatenate(banked) if banked else np.zeros(0),
        "final": scores[seat_of],
        "seat": seat_of,
        "game": np.full(len(seat_of), seed),
        "columns": np.array(names(game)),
    }


def _job(
    game: str, kind: str, seed: int, epsilon: float, sample: float, turns: int, path: str
) -> tuple[str, int]:
    data: dict[str, Any] = play_game(game, kind, seed, epsilon, sample, turns)
    temporary = path + ".part.npz"
    np.savez_compressed(temporary, **data)
    os.replace(temporary, path)  # a stopped run leaves no half-written game behind
    return path, len(data["final"])


def generate(args) -> None:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    jobs = []
    for kind in args.kinds:
        for i in range(args.games):
            seed = args.first_seed + 100000 * KINDS.index(kind) + i
            path = out / f"{args.game}-{kind}-{seed}.npz"
            if not path.exists():  # resumable: a game already played is kept
                jobs.append((args.game, kind, seed, args.epsilon, args.sample, args.turns, str(path)))
    print(f"{len(jobs)} games to play ({args.workers} workers)", file=sys.stderr, flush=True)
    started = time.perf_counter()
    done = 0
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        futures = [pool.submit(_job, *job) for job in jobs]
        for future in as_completed(futures):
            written, count = future.result()
            done += 1
            print(
                f"  {done}/{len(jobs)} {Path(written).name}: {count} rows, {time.perf_counter() - started:.0f} s",
                file=sys.stderr,
                flush=True,
            )


# ---- fit and evaluate --------------------------------------------------------------------------


def load(game: str, folders: list[str]) -> dict[str, np.ndarray]:
    """Every game file of ``folders`` for ``game``, merged; files of other features are refused."""
    parts = []
    for folder in folders:
        for path in sorted(Path(folder).glob(f"{game}-*.npz")):
            if path.name.endswith(".part.npz"):
                continue
            with np.load(path) as data:
                if list(data["columns"]) != names(game):
                    raise SystemExit(f"error: {path} has other features than today's: generate it again")
                parts.append({key: data[key] for key in data.files if key != "columns"})
    if not parts:
        raise SystemExit(f"error: no {game} games in {', '.join(folders)}: run `generate` first")
    return {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}


def rmse(error: np.ndarray) -> float:
    return float(np.sqrt(np.mean(error**2))) if len(error) else float("nan")


def middle(game: str, features: np.ndarray) -> np.ndarray:
    """Rows from the middle third of the game (by the share of it left)."""
    cols = names(game)
    if game == "teotihuacan":
        left = features[:, cols.index("time")]
    else:
        turns = features[:, cols.index("turns")]
        left = turns / max(1.0, float(turns.max()))
    return (left > 1 / 3) & (left <= 2 / 3)


def report(
    game: str, data: dict[str, np.ndarray], net: value_net.ValueNet, rows: np.ndarray, label: str
) -> None:
    """RMSE of the forecast of final - banked, network against the linear tables, by seat kind."""
    cols = names(game)
    X, y = data["features"][rows], (data["final"] - data["banked"])[rows]
    net_error = net.predict(X) - y
    table_error = X[:, cols.index("linear")] - y
    is_bot = X[:, cols.index("is_bot")] > 0.5
    mid = middle(game, X)
    print(f"{label}: {len(y)} seat-positions of {len(set(data['game'][rows]))} games")
    for name, mask in (("players", ~is_bot), ("automaton", is_bot), ("players, middle third", ~is_bot & mid)):
        if mask.any():
            print(
                f"  {name:22s} RMSE network {rmse(net_error[mask]):5.2f}, tables {rmse(table_error[mask]):5.2f}"
                f" ({mask.sum()} rows)"
            )


def fit(args) -> None:
    from sklearn.neural_network import MLPRegressor  # the `train` extra: play needs numpy only
    from threadpoolctl import threadpool_limits  # scikit-learn's own dependency

    # one BLAS thread: matrices this small lose more to threads fighting over a shared machine's
    # cores than they gain (a fit took ten times as long with the default threads)
    threadpool_limits(1)

    data = load(args.game, args.data)
    held = (data["game"] % 5) == 0
    X, y = data["features"], data["final"] - data["banked"]
    mean, spread = X[~held].mean(axis=0), X[~held].std(axis=0)
    spread[spread == 0] = 1.0
    target_mean, target_spread = float(y[~held].mean()), float(y[~held].std())
    model = MLPRegressor(
        hidden_layer_sizes=tuple(args.hidden),
        alpha=args.alpha,
        learning_rate_init=1e-3,
        batch_size=256,
        max_iter=args.epochs,
        early_stopping=True,  # a tenth of the fit rows decides when to stop
        n_iter_no_change=10,
        random_state=args.seed,
    )
    started = time.perf_counter()
    model.fit((X[~held] - mean) / spread, (y[~held] - target_mean) / target_spread)
    print(f"fitted in {time.perf_counter() - started:.0f} s, {model.n_iter_} epochs", file=sys.stderr)
    net = as_value_net(model, mean, spread, target_mean, target_spread, args.game)
    report(args.game, data, net, ~held, "fit")
    report(args.game, data, net, held, "held-out")
    if args.write:
        path = value_net.weights_path(args.game)
        games = len(set(data["game"]))
        net.save(path, command=" ".join(["bench/train_value.py", *sys.argv[1:]]), games=games, rows=len(y))
        print(f"written to {path} ({path.stat().st_size // 1024} kB)")


def as_value_net(
    model: Any, mean, spread, target_mean: float, target_spread: float, game: str
) -> value_net.ValueNet:
    """A fitted MLPRegressor (ReLU, standardised inputs and target) as the numpy network."""
    return value_net.ValueNet(
        mean=mean,
        spread=spread,
        weights=tuple(np.asarray(w, dtype=float) for w in model.coefs_),
        biases=tuple(np.asarray(b, dtype=float) for b in model.intercepts_),
        target_mean=target_mean,
        target_spread=target_spread,
        columns=tuple(names(game)),
    )


def evaluate(args) -> None:
    data = load(args.game, args.data)
    net = value_net.network(args.game)
    if net is None:
        raise SystemExit(f"error: no network ships for {args.game}: run `fit --write` first")
    report(args.game, data, net, np.ones(len(data["final"]), dtype=bool), "all games")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    gen = commands.add_parser("generate", help="play seeded games, keep their positions (resumable)")
    gen.add_argument("--game", choices=sorted(TARGETS), required=True)
    gen.add_argument("--out", required=True, help="folder of the games' files (one a game)")
    gen.add_argument("--games", type=int, default=100, help="games per kind")
    gen.add_argument(
        "--first-seed", type=int, default=400000, help="seeds start here (bench_strength's deals: 0-10000)"
    )
    gen.add_argument("--kinds", nargs="+", choices=KINDS, default=["solo-greedy", "duo-greedy"])
    gen.add_argument("--epsilon", type=float, default=0.2, help="probability of a random move (exploration)")
    gen.add_argument(
        "--turns",
        type=int,
        default=0,
        help="greedy's play-outs through its next turns (the shipped Teotihuacan greedy: 2)",
    )
    gen.add_argument("--sample", type=float, default=0.3, help="probability of keeping a decision's position")
    gen.add_argument("--workers", type=int, default=1, help="games played side by side")
    for name, helptext in (
        ("fit", "fit the network, print held-out errors"),
        ("evaluate", "the shipped network's errors"),
    ):
        sub = commands.add_parser(name, help=helptext)
        sub.add_argument("--game", choices=sorted(TARGETS), required=True)
        sub.add_argument("--data", action="append", required=True, help="a folder of games (repeatable)")
        if name == "fit":
            sub.add_argument("--hidden", type=int, nargs="+", default=list(HIDDEN), help="hidden layer sizes")
            sub.add_argument("--alpha", type=float, default=1e-3, help="L2 penalty")
            sub.add_argument("--epochs", type=int, default=200)
            sub.add_argument("--seed", type=int, default=0)
            sub.add_argument("--write", action="store_true", help="write the weights the bots load")
    args = parser.parse_args(argv)
    {"generate": generate, "fit": fit, "evaluate": evaluate}[args.command](args)


if __name__ == "__main__":
    main(sys.argv[1:])

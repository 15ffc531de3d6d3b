"""Train the learned value function (plugins/bots/value_net.py): play games, fit, evaluate.

    # 1. play seeded games and keep each seat's features at sampled decisions (one file a game in
    #    DIR: a stopped run resumes, skipping the games it has; --workers plays games side by side)
    .venv/bin/python bench/train_value.py generate --game zapotec --games 400 --out data/zap --workers 2
    # 2. fit the network on the games of DIR (seed % 5 == 0 held out), print the held-out error
    #    next to the linear tables', and write the weights the bots load (--write)
    .venv/bin/python bench/train_value.py fit --game zapotec --data data/zap --write
    # 3. held-out error of the shipped network and the tables on other games
    .venv/bin/python bench/train_value.py evaluate --game zapotec --data data/zap-test
    # Teotihuacan's Late Preclassic modules: games with a module setting, one network for them all
    .venv/bin/python bench/train_value.py generate --game teotihuacan --modules all --games 400 --out data/mods
    .venv/bin/python bench/train_value.py fit --game teotihuacan --modules any --data data/mods --write

Games (``--kinds``; each gets ``--games`` seeds, a seed is the game's and its agents'):
``solo-greedy`` greedy (its turn's look-ahead, the shipped tables) against the automaton
(Teotibot; Cocijobot normal), a random option instead of greedy's with probability
``--epsilon`` (exploration: positions good play would not reach); ``duo-greedy`` two such
seats; ``solo-value`` and ``duo-value`` the same with the ``value`` agent on the shipped
network (a second round on the network's own games). At each decision, with probability
``--sample``, every seat's feature row is kept with its points banked; its final score is added
when the game ends. The fit (the ``train`` extra: scikit-learn) learns final - banked.

``--modules`` (Teotihuacan): ``generate`` plays with that setting of the game's ``modules``
option (``all``, a module's name, or names joined by commas); ``fit`` and ``evaluate`` read
the games of one setting, or of every setting with ``any``, over the modules' feature rows
(``value_features.MODULES_KIND``): one network serves every module setting, the base game keeps
its own. Without it, the base game as before.
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
from plugins.bots.value_features import MODULES_KIND, names, seat_features  # noqa: E402

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


def modules_mask(modules: str) -> int:
    """The bit mask of a ``--modules`` setting (0: the base game); a bad one exits with one line."""
    from engine.api import BadOptions
    from engine.teotihuacan.modules import parse

    try:
        return parse(modules or None)
    except BadOptions as error:
        raise SystemExit(f"error: --modules: {error}") from None


def modules_tag(modules: str) -> str:
    """A setting's name in the games' file names: ``all`` or the module names joined by '+'."""
    from engine.teotihuacan.modules import ALL, canonical

    mask = modules_mask(modules)
    return "all" if mask == ALL else canonical(mask).replace(",", "+")


def rows_of(game: str, modules: str) -> str:
    """The kind of feature rows of ``game`` with a ``--modules`` setting (value_features.KINDS)."""
    return MODULES_KIND if game == "teotihuacan" and modules else game


def play_game(
    game: str, kind: str, seed: int, epsilon: float, sample: float, turns: int = 0, modules: str = ""
) -> dict[str, np.ndarray]:
    """One game (with Teotihuacan's ``modules`` setting, if any): every sampled seat-position's
    features, points banked, final score and game seed."""
    target = TARGETS[game]
    agents = make_agents(game, kind, epsilon, turns)
    options = dict(target.solo) if kind.startswith("solo") else {}
    if modules:
        options["modules"] = modules
    rows_kind = rows_of(game, modules)
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
            points, features = seat_features(rows_kind, state)
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
    width = len(names(rows_kind))
    return {
        "features": np.vstack(rows) if rows else np.zeros((0, width)),
        "banked": np.concatenate(banked) if banked else np.zeros(0),
        "final": scores[seat_of],
        "seat": seat_of,
        "game": np.full(len(seat_of), seed),
        "columns": np.array(names(rows_kind)),
    }


def _job(
    game: str, kind: str, seed: int, epsilon: float, sample: float, turns: int, modules: str, path: str
) -> tuple[str, int]:
    data: dict[str, Any] = play_game(game, kind, seed, epsilon, sample, turns, modules)
    temporary = path + ".part.npz"
    np.savez_compressed(temporary, **data)
    os.replace(temporary, path)  # a stopped run leaves no half-written game behind
    return path, len(data["final"])


def generate(args) -> None:
    out = Path(args.out)
    modules = check_modules(args)
    # a module setting's games: their own file names and seeds (a seed plays one deal of one setting)
    prefix = f"{args.game}+{modules_tag(modules)}" if modules else args.game
    offset = 1000000 * modules_mask(modules)
    out.mkdir(parents=True, exist_ok=True)
    jobs = []
    for kind in args.kinds:
        for i in range(args.games):
            seed = args.first_seed + offset + 100000 * KINDS.index(kind) + i
            path = out / f"{prefix}-{kind}-{seed}.npz"
            if not path.exists():  # resumable: a game already played is kept
                jobs.append(
                    (args.game, kind, seed, args.epsilon, args.sample, args.turns, modules, str(path))
                )
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


def check_modules(args) -> str:
    """The ``--modules`` setting of a command ('' for the base game), refused for Zapotec."""
    modules = getattr(args, "modules", "") or ""
    if modules and args.game != "teotihuacan":
        raise SystemExit("error: --modules is Teotihuacan's (its Late Preclassic modules): leave it out")
    if modules and modules != "any":
        modules_mask(modules)  # a bad name: one line
    return modules


def load(game: str, folders: list[str], modules: str = "") -> dict[str, np.ndarray]:
    """Every game file of ``folders`` for ``game`` (with a ``--modules`` setting: that setting's,
    or every setting's for ``any``), merged; files of other features are refused. Each row's
    setting is kept (``setting``: its tag in the file names, "" for the base game)."""
    if not modules:
        pattern = f"{game}-*.npz"
    elif modules == "any":
        pattern = f"{game}+*.npz"
    else:
        pattern = f"{game}+{modules_tag(modules)}-*.npz"
    columns = names(rows_of(game, modules))
    parts = []
    for folder in folders:
        for path in sorted(Path(folder).glob(pattern)):
            if path.name.endswith(".part.npz"):
                continue
            with np.load(path) as data:
                if list(data["columns"]) != columns:
                    raise SystemExit(f"error: {path} has other features than today's: generate it again")
                part = {key: data[key] for key in data.files if key != "columns"}
            tag = path.name.split("-")[0].partition("+")[2]
            part["setting"] = np.full(len(part["final"]), tag)
            parts.append(part)
    if not parts:
        what = f"{game} games with modules {modules}" if modules else f"{game} games"
        raise SystemExit(f"error: no {what} in {', '.join(folders)}: run `generate` first")
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
    """RMSE of the forecast of final - banked, network against the linear tables, by seat kind
    (and by module setting where the rows hold several)."""
    cols = list(net.columns)
    X, y = data["features"][rows], (data["final"] - data["banked"])[rows]
    net_error = net.predict(X) - y
    table_error = X[:, cols.index("linear")] - y
    is_bot = X[:, cols.index("is_bot")] > 0.5
    mid = middle(game, X)
    print(f"{label}: {len(y)} seat-positions of {len(set(data['game'][rows]))} games")
    settings = data["setting"][rows]
    for setting in sorted(set(settings)) if len(set(settings)) > 1 else [None]:
        one = np.ones(len(y), dtype=bool) if setting is None else settings == setting
        if setting is not None:
            print(f"  modules {setting}:")
        for name, mask in (
            ("players", ~is_bot & one),
            ("automaton", is_bot & one),
            ("players, middle third", ~is_bot & mid & one),
        ):
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

    modules = check_modules(args)
    rows_kind = rows_of(args.game, modules)
    data = load(args.game, args.data, modules)
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
    net = as_value_net(model, mean, spread, target_mean, target_spread, rows_kind)
    report(args.game, data, net, ~held, "fit")
    report(args.game, data, net, held, "held-out")
    if args.write:
        path = value_net.weights_path(rows_kind)
        games = len(set(data["game"]))
        net.save(path, command=" ".join(["bench/train_value.py", *sys.argv[1:]]), games=games, rows=len(y))
        print(f"written to {path} ({path.stat().st_size // 1024} kB)")


def as_value_net(
    model: Any, mean, spread, target_mean: float, target_spread: float, rows_kind: str
) -> value_net.ValueNet:
    """A fitted MLPRegressor (ReLU, standardised inputs and target) as the numpy network."""
    return value_net.ValueNet(
        mean=mean,
        spread=spread,
        weights=tuple(np.asarray(w, dtype=float) for w in model.coefs_),
        biases=tuple(np.asarray(b, dtype=float) for b in model.intercepts_),
        target_mean=target_mean,
        target_spread=target_spread,
        columns=tuple(names(rows_kind)),
    )


def evaluate(args) -> None:
    modules = check_modules(args)
    rows_kind = rows_of(args.game, modules)
    data = load(args.game, args.data, modules)
    net = value_net.network(rows_kind)
    if net is None:
        raise SystemExit(f"error: no network ships for {rows_kind}: run `fit --write` first")
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
    gen.add_argument(
        "--modules",
        default="",
        help="Teotihuacan's Late Preclassic modules: all, a name, or names joined by commas",
    )
    for name, helptext in (
        ("fit", "fit the network, print held-out errors"),
        ("evaluate", "the shipped network's errors"),
    ):
        sub = commands.add_parser(name, help=helptext)
        sub.add_argument("--game", choices=sorted(TARGETS), required=True)
        sub.add_argument("--data", action="append", required=True, help="a folder of games (repeatable)")
        sub.add_argument(
            "--modules",
            default="",
            help="Teotihuacan: the modules network, on the games of one module setting or of every one (any)",
        )
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

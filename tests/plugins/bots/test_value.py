"""The learned value function: its features, the numpy network, the ``value`` agent and ismcts's
``network`` option."""

from __future__ import annotations

from random import Random

import numpy as np
import pytest

from arena.match.inprocess import play_in_process
from arena.registry.plugins import discover
from engine.teotihuacan import GAME as TEOTIHUACAN
from engine.zapotec import GAME as ZAPOTEC
from plugins.bots import value_net
from plugins.bots.ismcts import ISMCTSAgent
from plugins.bots.value_agent import ValueAgent
from plugins.bots.value_features import names, seat_features
from plugins.random_agent import RandomAgent

GAMES = [ZAPOTEC, TEOTIHUACAN]
AUTOMATA = {
    "zapotec": {"automaton": "cocijobot", "difficulty": "normal"},
    "teotihuacan": {"automaton": "teotibot"},
}


def midgame(game, players: int, options: dict, moves: int = 80, seed: int = 5):
    """A state ``moves`` random decisions into a seeded game (fewer where it ends first)."""
    state = game.setup(players, seed, options)
    rng = Random(seed)
    for _ in range(moves):
        if not state.to_act():
            break
        seat = state.to_act()[0]
        state.apply(seat, rng.randrange(len(state.decision(seat).options)))
    return state


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.id)
@pytest.mark.parametrize("players, solo", [(1, True), (2, False), (3, False)], ids=["solo", "2p", "3p"])
def test_features_have_a_row_per_seat_and_a_column_per_name(game, players, solo):
    state = midgame(game, players, AUTOMATA[game.id] if solo else {})
    banked, rows = seat_features(game.id, state)
    seats = players + solo
    assert rows.shape == (seats, len(names(game.id))) and banked.shape == (seats,)
    assert np.isfinite(rows).all()
    columns = names(game.id)
    # the automaton's seat is marked, and each seat's lead is over the best other seat's points
    assert list(rows[:, columns.index("is_bot")]) == [0.0] * players + [1.0] * solo
    best_other = [max(banked[s] for s in range(seats) if s != seat) for seat in range(seats)]
    assert list(rows[:, columns.index("lead")]) == list(banked - best_other)
    assert (rows[:, columns.index("seats")] == seats).all()


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.id)
def test_features_are_deterministic_and_read_only_what_every_seat_sees(game):
    state = midgame(game, 2, {})
    banked, rows = seat_features(game.id, state)
    again = seat_features(game.id, state)
    assert np.array_equal(banked, again[0]) and np.array_equal(rows, again[1])
    # a resampled state (other hidden cards, stacks and chance) has the same public features
    for seat in (0, 1):
        sampled = state.determinize(seat, Random(seat + 11))
        assert np.array_equal(seat_features(game.id, sampled)[1], rows)


def test_numpy_inference_matches_scikit_learn_on_fixed_inputs():
    from sklearn.neural_network import MLPRegressor  # the train extra: `make setup` installs it

    from bench.train_value import as_value_net

    width = len(names("zapotec"))
    rng = np.random.default_rng(3)
    X = rng.normal(2.0, 3.0, size=(200, width))
    y = X[:, 0] * 2 - X[:, 5] + rng.normal(size=200)
    mean, spread = X.mean(axis=0), X.std(axis=0)
    model = MLPRegressor(hidden_layer_sizes=(16, 8), max_iter=50, random_state=0)
    model.fit((X - mean) / spread, (y - 1.5) / 4.0)
    net = as_value_net(model, mean, spread, 1.5, 4.0, "zapotec")
    fixed = rng.normal(2.0, 3.0, size=(7, width))
    expected = model.predict((fixed - mean) / spread) * 4.0 + 1.5
    assert np.allclose(net.predict(fixed), expected, rtol=0, atol=1e-9)


def test_a_saved_network_loads_back_the_same(tmp_path):
    net = value_net.network("zapotec")
    assert net is not None
    net.save(tmp_path / "copy.npz", command="a test")
    copy = value_net.ValueNet.load(tmp_path / "copy.npz")
    rows = seat_features("zapotec", midgame(ZAPOTEC, 2, {}))[1]
    assert np.array_equal(copy.predict(rows), net.predict(rows)) and copy.columns == net.columns


def test_a_network_trained_on_other_features_is_refused(tmp_path, monkeypatch):
    net = value_net.network("zapotec")
    assert net is not None
    stale = value_net.ValueNet(
        net.mean, net.spread, net.weights, net.biases, 0.0, 1.0, ("an", "old", "feature")
    )
    monkeypatch.setattr(value_net, "WEIGHTS", tmp_path)
    stale.save(tmp_path / "value-zapotec.npz")
    value_net.network.cache_clear()
    try:
        with pytest.raises(ValueError, match="trained on other features: retrain it"):
            value_net.network("zapotec")
    finally:
        value_net.network.cache_clear()


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.id)
def test_the_shipped_network_estimates_every_seat_and_gives_the_scores_at_the_end(game):
    evaluate = value_net.evaluator(game.id)
    state = midgame(game, 1, AUTOMATA[game.id], moves=12)
    assert not state.terminal()
    values = evaluate(state)
    assert len(values) == 2 and all(np.isfinite(values))
    ended = play_in_process(game, [RandomAgent(), RandomAgent()], 4)
    assert evaluate(ended) == [float(s) for s in ended.result().scores]


def test_the_value_agent_is_registered_with_its_options():
    spec = discover().agents["value"]
    assert spec.factory is ValueAgent and set(spec.options) == {"seed", "look", "plies", "width"}


def played_game(game, options: dict, seed: int) -> tuple[list[int], list[int]]:
    """A solo game of the value agent against the automaton: its choices and the final scores."""
    agent = ValueAgent()
    choices: list[int] = []
    act = agent.act

    def recording(observation, decision):
        choices.append(act(observation, decision))
        return choices[-1]

    agent.act = recording  # type: ignore[method-assign]
    automaton = AUTOMATA[game.id]
    state = play_in_process(
        game, [agent], seed, options={k: v for k, v in automaton.items() if k != "automaton"},
        agent_options=[options], automaton=automaton["automaton"],
    )  # fmt: skip
    assert agent.mismatches == 0  # every sampled decision was the one asked
    return choices, list(state.result().scores)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.id)
@pytest.mark.parametrize("look", ["turn", "step"])
def test_the_value_agent_plays_whole_legal_games_that_replay(game, look):
    # play_in_process raises on any choice outside the options
    first = played_game(game, {"seed": 3, "look": look}, 21)
    assert first == played_game(game, {"seed": 3, "look": look}, 21)
    assert len(first[0]) > 20


def test_the_value_agent_plays_a_two_player_game():
    state = play_in_process(TEOTIHUACAN, [ValueAgent(), RandomAgent()], 8, agent_options=[{"plies": 2}, {}])
    assert state.terminal()


def test_the_value_agent_refuses_a_game_without_a_network_in_one_line():
    agent = ValueAgent()
    with pytest.raises(
        ValueError, match=r"value: game 'goofspiel' has no value network \(see docs/bots.md\)"
    ):
        agent.setup({"game": "goofspiel", "seat": 0, "players": 2, "agent_options": {}})


# Teotihuacan's prior plays greedy's options on through two turns: its own test below holds where
# the network goes, a whole game with it would take minutes
@pytest.mark.parametrize(
    "game, network",
    [(ZAPOTEC, "cutoff"), (ZAPOTEC, "prior"), (ZAPOTEC, "both"), (TEOTIHUACAN, "cutoff")],
    ids=["zapotec-cutoff", "zapotec-prior", "zapotec-both", "teotihuacan-cutoff"],
)
def test_ismcts_with_the_network_plays_legal_games_that_replay(game, network):
    options = {
        "iterations": 6,
        "depth": 4,
        "seed": 2,
        "network": network,
        "prior": 50 if network != "cutoff" else 0,
    }

    def scores() -> list[int]:
        agent = ISMCTSAgent()
        automaton = AUTOMATA[game.id]
        state = play_in_process(
            game, [agent], 9, options={k: v for k, v in automaton.items() if k != "automaton"},
            agent_options=[options], automaton=automaton["automaton"],
        )  # fmt: skip
        assert agent.mismatches == 0
        return list(state.result().scores)

    assert scores() == scores()


def test_ismcts_network_option_puts_the_network_where_it_says():
    hello = {"game": "zapotec", "seat": 0, "players": 2, "options": AUTOMATA["zapotec"]}
    tables = ISMCTSAgent()
    tables.setup({**hello, "agent_options": {"prior": 10}})
    cutoff = ISMCTSAgent()
    cutoff.setup({**hello, "agent_options": {"prior": 10, "network": "cutoff"}})
    prior = ISMCTSAgent()
    prior.setup({**hello, "agent_options": {"prior": 10, "network": "prior"}})
    state = midgame(ZAPOTEC, 1, AUTOMATA["zapotec"], moves=12)
    assert not state.terminal()
    learned = value_net.evaluator("zapotec")(state)
    assert tables.evaluator is not None and cutoff.evaluator is not None and prior.evaluator is not None
    assert tables.evaluator.evaluate(state) != learned
    assert cutoff.evaluator.evaluate(state) == learned and cutoff.greedy is not None
    assert cutoff.greedy.evaluator is not None and cutoff.greedy.evaluator.evaluate(state) != learned
    assert prior.evaluator.evaluate(state) != learned
    assert prior.greedy is not None and prior.greedy.evaluator is not None
    assert prior.greedy.evaluator.evaluate(state) == learned


def test_ismcts_refuses_the_network_where_the_game_has_none():
    agent = ISMCTSAgent()
    with pytest.raises(
        ValueError, match="ismcts: game 'goofspiel' has no value network, so 'network' must be none"
    ):
        agent.setup({"game": "goofspiel", "seat": 0, "players": 2, "agent_options": {"network": "cutoff"}})

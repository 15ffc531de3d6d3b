"""The learned value function with Teotihuacan's Late Preclassic modules: the modules' feature
rows, their own network, and the ``value`` agent and ismcts's ``network`` option loading it."""

from __future__ import annotations

from random import Random

import numpy as np
import pytest

from arena.match.inprocess import play_in_process
from engine.teotihuacan import GAME as TEOTIHUACAN
from engine.teotihuacan.modules import MODULES
from plugins.bots import value_net
from plugins.bots.ismcts import ISMCTSAgent
from plugins.bots.teotihuacan_eval import evaluate as tables
from plugins.bots.value_agent import ValueAgent
from plugins.bots.value_features import MODULES_KIND, kind, names, seat_features
from plugins.random_agent import RandomAgent
from tests.plugins.bots.test_value import midgame as game_midgame

SETTINGS = [*MODULES, "all"]


def midgame(players: int, options: dict, moves: int = 80, seed: int = 5):
    """A state ``moves`` random decisions into a seeded Teotihuacan game."""
    return game_midgame(TEOTIHUACAN, players, options, moves, seed)


def test_the_modules_pick_their_own_kind_of_rows_and_the_base_game_keeps_its_own():
    assert kind("teotihuacan", None) == kind("teotihuacan", {}) == "teotihuacan"
    assert kind("teotihuacan", {"modules": ""}) == "teotihuacan"
    assert (
        kind("teotihuacan", {"modules": "all"}) == kind("teotihuacan", {"modules": "seasons"}) == MODULES_KIND
    )
    assert kind("zapotec", {"modules": "all"}) == "zapotec"
    base = names("teotihuacan")
    assert len(base) == 62  # the base network's columns, unchanged
    assert set(base) < set(names(MODULES_KIND))


@pytest.mark.parametrize("setting", SETTINGS)
@pytest.mark.parametrize("players, solo", [(1, True), (2, False)], ids=["solo", "2p"])
def test_module_rows_are_the_base_rows_plus_what_the_modules_add(setting, players, solo):
    options = {"modules": setting, **({"automaton": "teotibot"} if solo else {})}
    state = midgame(players, options)
    banked, rows = seat_features(MODULES_KIND, state)
    columns = names(MODULES_KIND)
    seats = players + solo
    assert rows.shape == (seats, len(columns)) and np.isfinite(rows).all()
    # every base column holds the base game's value for the same position
    base_banked, base_rows = seat_features("teotihuacan", state)
    assert np.array_equal(banked, base_banked)
    for k, name in enumerate(names("teotihuacan")):
        assert np.array_equal(rows[:, columns.index(name)], base_rows[:, k]), name
    # the flags say which modules are in play; a module's columns stay 0 without it
    on = set(MODULES) if setting == "all" else {setting}
    for module in MODULES:
        assert (rows[:, columns.index(f"module_{module}")] == (module in on)).all()

    def block(prefix: str) -> np.ndarray:
        return rows[:, [k for k, name in enumerate(columns) if name.startswith(prefix)]]

    assert block("priest_").sum(axis=1).max() <= 1 and block("season_").sum(axis=1).max() <= 1
    if "priests" not in on:
        assert not block("priest_").any() and not block("rival_priest_").any()
    if "height" not in on:
        assert not block("orange").any() and not block("ability_").any()
    if "seasons" not in on:
        assert not block("season_").any()


@pytest.mark.parametrize("setting", ["all", "priests", "seasons"])
def test_module_rows_are_deterministic_and_read_only_what_every_seat_sees(setting):
    state = midgame(2, {"modules": setting}, moves=120)
    banked, rows = seat_features(MODULES_KIND, state)
    again = seat_features(MODULES_KIND, state)
    assert np.array_equal(banked, again[0]) and np.array_equal(rows, again[1])
    for seat in (0, 1):  # other hidden tiles, stacks and chance: the same public features
        sampled = state.determinize(seat, Random(seat + 11))
        assert np.array_equal(seat_features(MODULES_KIND, sampled)[1], rows)


def test_the_shipped_modules_network_has_their_columns_and_is_the_one_a_module_game_gets():
    net = value_net.network(MODULES_KIND)
    assert net is not None and list(net.columns) == names(MODULES_KIND)
    assert value_net.has_network("teotihuacan", {"modules": "all"})
    state = midgame(1, {"automaton": "teotibot", "modules": "all"}, moves=30)
    banked, rows = seat_features(MODULES_KIND, state)
    # the forward pass by hand: standardise, ReLU hidden layers, the linear output rescaled
    hidden = (rows - net.mean) / net.spread
    for w, b in zip(net.weights[:-1], net.biases[:-1], strict=True):
        hidden = np.maximum(hidden @ w + b, 0.0)
    by_hand = (hidden @ net.weights[-1] + net.biases[-1])[:, 0] * net.target_spread + net.target_mean
    estimate = value_net.evaluator("teotihuacan", {"modules": "all"})(state)
    assert np.allclose(estimate, banked + by_hand, rtol=0, atol=1e-9)
    assert estimate != value_net.evaluator("teotihuacan")(state) != tables(state)
    ended = play_in_process(TEOTIHUACAN, [RandomAgent(), RandomAgent()], 4, options={"modules": "all"})
    assert value_net.evaluator("teotihuacan", {"modules": "all"})(ended) == [
        float(s) for s in ended.result().scores
    ]


def solo_game(agent, options: dict, setting: str, seed: int) -> tuple[list[int], list[int]]:
    """A seeded solo game with ``setting``'s modules against Teotibot: the choices and scores."""
    choices: list[int] = []
    act = agent.act

    def recording(observation, decision):
        choices.append(act(observation, decision))
        return choices[-1]

    agent.act = recording
    state = play_in_process(
        TEOTIHUACAN,
        [agent],
        seed,
        options={"modules": setting},
        agent_options=[options],
        automaton="teotibot",
    )
    assert agent.mismatches == 0  # every sampled decision was the one asked
    return choices, list(state.result().scores)


@pytest.mark.parametrize("setting", ["all", "height"])
def test_ismcts_with_the_modules_network_at_the_cutoff_plays_games_that_replay(setting):
    options = {"iterations": 4, "depth": 4, "seed": 2, "network": "cutoff", "prior": 0}
    first = solo_game(ISMCTSAgent(), options, setting, 9)
    assert first == solo_game(ISMCTSAgent(), options, setting, 9)
    assert len(first[0]) > 20


def test_the_value_agent_plays_module_games_that_replay():
    first = solo_game(ValueAgent(), {"seed": 3}, "all", 21)
    assert first == solo_game(ValueAgent(), {"seed": 3}, "all", 21)


def test_ismcts_and_the_value_agent_load_the_modules_network_where_the_match_has_modules():
    state = midgame(1, {"automaton": "teotibot", "modules": "all"}, moves=30)
    learned = value_net.evaluator("teotihuacan", {"modules": "all"})(state)
    hello = {"game": "teotihuacan", "seat": 0, "players": 2}
    search = ISMCTSAgent()
    search.setup({**hello, "options": {"modules": "all"}, "agent_options": {"prior": 0, "network": "cutoff"}})
    assert search.evaluator is not None and search.evaluator.evaluate(state) == learned
    agent = ValueAgent()
    agent.setup({**hello, "options": {"modules": "all"}, "agent_options": {}})
    assert agent.evaluator is not None and agent.evaluator.evaluate(state) == learned
    base = ISMCTSAgent()  # the base game's options: the base network
    base.setup({**hello, "options": {}, "agent_options": {"prior": 0, "network": "cutoff"}})
    assert base.evaluator is not None and base.evaluator.evaluate(state) == value_net.evaluator(
        "teotihuacan"
    )(state)

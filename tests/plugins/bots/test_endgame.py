"""The exact end-game search (plugins/bots/endgame.py) and ``ismcts``'s ``endgame`` option.

Its values are checked against a brute force over every line of the rest of the game, on end
positions of both games reached by seeded random play; then its budget and the fallback to the
normal search (tests/bench/test_bench_endgame.py replays whole seeded games with it).
"""

from __future__ import annotations

import math
from random import Random

import pytest

from arena.match.inprocess import decide_message, hello_message
from engine.api import Game, State
from engine.playout import option_count
from engine.teotihuacan import GAME as TEOTIHUACAN
from engine.zapotec import GAME as ZAPOTEC
from plugins.bots.endgame import OutOfReach, Solver, near_end
from plugins.bots.evaluators import find_evaluator, seat_margin
from plugins.bots.ismcts import SPEC, ISMCTSAgent

SOLO = {
    "zapotec": {"automaton": "cocijobot", "difficulty": "normal"},
    "teotihuacan": {"automaton": "teotibot"},
}
GAMES = [ZAPOTEC, TEOTIHUACAN]


def best_margin(state: State, seat: int) -> float:
    """``seat``'s best final margin over every line of the rest of a solo game, tried one by one
    (the automaton's moves are forced: it never has two options)."""
    seats = state.to_act()
    if not seats:
        return seat_margin(state.result().scores, seat)
    mover = seats[0]
    count = option_count(state, mover)
    assert mover == seat or count == 1, "only the player chooses in a solo game"
    best = -math.inf
    for choice in range(count):
        child = state.clone()
        child.apply(mover, choice)
        best = max(best, best_margin(child, seat))
    return best


def minimax(state: State) -> float:
    """Seat 0's final lead over seat 1 with both playing their best, every line tried."""
    seats = state.to_act()
    if not seats:
        scores = state.result().scores
        return scores[0] - scores[1]
    mover = seats[0]
    values = []
    for choice in range(option_count(state, mover)):
        child = state.clone()
        child.apply(mover, choice)
        values.append(minimax(child))
    return max(values) if mover == 0 else min(values)


def end_position(game: Game, players: int, options: dict, seed: int, nodes: int) -> tuple[State, int]:
    """A position of a seeded random game in its last stretch where a seat has several options,
    the rest is within ``nodes`` and those options end the game differently for it."""
    state, rng = game.setup(players, seed, options), Random(seed)
    while state.to_act():
        seat = state.to_act()[0]
        count = option_count(state, seat)
        if count > 1 and near_end(game.id, state):
            try:
                margins = Solver(nodes, 3).option_margins(state, seat)
            except OutOfReach:
                margins = []
            if len(set(margins)) > 1:
                return state, seat
        state.apply(seat, rng.randrange(count))
    raise AssertionError(f"no end position within {nodes} nodes in {game.id} seed {seed}")


# seeds whose random games reach such a position within 3000 nodes
@pytest.mark.parametrize(
    "game, seed",
    [(ZAPOTEC, 0), (ZAPOTEC, 1), (TEOTIHUACAN, 0), (TEOTIHUACAN, 2)],
    ids=lambda v: str(getattr(v, "id", v)),
)
def test_the_exact_search_values_each_option_as_the_best_of_every_line(game, seed):
    state, seat = end_position(game, 1, SOLO[game.id], seed, 3000)
    truth = []
    for choice in range(option_count(state, seat)):
        child = state.clone()
        child.apply(seat, choice)
        truth.append(best_margin(child, seat))
    assert len(set(truth)) > 1  # a position where the choice matters
    # both ways: max-n (any number of seats) and alpha-beta (two seats: the player and the automaton)
    for seats in (3, 2):
        assert Solver(3000, seats).option_margins(state.clone(), seat) == truth


# seeds whose random 2-player games reach such a position within 4000 nodes
@pytest.mark.parametrize(
    "game, seed",
    [(ZAPOTEC, 0), (ZAPOTEC, 2), (TEOTIHUACAN, 0), (TEOTIHUACAN, 2)],
    ids=lambda v: str(getattr(v, "id", v)),
)
def test_alpha_beta_with_ordering_finds_the_minimax_value_of_a_two_player_end(game, seed):
    evaluator = find_evaluator(game.id)
    assert evaluator is not None
    state, seat = end_position(game, 2, {}, seed, 4000)
    sign = 1 if seat == 0 else -1
    truth = []
    for choice in range(option_count(state, seat)):
        child = state.clone()
        child.apply(seat, choice)
        truth.append(sign * minimax(child))
    ordered = Solver(100_000, 2, evaluate=evaluator.evaluate)
    assert ordered.option_margins(state.clone(), seat) == truth
    plain = Solver(100_000, 2)
    assert plain.option_margins(state.clone(), seat) == truth


def test_the_search_gives_up_past_its_budget():
    state = ZAPOTEC.setup(1, 5, SOLO["zapotec"])  # the first decision: the whole game ahead
    solver = Solver(500, 2)
    with pytest.raises(OutOfReach):
        solver.option_margins(state, 0)
    assert solver.nodes == 501  # the move past the budget is never made


def test_the_last_stretch_is_the_last_round_or_the_final_eclipse():
    zapotec = ZAPOTEC.setup(1, 5, SOLO["zapotec"])
    assert not near_end("zapotec", zapotec)
    zapotec.round = zapotec.data.rounds
    assert near_end("zapotec", zapotec)
    teo = TEOTIHUACAN.setup(1, 5, SOLO["teotihuacan"])
    assert not near_end("teotihuacan", teo)
    teo.eclipses, teo.pending = 2, -1  # the last era, but no Eclipse coming yet
    assert not near_end("teotihuacan", teo)
    teo.pending = 3
    assert near_end("teotihuacan", teo)
    assert near_end("another-game", zapotec)  # a game not named: the budget alone decides


def decide(agent: ISMCTSAgent, state: State, seat: int) -> int:
    message = decide_message(state, seat, 1)
    return agent.act(message["obs"], dict(message))


def agent_for(game: Game, options: dict) -> ISMCTSAgent:
    agent = ISMCTSAgent()
    agent.setup(dict(hello_message(game, 0, 2, {**SOLO[game.id]}, {"iterations": 20, "seed": 3, **options})))
    return agent


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.id)
def test_ismcts_plays_the_exact_best_option_at_the_end(game):
    state, seat = end_position(game, 1, SOLO[game.id], 0, 3000)
    agent = agent_for(game, {"endgame": True, "endgame_samples": 2})
    margins = Solver(3000, 2).option_margins(state.clone(), seat)
    choice = decide(agent, state, seat)
    assert agent.solved == 1
    # the observation hides little this late, and the choice is the best of the true position
    assert margins[choice] == max(margins)


@pytest.mark.parametrize("options", [{}, {"endgame_nodes": 1}], ids=["early", "past-budget"])
def test_ismcts_searches_as_usual_where_the_end_is_out_of_reach(options):
    if options:
        state, seat = end_position(ZAPOTEC, 1, SOLO["zapotec"], 0, 3000)
    else:
        state, seat = ZAPOTEC.setup(1, 5, SOLO["zapotec"]), 0
    on = agent_for(ZAPOTEC, {"endgame": True, **options})
    off = agent_for(ZAPOTEC, {})
    assert decide(on, state, seat) == decide(off, state, seat)
    assert on.solved == 0
    assert on.rng.getstate() == off.rng.getstate()  # the search's own draws were left alone


def test_ismcts_endgame_options_are_declared_and_checked():
    assert SPEC.options["endgame"]["default"] is False
    assert SPEC.check_options({"endgame": True, "endgame_nodes": 100, "endgame_samples": 2})
    for bad in ({"endgame_nodes": 0}, {"endgame_samples": 0}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            SPEC.check_options(bad)

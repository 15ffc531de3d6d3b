"""Seeded positions of every game set-up, mid-game and at the end, for the board-drawing tests
(tests/engine/test_svg.py's text checks, the browser screenshots of tests/arena/web/test_boards_browser.py)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from random import Random

from engine.api import Game, State
from engine.playout import random_choice
from engine.teotihuacan import GAME as TEOTIHUACAN
from engine.zapotec import GAME as ZAPOTEC


@dataclass(frozen=True)
class Setup:
    """One way to play: the game, agent seats, options and the seats' names on the board."""

    name: str
    game: Game
    players: int
    options: dict
    names: tuple[str, ...]


SETUPS = (
    Setup("teotihuacan-base", TEOTIHUACAN, 3, {}, ("ismcts", "greedy", "a-long-agent-name-v2")),
    Setup("teotihuacan-expansion", TEOTIHUACAN, 2, {"modules": "all"}, ("ismcts", "greedy")),
    Setup("teotihuacan-solo", TEOTIHUACAN, 1, {"automaton": "teotibot"}, ("ismcts", "teotibot")),
    Setup(
        "teotihuacan-solo-expansion",
        TEOTIHUACAN,
        1,
        {"automaton": "teotibot", "modules": "all"},
        ("ismcts", "teotibot"),
    ),
    Setup("teotihuacan-4p", TEOTIHUACAN, 4, {"modules": "priests,height"}, ("a", "b", "c", "d")),
    Setup("zapotec-2p", ZAPOTEC, 2, {}, ("ismcts", "greedy")),
    Setup("zapotec-4p", ZAPOTEC, 4, {}, ("ismcts", "greedy", "random", "a-long-agent-name-v2")),
    Setup("zapotec-solo", ZAPOTEC, 1, {}, ("ismcts", "cocijobot")),
)


def positions(setup: Setup, seed: int = 1) -> Iterator[tuple[str, State]]:
    """("mid", the position half-way through) and ("end", the final position) of a seeded random game."""
    state = setup.game.setup(setup.players, seed, setup.options)
    rng = Random(seed)
    states = []
    while state.to_act():
        states.append(state.clone())
        seat = state.to_act()[0]
        state.apply(seat, random_choice(state, seat, rng))
    yield "mid", states[len(states) // 2]
    yield "end", state

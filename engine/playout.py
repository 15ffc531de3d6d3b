"""The built-in random policy: used by the random agent, forfeited seats and self-play tests."""

from __future__ import annotations

from collections.abc import Callable
from random import Random

from engine.api import Game, State


def option_count(state: State, seat: int) -> int:
    """How many options ``seat`` has now. An engine may offer ``option_count(seat)`` to answer
    without building the labelled Decision (a playout needs only the number)."""
    fast = getattr(state, "option_count", None)
    return fast(seat) if fast is not None else len(state.decision(seat).options)


def option_labels(state: State, seat: int) -> list[str]:
    """The labels of ``seat``'s options now. An engine may offer ``option_labels(seat)`` to answer
    without building the Decision's option dicts (a search keys its tree by the labels)."""
    fast = getattr(state, "option_labels", None)
    if fast is not None:
        return fast(seat)
    return [option.get("label", "") for option in state.decision(seat).options]


def observation_sampler(game: Game, observation: dict) -> Callable[[Random], State]:
    """``rng -> game.from_observation(observation, rng)``, for a search that samples one
    observation many times. An engine may offer ``observation_sampler(observation)`` that makes
    the same states faster (reading the public part once), without their log."""
    fast = getattr(game, "observation_sampler", None)
    if fast is not None:
        return fast(observation)
    return lambda rng: game.from_observation(observation, rng)


def random_choice(state: State, seat: int, rng: Random) -> int:
    """A uniformly random legal option for ``seat``."""
    return rng.randrange(option_count(state, seat))


def play_random(state: State, rng: Random, max_steps: int = 1_000_000) -> State:
    """Play ``state`` to the end with every seat choosing at random (in place); returns it."""
    for _ in range(max_steps):
        seats = state.to_act()
        if not seats:
            return state
        seat = seats[0]  # simultaneous seats are asked one after another; each sees no other's pick
        state.apply(seat, random_choice(state, seat, rng))
    raise RuntimeError(f"game did not end within {max_steps} decisions")

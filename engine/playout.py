"""The built-in random policy: used by the random agent, forfeited seats and self-play tests; and
the fast paths a playout takes where a game declares them (``Capabilities``, engine/api.py)."""

from __future__ import annotations

from collections.abc import Callable
from random import Random

from engine.api import Game, State, capabilities

Counter = Callable[[State, int], int]
Labeller = Callable[[State, int], list[str]]


def option_count(state: State, seat: int) -> int:
    """How many options ``seat`` has now, from its Decision (any game)."""
    return len(state.decision(seat).options)


def option_labels(state: State, seat: int) -> list[str]:
    """The labels of ``seat``'s options now, from its Decision (any game)."""
    return [option.get("label", "") for option in state.decision(seat).options]


def option_counter(game: Game) -> Counter:
    """``game``'s ``option_count`` capability (the number without building the labelled
    Decision: a playout needs only that), else ``option_count``."""
    return capabilities(game).option_count or option_count


def option_labeller(game: Game) -> Labeller:
    """``game``'s ``option_labels`` capability (the labels without the Decision's option dicts:
    a search keys its tree by them), else ``option_labels``."""
    return capabilities(game).option_labels or option_labels


def observation_sampler(game: Game, observation: dict) -> Callable[[Random], State]:
    """``rng -> game.from_observation(observation, rng)``, for a search that samples one
    observation many times: ``game``'s ``observation_sampler`` capability where it declares one
    (the same states, faster, without their log)."""
    fast = capabilities(game).observation_sampler
    if fast is not None:
        return fast(observation)
    return lambda rng: game.from_observation(observation, rng)


def random_choice(state: State, seat: int, rng: Random, count: Counter = option_count) -> int:
    """A uniformly random legal option for ``seat`` (``count``: how its options are counted,
    ``option_counter(game)`` for the game's fast path)."""
    return rng.randrange(count(state, seat))


def play_random(
    state: State, rng: Random, max_steps: int = 1_000_000, count: Counter = option_count
) -> State:
    """Play ``state`` to the end with every seat choosing at random (in place); returns it.
    ``count`` as for ``random_choice``: the same game either way, faster with the game's own."""
    for _ in range(max_steps):
        seats = state.to_act()
        if not seats:
            return state
        seat = seats[0]  # simultaneous seats are asked one after another; each sees no other's pick
        state.apply(seat, random_choice(state, seat, rng, count))
    raise RuntimeError(f"game did not end within {max_steps} decisions")

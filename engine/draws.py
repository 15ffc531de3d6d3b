"""``random.Random``'s draws made faster, the same draws: a search samples and plays out
thousands of times a decision, and the same seed must still replay the same game.

CPython's algorithms with its ``_randbelow`` inlined (no call per element, no argument checks);
tests/engine/test_draws.py holds each equal to the ``Random`` method it stands for.
"""

from __future__ import annotations

from random import Random
from typing import Any


def below(rng: Random, n: int) -> int:
    """``rng.randrange(n)`` for ``n >= 1``: the same draw."""
    k = n.bit_length()
    getrandbits = rng.getrandbits
    r = getrandbits(k)
    while r >= n:
        r = getrandbits(k)
    return r


def shuffle(rng: Random, x: list[Any]) -> None:
    """``rng.shuffle(x)``: the same draws and the same order."""
    getrandbits = rng.getrandbits
    for i in reversed(range(1, len(x))):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        x[i], x[j] = x[j], x[i]

"""engine.draws gives exactly Random's draws (a seed replays a game bit for bit)."""

from __future__ import annotations

from random import Random

from engine.draws import below, shuffle


def test_shuffle_is_random_shuffle():
    for size in range(40):
        for seed in range(5):
            fast, slow = Random(seed), Random(seed)
            x, y = list(range(size)), list(range(size))
            shuffle(fast, x)
            slow.shuffle(y)
            assert x == y and fast.getstate() == slow.getstate()


def test_below_is_randrange_and_a_die_is_randint():
    for n in (1, 2, 3, 5, 6, 7, 8, 9, 31, 32, 33, 1000, 2**40 + 3):
        fast, slow = Random(n), Random(n)
        assert [below(fast, n) for _ in range(200)] == [slow.randrange(n) for _ in range(200)]
        assert fast.getstate() == slow.getstate()
    fast, slow = Random(7), Random(7)
    assert [1 + below(fast, 6) for _ in range(300)] == [slow.randint(1, 6) for _ in range(300)]

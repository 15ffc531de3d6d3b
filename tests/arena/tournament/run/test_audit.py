"""Checks on cluster workers' results (arena/tournament/run/audit.py): move-by-move comparison and
per-worker statistics against the same agents' results elsewhere."""

from __future__ import annotations

from arena.tournament.run.audit import FLAG_Z, HERE, MIN_GAMES, WorkerStats, first_difference


def record(winner: str, loser: str = "other", moves: list[tuple[int, int]] | None = None) -> dict:
    return {
        "agents": [{"agent": winner, "display": winner}, {"agent": loser, "display": loser}],
        "result": {"ranks": [1, 2]},
        "moves": [{"seat": seat, "choice": choice} for seat, choice in moves or []],
    }


def test_the_first_move_that_differs_is_named():
    ours = record("a", moves=[(0, 3), (1, 0), (0, 1)])
    assert first_difference(ours, ours) is None
    swapped = record("a", moves=[(0, 0), (1, 0), (0, 1)])
    assert first_difference(swapped, ours) == "move 1 is seat 0 choosing 0 there, seat 0 choosing 3 here"
    assert first_difference(record("a", moves=[(0, 3)]), ours) == "1 moves there, 3 here"


def results(stats: WorkerStats, worker: str, wins: int, losses: int) -> None:
    for _ in range(wins):
        stats.add(worker, record("cheat"))
    for _ in range(losses):
        stats.add(worker, {**record("other", "cheat")})


def test_a_worker_whose_seats_win_far_beyond_chance_is_flagged_and_chance_is_not():
    stats = WorkerStats()
    results(stats, HERE, 15, 15)  # the audits' plays on this machine: the baseline
    results(stats, "honest", 15, 15)
    results(stats, "lucky", 7, 1)  # the attack's 7 of 8 against 4 of 8: within chance for 8 matches
    assert stats.flagged("lucky") is None and stats.flagged("honest") is None
    results(stats, "rogue", 30, 0)  # every match of its own, against half elsewhere
    why = stats.flagged("rogue")
    assert (
        why is not None and "'cheat' did far better than on this machine" in why and "30 matches there" in why
    )
    assert stats.flagged("honest") is None  # the rogue's wins do not make the others suspect
    few = WorkerStats()
    results(few, HERE, 15, 15)
    results(few, "new", MIN_GAMES - 1, 0)
    assert few.flagged("new") is None  # too few results to judge
    assert FLAG_Z >= 3

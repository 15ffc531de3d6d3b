"""Tournament formats: complete, balanced, deterministic schedules."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest

from arena.tournament.plan.ladder import Entrant, Ladder
from arena.tournament.plan.schedule import make_schedule, match_seed


def ladder(names, players=2, fmt="round-robin", repeats=2, **kwargs) -> Ladder:
    entrants = tuple(Entrant(name, "random", {"seed": i}) for i, name in enumerate(names))
    return Ladder(
        name="t",
        game="goofspiel",
        players=players,
        format=fmt,
        entrants=entrants,
        options={"cards": 5},
        matches_per_pairing=repeats,
        seed=3,
        **kwargs,
    )


@pytest.mark.parametrize(("agents", "players"), [(4, 2), (5, 3), (4, 4), (6, 3)])
def test_round_robin_is_complete_and_balanced(agents, players):
    names = [f"a{i}" for i in range(agents)]
    schedule = make_schedule(ladder(names, players))
    groups = list(combinations(names, players))
    assert len(schedule) == len(groups) * 2 * players  # every group x repeats x rotations
    # every combination of agents is played, each repeat in every seat rotation
    played = Counter(frozenset(m.entrants) for m in schedule)
    assert played == {frozenset(g): 2 * players for g in groups}
    # every agent sits equally often in every seat
    seats = Counter((name, seat) for m in schedule for seat, name in enumerate(m.entrants))
    assert len(set(seats.values())) == 1 and len(seats) == agents * players
    # the rotations of a repeat share one seed (duplicate seating), repeats differ
    by_seed = Counter((frozenset(m.entrants), m.spec.seed) for m in schedule)
    assert set(by_seed.values()) == {players} and len(by_seed) == len(groups) * 2
    assert [m.index for m in schedule] == list(range(len(schedule)))
    # deal-major order: every group plays its first deal before any group plays its second
    first_deals = len(groups) * players
    assert all(m.key.split("#")[1].startswith("0/") for m in schedule[:first_deals])
    assert len({m.key for m in schedule}) == len(schedule)


def test_specs_carry_agents_options_and_clocks_in_seat_order():
    schedule = make_schedule(ladder(["x", "y"], repeats=1, move_ms=250, bank_ms=900, memory_mb=64))
    first, second = schedule
    assert first.entrants == ("x", "y") and second.entrants == ("y", "x")
    assert second.spec.agent_options == ({"seed": 1}, {"seed": 0})
    assert first.spec.seed == second.spec.seed
    assert (first.spec.move_ms, first.spec.bank_ms, first.spec.memory_mb) == (250, 900, 64)
    assert first.spec.options == {"cards": 5} and first.spec.automaton is None


def test_gauntlet_puts_the_challenger_against_every_group_of_the_field():
    names = ["c", "f1", "f2", "f3"]
    schedule = make_schedule(ladder(names, players=3, fmt="gauntlet", challenger="c", repeats=1))
    assert len(schedule) == 3 * 3  # C(3, 2) groups x 3 rotations
    assert all("c" in m.entrants for m in schedule)
    assert Counter(m.entrants.index("c") for m in schedule) == {0: 3, 1: 3, 2: 3}


def test_solo_adds_the_automaton_seat_after_each_agent():
    schedule = make_schedule(ladder(["p", "q"], players=1, fmt="solo", automaton="bot", repeats=3))
    assert len(schedule) == 6
    assert all(m.spec.automaton == "bot" and len(m.entrants) == 1 for m in schedule)
    assert schedule[0].seat_names == ("p", "bot")
    # every agent faces the same deals, so solo scores compare directly
    seeds = {name: [m.spec.seed for m in schedule if m.entrants == (name,)] for name in ("p", "q")}
    assert seeds["p"] == seeds["q"] and len(set(seeds["p"])) == 3


def test_schedule_is_a_pure_function_of_the_ladder():
    one = make_schedule(ladder(["a", "b", "c"], players=2))
    two = make_schedule(ladder(["a", "b", "c"], players=2))
    assert one == two
    assert match_seed(3, ["a", "b"], 0) == match_seed(3, ["b", "a"], 0) != match_seed(4, ["a", "b"], 0)
    assert 0 <= match_seed(3, ["a", "b"], 0) < 2**31


@pytest.mark.parametrize(
    "made",
    [
        ladder([f"a{i}" for i in range(5)], players=3),
        ladder(["c", "f1", "f2", "f3"], players=3, fmt="gauntlet", challenger="c", repeats=3),
        ladder(["p", "q", "r"], players=1, fmt="solo", automaton="bot", repeats=4),
    ],
)
def test_match_count_is_the_length_of_the_schedule(made):
    """The count the ladder's size limit is checked with, without building the schedule."""
    assert made.match_count == len(make_schedule(made))


def test_a_base_seed_given_to_the_schedule_replaces_the_ladder_seed():
    made = ladder(["a", "b", "c"], players=2)
    assert make_schedule(made, base_seed=3) == make_schedule(made)
    drawn = make_schedule(made, base_seed=987654321)
    assert [m.key for m in drawn] == [m.key for m in make_schedule(made)]
    assert drawn[0].spec.seed == match_seed(987654321, ["a", "b"], 0) != make_schedule(made)[0].spec.seed

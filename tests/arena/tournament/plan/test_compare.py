"""`arena compare`: its deals (arena/tournament/plan/compare.py) without an engine, then one real run on goofspiel."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from dataclasses import replace

import pytest

from arena.tournament.plan.compare import (
    CompareError,
    deal_outcomes,
    interval_hint,
    ladder_record,
    make_comparison,
    schedule,
    stored_comparison,
)
from arena.tournament.plan.runs import open_run
from arena.tournament.plan.schedule import ScheduledMatch
from arena.tournament.plan.secrecy import seeds_hidden
from arena.tournament.stats.report import run_title
from arena.tournament.stats.sprt import SprtSettings, state
from arena.tournament.store.api import LadderRun, StoredMatch, StoredSeat
from arena.tournament.store.sqlite import Store
from tests.support import cli


def stored(match: ScheduledMatch, results: list[tuple[int, int, str | None]] | None) -> StoredMatch:
    """``match`` as the store returns it: done with ``results`` (score, rank, fault) per seat, or pending."""
    seats = tuple(
        StoredSeat(seat, name, name, score, rank, fault)
        for seat, (name, (score, rank, fault)) in enumerate(
            zip(match.seat_names, results or [], strict=False)
        )
    )
    status = "pending" if results is None else "done"
    return StoredMatch(
        match.index,
        1,
        match.index,
        match.key,
        match.spec.seed,
        status,
        1,
        None,
        match.spec,
        match.entrants,
        seats,
    )


def test_head_to_head_deals_seat_both_agents_both_ways_on_one_seed():
    comparison = make_comparison("c", "goofspiel", "v2", "v1", players=2)
    assert not comparison.paired and comparison.matches_per_deal == 2
    matches = schedule(comparison, 3)
    assert [m.entrants for m in matches[:2]] == [("v2", "v1"), ("v1", "v2")]
    seeds = [m.spec.seed for m in matches]
    assert seeds[0] == seeds[1] and seeds[2] == seeds[3] and seeds[0] != seeds[2]
    assert len({m.key for m in matches}) == 6
    assert schedule(comparison, 2) == matches[:4]  # a longer comparison extends a shorter one


def test_head_to_head_outcome_is_the_pair_of_results_and_stops_at_an_unfinished_deal():
    comparison = make_comparison("c", "goofspiel", "v2", "v1", players=2)
    m = schedule(comparison, 3)
    results = [
        stored(m[0], [(9, 1, None), (3, 2, None)]),  # deal 0: v2 wins as seat 0 ...
        stored(m[1], [(5, 1, None), (5, 1, None)]),  # ... and draws as seat 1: 2 + 1 halves
        stored(m[2], [(9, 1, "timeout"), (3, 2, None)]),  # deal 1: v2 forfeits (last despite its score)
        stored(m[3], [(7, 1, None), (2, 2, None)]),  # ... and loses: 0
        stored(m[4], [(7, 1, None), (2, 2, None)]),  # deal 2 is not finished
        stored(m[5], None),
    ]
    assert deal_outcomes(comparison, results) == [3, 0]


def test_paired_deals_give_new_and_old_the_identical_match():
    comparison = make_comparison("c", "goofspiel", "v2", "v1", players=3, opponents=["random"])
    assert comparison.paired and [e.name for e in comparison.opponents] == ["random", "random#2"]
    matches = schedule(comparison, 1)
    assert len(matches) == comparison.matches_per_deal == 6
    for new, old in zip(matches[::2], matches[1::2], strict=True):
        assert new.spec.seed == old.spec.seed
        assert [n if n != "v2" else "v1" for n in new.entrants] == list(old.entrants)
    assert [m.entrants.index("v2") for m in matches[::2]] == [0, 2, 1]  # every seat once

    results = [
        stored(matches[0], [(8, 1, None), (4, 2, None), (2, 3, None)]),  # v2 first ...
        stored(matches[1], [(6, 2, None), (7, 1, None), (2, 3, None)]),  # ... v1 second: 2
        stored(matches[2], [(3, 2, None), (1, 3, None), (9, 1, None)]),  # both first, v2 on more points: 2
        stored(matches[3], [(3, 2, None), (1, 3, None), (8, 1, None)]),
        stored(matches[4], [(5, 1, None), (4, 2, None), (0, 3, None)]),  # both second on 4: level, 1
        stored(matches[5], [(5, 1, None), (4, 2, None), (0, 3, None)]),
    ]
    assert deal_outcomes(comparison, results) == [5]


def test_solo_comparison_plays_each_deal_against_the_automaton():
    comparison = make_comparison("c", "teotihuacan", "v2", "v1", players=1, automaton="teotibot")
    matches = schedule(comparison, 2)
    assert [m.seat_names for m in matches[:2]] == [("v2", "teotibot"), ("v1", "teotibot")]
    results = [
        stored(matches[0], [(40, 1, None), (30, 2, None)]),  # v2 beats the bot, v1 does not: 2
        stored(matches[1], [(20, 2, None), (30, 1, None)]),
        stored(matches[2], [(20, 2, None), (30, 1, None)]),  # both lose, v1 closer: 0
        stored(matches[3], [(25, 2, None), (30, 1, None)]),
    ]
    assert deal_outcomes(comparison, results) == [2, 0]


def test_a_stored_comparison_grows_by_whole_deals_and_keeps_what_it_has(tmp_path):
    comparison = make_comparison("grow", "goofspiel", "v2", "v1", players=2)
    with Store(tmp_path / "grow.db") as store:
        run = open_run(store, ladder_record(comparison), [])
        assert store.add_matches(run.id, schedule(comparison, 2)) == 4
        assert store.add_matches(run.id, schedule(comparison, 3)) == 2  # only deal 2 is new
        assert store.add_matches(run.id, schedule(comparison, 1)) == 0
        assert [m.key for m in store.pending(run.id)] == [m.key for m in schedule(comparison, 3)]
        # the same comparison finds the same run; other settings are another tournament
        assert open_run(store, ladder_record(comparison), []).id == run.id
        other = make_comparison("grow", "goofspiel", "v2", "v1", players=2, settings=SprtSettings(elo1=20))
        assert ladder_record(other).digest != ladder_record(comparison).digest


def test_a_stored_comparison_is_read_back_with_its_test_settings(tmp_path):
    settings = SprtSettings(elo0=-5, elo1=25, alpha=0.1, beta=0.02)
    comparison = make_comparison(
        "", "goofspiel", "v2", "v1", players=3, opponents=["random"], new_options={"x": 1}, settings=settings
    )
    older = make_comparison(
        "older",
        "goofspiel",
        "v2",
        "v1",
        players=2,
        settings=SprtSettings(elo1=30.0),  # floats, as from the CLI
    )
    unknown = make_comparison("unknown", "goofspiel", "v2", "v1", players=2, settings=SprtSettings(alpha=0.1))
    with Store(tmp_path / "read.db") as store:
        run = open_run(store, ladder_record(comparison), [])
        assert stored_comparison(store, run) == comparison
        # runs stored before the settings were kept: the defaults and the elo1 of the
        # description, when the run's digest confirms them; else unknown
        run = open_run(store, replace(ladder_record(older), sprt=None), [])
        assert stored_comparison(store, run) == older
        run = open_run(store, replace(ladder_record(unknown), sprt=None), [])
        assert stored_comparison(store, run) is None


def test_run_title_names_the_game_once():
    comparison = make_comparison("", "zapotec", "v2", "v1", players=2)
    run = LadderRun(1, comparison.name, "d", "zapotec", "compare", "arena compare", "now")
    assert run_title(run) == "compare v2 vs v1 (zapotec, compare)"
    assert run_title(replace(run, name="solo", format="solo")) == "solo (zapotec, solo)"


def test_one_agent_with_two_option_sets_is_two_named_entrants_each_sent_its_options():
    comparison = make_comparison(
        "",
        "goofspiel",
        "ismcts",
        "ismcts",
        players=3,
        new_options={"iterations": 200},
        old_options={"iterations": 100},
    )
    assert (comparison.new.name, comparison.old.name) == ("ismcts[iterations=200]", "ismcts[iterations=100]")
    assert comparison.name == "compare ismcts[iterations=200] vs ismcts[iterations=100] (goofspiel)"
    expected = {"ismcts[iterations=200]": {"iterations": 200}, "ismcts[iterations=100]": {"iterations": 100}}
    matches = schedule(comparison, 2)
    assert {name for match in matches for name in match.entrants} == {*expected, "random", "random#2"}
    for match in matches:
        for name, options in zip(match.entrants, match.spec.agent_options, strict=True):
            assert options == expected.get(name, {})
    plain = make_comparison("", "goofspiel", "ismcts", "ismcts", players=3, new_options={"iterations": 100})
    assert ladder_record(plain).digest != ladder_record(comparison).digest


def test_comparisons_without_agent_options_keep_the_digest_and_specs_they_were_stored_with():
    # digests computed before agent options existed: a stored comparison must still resume
    head_to_head = make_comparison("c", "goofspiel", "v2", "v1", players=2)
    solo = make_comparison("c", "teotihuacan", "v2", "v1", players=1, automaton="teotibot")
    assert (
        ladder_record(head_to_head).digest
        == "fe71fca4be77a5c8b62a91fd7e9e71c3de5f9ef131746bd118952ba37a25b2cb"
    )
    assert ladder_record(solo).digest == "75885448ce4021de31ea747d6d33a9a0140f51edd291860391356011c66870ad"
    assert all(match.spec.agent_options == () for match in schedule(solo, 2))


@pytest.mark.parametrize(
    "arguments, message",
    [
        (dict(new="a", old="a", players=2), "NEW and OLD are both 'a'"),
        (
            dict(new="a", old="a", players=2, new_options={"k": 1}, old_options={"k": 1}),
            "with the same options",
        ),
        (dict(new="a", old="b", players=1), "one player needs an automaton"),
        (dict(new="a", old="b", players=2, opponents=["x", "y"]), "2 --opponent given but only 1 seat"),
    ],
)
def test_comparisons_that_cannot_be_played_are_refused(arguments, message):
    with pytest.raises(CompareError, match=message):
        make_comparison("c", "goofspiel", **arguments)


def arena(*args: str) -> subprocess.CompletedProcess:
    return cli.arena(*args)  # the read commands in this process: tests/support/cli.py


def test_compare_accepts_h1_for_the_scripted_bidder_stores_its_matches_and_resumes(tmp_path):
    db = tmp_path / "compare.db"
    args = ["compare", "prize-bidder", "random", "-g", "goofspiel", "-o", "cards=5", "--elo1", "200"]
    # a fixed seed: a drawn one can deal a run whose interval's low end is not finite
    args += ["--db", str(db), "--jobs", "2", "--name", "bid-vs-rand", "--seed", "1"]
    first = arena(*args, "--json")
    assert first.returncode == 0, first.stderr
    result = json.loads(first.stdout)
    assert result["verdict"] == "H1" and result["design"] == "head-to-head"
    assert result["llr"] >= result["upper"] and 4 <= result["deals"] <= 40
    assert result["elo_low"] > 0 and result["played_now"] >= 2 * result["deals"]
    assert "deals " in first.stderr and "LLR" in first.stderr  # the running display (plain lines here)

    connection = sqlite3.connect(db)
    done = connection.execute("SELECT COUNT(*) FROM matches WHERE status = 'done'").fetchone()[0]
    connection.close()
    assert done == result["played_now"]
    board = json.loads(arena("leaderboard", "bid-vs-rand", "--db", str(db), "-f", "json", "-m", "mle").stdout)
    assert [row["agent"] for row in board] == ["prize-bidder", "random"] and board[0]["mle"] > 0

    again = arena(*args)  # already decided: nothing more is played, the same verdict is shown
    assert again.returncode == 0, again.stderr
    assert "H1 accepted" in again.stdout and f"{result['deals']} deal(s)" in again.stdout
    assert f"LLR {result['llr']:+.2f}" in again.stdout
    connection = sqlite3.connect(db)
    assert connection.execute("SELECT COUNT(*) FROM matches WHERE status = 'done'").fetchone()[0] == done
    connection.close()

    other = arena(*[a if a != "200" else "150" for a in args])  # same name, other settings
    assert other.returncode == 2 and "pass --new" in other.stderr


@pytest.mark.parametrize(
    "args, message",
    [
        (["random", "random", "-g", "goofspiel"], "NEW and OLD are both 'random'"),
        (["prize-bidder", "random", "-g", "goofspiel", "--elo1", "-5"], "elo1 (-5.0) must be greater"),
        (["prize-bidder", "nobody", "-g", "goofspiel"], "nobody"),
        (["prize-bidder", "random", "-g", "goofspiel", "-o", "cards"], "write it as key=value"),
        (["random", "random", "-g", "goofspiel", "--new-option", "seed"], "--new-option 'seed': write it as"),
    ],
)
def test_compare_refuses_bad_input_with_one_line(tmp_path, args, message):
    result = cli.arena_in_process(
        "compare", *args, "--db", str(tmp_path / "x.db")
    )  # refused before any worker
    assert result.returncode == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


def test_compare_plays_one_agent_against_itself_with_other_options_and_stores_them(tmp_path):
    db = tmp_path / "compare.db"
    args = ["compare", "random", "random", "-g", "goofspiel", "-o", "cards=4", "--new-option", "seed=1"]
    result = arena(
        *args, "--old-option", "seed=2", "--max-deals", "2", "--db", str(db), "--jobs", "1", "--json"
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert (data["new"], data["old"], data["deals"]) == ("random[seed=1]", "random[seed=2]", 2)
    connection = sqlite3.connect(db)
    rows = connection.execute("SELECT spec, entrants FROM matches ORDER BY idx").fetchall()
    connection.close()
    assert len(rows) == 4
    for spec, entrants in rows:
        sent = dict(zip(json.loads(entrants), json.loads(spec)["agent_options"], strict=True))
        assert sent == {"random[seed=1]": {"seed": 1}, "random[seed=2]": {"seed": 2}}


def compare_seeds(db) -> set[int]:
    connection = sqlite3.connect(db)
    try:
        return {seed for (seed,) in connection.execute("SELECT seed FROM matches")}
    finally:
        connection.close()


def test_a_compare_without_seed_deals_from_a_secret_seed_shown_once_it_stops(tmp_path):
    """Every default compare once played base seed 0: the same deals, computable in advance."""
    args = ["compare", "prize-bidder", "random", "-g", "goofspiel", "-o", "cards=4", "--max-deals", "1"]
    args += ["--jobs", "1", "-q"]
    first, second = (arena(*args, "--db", str(tmp_path / f"{n}.db"), "--json") for n in (1, 2))
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    seeds = [json.loads(run.stdout)["seed"] for run in (first, second)]
    assert seeds[0] != seeds[1] and 0 not in seeds
    assert compare_seeds(tmp_path / "1.db").isdisjoint(compare_seeds(tmp_path / "2.db"))
    # the same command resumes the same run from the same seed, and says it
    again = arena(*args, "--db", str(tmp_path / "1.db"))
    assert f"seed: {seeds[0]} (drawn in secret: --seed {seeds[0]} plays the same deals)" in again.stdout
    fixed = arena(*args, "--db", str(tmp_path / "3.db"), "--seed", str(seeds[0]))
    assert f"seed: {seeds[0]}\n" in fixed.stdout
    assert compare_seeds(tmp_path / "3.db") == compare_seeds(tmp_path / "1.db")


def test_a_secret_comparisons_seeds_stay_hidden_until_its_test_decides(tmp_path):
    secret = make_comparison("secret", "goofspiel", "v2", "v1", players=2, secret=True)
    public = make_comparison("public", "goofspiel", "v2", "v1", players=2, seed=7)
    with Store(tmp_path / "hidden.db") as store:
        runs = {c.name: open_run(store, ladder_record(c), []) for c in (secret, public)}
        assert runs["secret"].secret and not runs["public"].secret
        read_back = stored_comparison(store, runs["secret"])
        assert read_back is not None and read_back.seed == runs["secret"].base_seed
        for name, comparison in (("secret", read_back), ("public", public)):
            store.add_matches(runs[name].id, schedule(comparison, 1))
        # matches pending, then none pending yet the test undecided: more deals will come
        assert seeds_hidden(store, runs["secret"]) and not seeds_hidden(store, runs["public"])
        store.db.execute("UPDATE matches SET status = 'aborted'")
        assert seeds_hidden(store, runs["secret"])


@pytest.mark.parametrize(
    "counts, where, bounds",
    [
        ((50, 5, 3, 1, 1), "below elo0 (+0): NEW is clearly worse", "--elo0 -540 --elo1 -440"),
        (
            (1, 1, 3, 5, 50),
            "above elo1 (+10): NEW is better than OLD by more than 10 Elo",
            "--elo0 +440 --elo1 +540",
        ),
        ((10, 2, 0, 0, 0), "below elo0 (+0)", "--elo0 -650 --elo1 -520"),  # no deal won: [-inf, -388]
    ],
)
def test_an_undecided_test_whose_interval_lies_outside_its_bounds_says_so_and_what_to_change(
    counts, where, bounds
):
    # 60 deals, ~90% lost: Elo -436 [-635, -338], yet the test weighing 0 against +10 is undecided
    settings = SprtSettings(elo0=0, elo1=10)
    now = state(counts, settings)
    assert now.verdict is None
    hint = interval_hint(settings, now)
    assert hint is not None and where in hint and bounds in hint and "--new" in hint


def test_a_test_with_every_deal_lost_is_told_to_quote_its_interval_without_bounds_to_try():
    settings = SprtSettings(elo0=0, elo1=10)
    hint = interval_hint(settings, state((12, 0, 0, 0, 0), settings))
    assert hint is not None and hint.startswith("the 95% interval [-inf, -inf] lies wholly below elo0")
    assert "nan" not in hint and "--elo0" not in hint


@pytest.mark.parametrize(
    "counts, elo0, elo1",
    [
        ((10, 10, 10, 10, 10), 0, 10),  # the interval holds both bounds
        ((0, 0, 0, 0, 0), 0, 10),  # no deal yet
        ((50, 5, 3, 1, 1), -600, -300),  # bounds around the data
    ],
)
def test_no_hint_where_the_interval_meets_the_bounds(counts, elo0, elo1):
    settings = SprtSettings(elo0=elo0, elo1=elo1)
    assert interval_hint(settings, state(counts, settings)) is None


def test_compare_prints_the_hint_and_its_page_shows_it(tmp_path):
    pytest.importorskip("starlette", reason="the web extra is not installed")
    from starlette.testclient import TestClient

    from arena.web.app import create_app

    db = tmp_path / "compare.db"
    # a fixed seed: on some drawn ones 8 deals leave the interval reaching +0, and no hint is due
    args = [
        "compare",
        "random",
        "prize-bidder",
        "-g",
        "goofspiel",
        "-o",
        "cards=5",
        "--max-deals",
        "8",
        "--seed",
        "1",
    ]
    shown = arena(*args, "--db", str(db), "--jobs", "1", "-q")
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()  # ... the verdict, its hint, the seed drawn
    assert lines[-3].startswith("undecided after 8 deal(s)"), shown.stdout
    assert lines[-2].startswith("hint: the 95% interval [") and "lies wholly below elo0 (+0)" in lines[-2]
    assert lines[-1].startswith("seed: ")
    data = json.loads(arena(*args, "--db", str(db), "--json").stdout)
    assert data["verdict"] is None and data["hint"] == lines[-2].removeprefix("hint: ")
    client = TestClient(create_app(db))
    page = client.get(f"/ladders/{client.get('/api/ladders').json()[0]['id']}").text
    assert '<p id="hint" class="hint">the 95% interval [' in page

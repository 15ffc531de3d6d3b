"""A living ladder: an edited file plays only what is new; incomparable edits are refused; retiring; versions."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from arena.registry.plugins import discover
from arena.tournament.plan.ladder import parse_ladder
from arena.tournament.plan.runs import open_run
from arena.tournament.plan.schedule import make_schedule
from arena.tournament.run.play import play_ladder
from arena.tournament.store.api import StoreError
from arena.tournament.store.opening import open_store
from arena.tournament.store.sqlite import Store
from tests.arena.tournament.store.test_store import outcome_for
from tests.support.ladder_runs import arena

HEAD = """\
name = "grow"
game = "goofspiel"
matches_per_pairing = {repeats}
seed = 7
[options]
cards = 5
"""
AGENTS = {
    "a": '[[agents]]\nname = "a"\nagent = "random"\noptions = { seed = 1 }\n',
    "b": '[[agents]]\nname = "b"\nagent = "prize-bidder"\n',
    "c": '[[agents]]\nname = "c"\nagent = "random"\noptions = { seed = 3 }\n',
}


def text(names: str, repeats: int = 1, head: str = HEAD) -> str:
    return head.format(repeats=repeats) + "".join(AGENTS[name] for name in names)


def stored(store: Store, run_id: int) -> dict[str, tuple]:
    """Every match of the run by key: id, index, seed, status, seats and record."""
    return {
        m.key: (m.id, m.idx, m.seed, m.status, m.seats, store.record(m.id)) for m in store.matches(run_id)
    }


def test_growing_from_two_to_three_agents_plays_exactly_the_new_matches(tmp_path):
    registry = discover()
    with Store(tmp_path / "t.db") as store:
        first = play_ladder(parse_ladder(text("ab"), registry), store, jobs=1)
        assert first.report.played == 2 and first.counts["done"] == 2
        before = stored(store, first.run.id)

    notes: list[str] = []
    with Store(tmp_path / "t.db") as store:
        grown = play_ladder(parse_ladder(text("abc"), registry), store, jobs=2, notify=notes.append)
        after = stored(store, grown.run.id)
    assert grown.run.id == first.run.id
    assert grown.report.played == 4 and grown.counts == {"pending": 0, "running": 0, "done": 6, "aborted": 0}
    assert {key: after[key] for key in before} == before  # ids, indexes, seeds, seats, records
    new_keys = set(after) - set(before)
    assert new_keys == {"a|c#0/r0", "a|c#0/r1", "b|c#0/r0", "b|c#0/r1"}
    assert sorted(after[key][1] for key in new_keys) == [2, 3, 4, 5]  # numbered after the old ones
    # each deal is the one a fresh run of the grown ladder would deal it
    fresh = {m.key: m.spec.seed for m in make_schedule(parse_ladder(text("abc"), registry))}
    assert {key: row[2] for key, row in after.items()} == fresh
    assert any("growing 'grow': 1 entrant(s) added (c), 4 new match(es)" in line for line in notes)


def test_raising_matches_per_pairing_schedules_only_the_extra_deals(tmp_path):
    registry = discover()
    with Store(tmp_path / "t.db") as store:
        run = open_run(store, parse_ladder(text("abc", repeats=1), registry))
        for match in store.pending(run.id)[:3]:
            store.mark_running(match.id)
            store.record_outcome(match, outcome_for(match, [2, 1]))
        before = stored(store, run.id)
        again = open_run(store, parse_ladder(text("abc", repeats=3), registry))
        after = stored(store, run.id)
    assert again.id == run.id
    assert {key: after[key] for key in before} == before
    assert len(after) == 3 * 2 * 3
    assert {key.split("#")[1].split("/")[0] for key in set(after) - set(before)} == {"1", "2"}


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda t: t.replace("seed = 7", "seed = 8"), "seed was 7 and is now 8"),
        (lambda t: t.replace("cards = 5", "cards = 6"), 'options was {"cards": 5} and is now {"cards": 6}'),
        (
            lambda t: t.replace("[options]", "[clock]\nmove_ms = 500\n[options]"),
            "clock.move_ms was 1000 and is now 500",
        ),
        (
            lambda t: t.replace("seed = 1", "seed = 9"),
            "agent 'a' was 'random' with options {\"seed\": 1} and is now",
        ),
        (lambda t: t.replace("matches_per_pairing = 2", "matches_per_pairing = 1"), "may only be raised"),
    ],
)
def test_an_incomparable_edit_is_refused_with_the_line_naming_it(tmp_path, edit, message):
    registry = discover()
    original = text("ab", repeats=2)
    with Store(tmp_path / "t.db") as store:
        run = open_run(store, parse_ladder(original, registry))
        with pytest.raises(StoreError) as refused:
            open_run(store, parse_ladder(edit(original), registry))
        assert message in str(refused.value)
        assert "pass --new (the old run stays in the database) or give the ladder another name" in str(
            refused.value
        )
        assert len(store.matches(run.id)) == 4  # nothing was added or dropped


def test_a_removed_agent_is_retired_its_played_matches_kept_its_pending_ones_dropped(store_db):
    registry = discover()
    with open_store(store_db) as store:
        run = open_run(store, parse_ladder(text("abc"), registry))
        played = [m for m in store.pending(run.id) if "c" in m.entrants][:1]
        for match in played:
            store.mark_running(match.id)
            store.record_outcome(match, outcome_for(match, [2, 1]))
        open_run(store, parse_ladder(text("ab"), registry))
        left = store.matches(run.id)
        assert [m.key for m in left if "c" in m.entrants] == [played[0].key]  # played: kept
        assert len(left) == 2 + 1
        roster = {entry["name"]: entry["active"] for entry in store.config(run.id)["roster"]}
        assert roster == {"a": True, "b": True, "c": False}
        # entered again: only its missing matches are scheduled, its played one is its own
        open_run(store, parse_ladder(text("abc"), registry))
        assert sorted(m.key for m in store.matches(run.id)) == sorted(
            m.key for m in make_schedule(parse_ladder(text("abc"), registry))
        )


def test_a_new_version_of_a_plugin_agent_is_a_new_entrant_and_the_old_one_is_retired(tmp_path):
    registry = discover()
    bumped = replace(
        registry,
        agents={**registry.agents, "prize-bidder": replace(registry.agents["prize-bidder"], version="2.0")},
    )
    with Store(tmp_path / "t.db") as store:
        run = open_run(store, parse_ladder(text("ab"), registry))
        old = {m.key for m in store.matches(run.id)}
        open_run(store, parse_ladder(text("ab"), bumped))  # the same file: only the plugin changed
        matches = store.matches(run.id)
        roster = {
            entry["name"]: (entry["active"], entry["version"]) for entry in store.config(run.id)["roster"]
        }
    assert roster == {
        "a": (True, registry.agents["random"].version),
        "b": (False, registry.agents["prize-bidder"].version),
        "b@2.0": (True, "2.0"),
    }
    assert {m.key for m in matches} == {"a|b@2.0#0/r0", "a|b@2.0#0/r1"}  # b's unplayed matches dropped
    assert old == {"a|b#0/r0", "a|b#0/r1"}
    assert matches[0].spec.display_names == ("a", "b@2.0")


def test_cli_grows_with_ladder_add_hides_retired_rows_unless_all(tmp_path, store_db):
    ladder = tmp_path / "grow.toml"
    ladder.write_text(text("ab"))
    db = store_db  # a SQLite file, or a PostgreSQL database
    arena("run", str(ladder), "--db", db, "--quiet")
    added = arena("ladder", "add", str(ladder), "c=random", "--db", db)
    assert "added 1 agent(s)" in added.stdout and ladder.read_text().startswith(text("ab"))
    out = arena("run", str(ladder), "--db", db, "--quiet")
    assert "6/6 matches done, 4 played now" in out.stdout and "growing 'grow'" in out.stderr
    bad = arena("ladder", "add", str(ladder), "nobody", check=False)
    assert (
        bad.returncode == 2
        and "unknown agent 'nobody'" in bad.stderr
        and "the file is unchanged" in bad.stderr
    )
    assert "nobody" not in ladder.read_text()

    ladder.write_text(text("ac").replace(AGENTS["c"], '[[agents]]\nname = "c"\nagent = "random"\n'))
    arena("run", str(ladder), "--db", db, "--quiet")
    rows = json.loads(arena("leaderboard", "--db", db, "-f", "json").stdout)
    assert {row["agent"] for row in rows} == {"a", "c"} and [row["rank"] for row in rows] == [1, 2]
    every = json.loads(arena("leaderboard", "--db", db, "-f", "json", "--all").stdout)
    assert {row["agent"] for row in every} == {"a", "b", "c"}
    assert "1 retired (--all shows them)" in arena("leaderboard", "--db", db).stdout.splitlines()[0]


def test_a_solo_ladder_grows_on_the_same_deals(tmp_path):
    registry = discover()
    head = 'name = "solo"\ngame = "zapotec"\nformat = "solo"\nmatches_per_pairing = {repeats}\nseed = 2\n'

    def solo(names: str, repeats: int = 2):
        return parse_ladder(text(names, repeats, head=head).replace("prize-bidder", "greedy"), registry)

    with Store(tmp_path / "t.db") as store:
        run = open_run(store, solo("ab"))
        before = stored(store, run.id)
        open_run(store, solo("abc", repeats=3))
        after = stored(store, run.id)
    assert {key: after[key] for key in before} == before
    seeds = {}
    for key, row in after.items():
        seeds.setdefault(key.split("#")[1], set()).add(row[2])
    assert sorted(seeds) == ["0/r0", "1/r0", "2/r0"] and all(
        len(s) == 1 for s in seeds.values()
    )  # every agent, same deals
    assert len(after) == 3 * 3

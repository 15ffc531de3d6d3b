"""`arena submit` takes a package from received to active (or rejected with one line), and the ladder
grows by it: `arena run` plays only its new matches; a new version starts from its previous
version's rating mean with the uncertainty reset, and the older one retires."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.cli.newbot import render
from arena.cli.newbot import write_package as write_new_bot
from arena.process.sandbox import bwrap_works
from arena.registry.plugins import discover
from arena.submissions.entrants import with_submissions
from arena.submissions.store import SubmissionStore
from arena.tournament.plan.ladder import load_ladder
from arena.tournament.stats.ratings import SeatLine, inherited, leaderboard
from arena.tournament.stats.report import standings
from arena.tournament.store.sqlite import Store
from arena.web import views
from tests.support.bot_packages import submit_package, write_ladder, write_package
from tests.support.cli import arena_in_process

ROOT = Path(__file__).resolve().parents[3]

pytestmark = pytest.mark.skipif(not bwrap_works(), reason="submitted bots run only under bubblewrap")


def test_a_submitted_bot_goes_from_submit_to_a_played_ladder_row(tmp_path):
    ladder = write_ladder(tmp_path)
    package = write_package(tmp_path / "pkg")
    done = arena_in_process(
        "submit", str(package), "--ladder", str(ladder), "--submitter", "ana", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert "pkgbot 1.0 is active" in done.stdout
    for state in ("received", "checked", "built", "validated", "active"):
        assert f"submission 1: {state}" in done.stderr
    listed = arena_in_process("bots", cwd=tmp_path)
    assert "pkgbot 1.0  by ana  active" in listed.stdout
    shown = arena_in_process("bots", "show", "1", cwd=tmp_path)
    assert "validation: goofspiel 2p against itself, seats [0, 1]: clean" in shown.stdout
    played = arena_in_process("run", str(ladder), "-q", "--jobs", "2", cwd=tmp_path)
    assert played.returncode == 0, played.stderr
    table = arena_in_process("leaderboard", "--format", "json", cwd=tmp_path)
    rows = {row["agent"]: row for row in json.loads(table.stdout)}
    assert set(rows) == {"random", "random-b", "pkgbot"} and rows["pkgbot"]["faults"] == 0


def test_a_new_version_inherits_the_mean_and_the_old_one_retires(tmp_path):
    ladder = write_ladder(tmp_path)
    assert submit_package(write_package(tmp_path / "v1"), ladder).state == "active"
    assert arena_in_process("run", str(ladder), "-q", cwd=tmp_path).returncode == 0
    with Store(tmp_path / "tlachtli.db") as store:
        played_before = store.counts(store.runs()[-1].id)["done"]
    second = submit_package(write_package(tmp_path / "v2", version="2.0"), ladder)
    assert second.state == "active"
    records = SubmissionStore(tmp_path / "submissions").all()
    assert [r.state for r in records] == ["retired", "active"]
    done = arena_in_process("run", str(ladder), "-q", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "1 entrant(s) added (pkgbot@2.0), 1 retired (pkgbot), 4 new match(es)" in done.stderr
    with Store(tmp_path / "tlachtli.db") as store:
        run = store.runs()[-1]
        assert store.counts(run.id)["done"] == played_before + 4  # only its new matches
        assert inherited(store.config(run.id)) == {"pkgbot@2.0": "pkgbot"}
        table = {row.agent: row.mu for row in standings(store, run)}
        web = {row["agent"]: row["mu"] for row in views.ladder(store, run.id)["leaderboard"]}
    assert web["pkgbot@2.0"] == pytest.approx(table["pkgbot@2.0"], abs=1e-3)  # the web rates as the CLI


def test_the_inherited_rating_starts_from_the_mean_with_the_uncertainty_reset():
    old = [[SeatLine("a", 5, 1), SeatLine("b", 1, 2)]] * 6
    new = [[SeatLine("a2", 5, 1), SeatLine("b", 1, 2)]]
    plain = {row.agent: row for row in leaderboard(old + new)}
    carried = {row.agent: row for row in leaderboard(old + new, inherits={"a2": "a"})}
    alone = {row.agent: row for row in leaderboard(old)}
    assert plain["a2"].mu < alone["a"].mu  # without the rule it starts at 25
    assert carried["a2"].mu > alone["a"].mu  # from a's mean, and winning again raises it
    assert carried["a2"].sigma > alone["a"].sigma  # its uncertainty was reset, not carried


def test_the_name_rules(tmp_path):
    ladder = write_ladder(tmp_path)
    installed = submit_package(write_package(tmp_path / "a", name="random"), ladder)
    assert installed.state == "rejected" and "installed agent's" in installed.reason
    assert submit_package(write_package(tmp_path / "b"), ladder, submitter="ana").state == "active"
    stolen = submit_package(write_package(tmp_path / "c", version="2.0"), ladder, submitter="eve")
    assert stolen.state == "rejected" and "another submitter's" in stolen.reason
    again = submit_package(write_package(tmp_path / "d"), ladder, submitter="ana")
    assert again.state == "rejected" and "submitted already" in again.reason


def test_operator_limits_per_day_and_active_versions(tmp_path):
    ladder = write_ladder(tmp_path, extra="[submissions]\nper_day = 2\nactive_versions = 2\n")
    for version in ("1", "2"):
        assert submit_package(write_package(tmp_path / version, version=version), ladder).state == "active"
    third = submit_package(write_package(tmp_path / "3", version="3"), ladder)
    assert third.state == "rejected" and "per_day = 2" in third.reason
    grown = with_submissions(load_ladder(ladder, discover()), SubmissionStore(tmp_path / "submissions"))
    names = {entrant.name: entrant.inherits for entrant in grown.entrants}
    assert names == {"random": None, "random-b": None, "pkgbot@1": None, "pkgbot@2": "pkgbot@1"}


def test_an_unknown_submissions_key_is_refused_with_the_nearest_name(tmp_path):
    ladder = write_ladder(tmp_path, extra="[submissions]\nper_dya = 2\n")
    done = arena_in_process("submit", str(tmp_path), "--ladder", str(ladder), cwd=tmp_path)
    assert done.returncode == 2 and "did you mean 'per_day'" in done.stderr


def test_withdraw_takes_it_off_the_ladder_and_only_its_owner_may(tmp_path):
    ladder = write_ladder(tmp_path)
    assert submit_package(write_package(tmp_path / "pkg"), ladder).state == "active"
    refused = arena_in_process("bots", "withdraw", "1", "--submitter", "eve", cwd=tmp_path)
    assert refused.returncode == 2 and "only they may withdraw" in refused.stderr
    assert arena_in_process("bots", "withdraw", "1", "--submitter", "ana", cwd=tmp_path).returncode == 0
    grown = with_submissions(load_ladder(ladder, discover()), SubmissionStore(tmp_path / "submissions"))
    assert [entrant.name for entrant in grown.entrants] == ["random", "random-b"]


def test_a_bot_written_by_new_bot_is_submitted_and_plays_its_ladder_row(tmp_path):
    registry = discover()
    write_new_bot(tmp_path / "fresh", render("fresh-bot", "goofspiel", registry.games["goofspiel"]))
    ladder = write_ladder(tmp_path)
    done = arena_in_process("submit", str(tmp_path / "fresh"), "--ladder", str(ladder), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert arena_in_process("run", str(ladder), "-q", cwd=tmp_path).returncode == 0
    rows = json.loads(arena_in_process("leaderboard", "--format", "json", cwd=tmp_path).stdout)
    assert {row["agent"]: row["matches"] for row in rows}["fresh-bot"] == 4


def test_an_executable_package_in_another_language_is_validated_and_active(tmp_path):
    """A bot that is not Python (here a standard-library script speaking the protocol itself):
    `command = ["./bot"]` runs /bot/bot in its sandbox."""
    package = tmp_path / "exe"
    package.mkdir()
    (package / "bot").write_text((ROOT / "examples" / "bots" / "first_option.py").read_text())
    (package / "bot").chmod(0o755)
    (package / "tlachtli.toml").write_text(
        'name = "exe-bot"\nversion = "1"\ngames = ["goofspiel"]\n[start]\ncommand = ["./bot"]\n'
    )
    record = submit_package(package, write_ladder(tmp_path))
    assert record.state == "active", record.reason

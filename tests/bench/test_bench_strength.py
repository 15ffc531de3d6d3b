"""bench/bench_strength.py: its statistics on hand-computed cases, and paired, parallel deals that replay."""

from __future__ import annotations

import math
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from bench.bench_strength import (
    DealResult,
    Plan,
    flips,
    game_said,
    load_run,
    main,
    mcnemar,
    mean_and_error,
    paired_difference,
    play_all,
    summary,
    wilson,
)
from bench.compare_strength import compare
from bench.rival import extract, rival_ismcts
from tests.support import processes
from tests.support.agent_processes import alive


def test_wilson_interval_matches_hand_computed_values() -> None:
    # 0 of 10: centre = half = (1.96^2 / 20) / (1 + 1.96^2 / 10) = 0.13877
    assert wilson(0, 10) == pytest.approx((0.0, 0.27754), abs=1e-5)
    # 5 of 10: 0.5 -+ 1.96 * sqrt(0.025 + 1.96^2 / 400) / 1.38416 = 0.5 -+ 0.26341
    assert wilson(5, 10) == pytest.approx((0.23659, 0.76341), abs=1e-5)
    # 10 of 10 mirrors 0 of 10; a tie counts half (4.5 of 9 = one half)
    assert wilson(10, 10) == pytest.approx((1 - 0.27754, 1.0), abs=1e-5)
    assert wilson(4.5, 9)[0] == pytest.approx(1 - wilson(4.5, 9)[1])
    assert wilson(0, 0) == (0.0, 1.0)


def test_mean_and_standard_error() -> None:
    # sample variance of 1, 2, 3, 4 is 5/3; standard error sqrt(5/3 / 4)
    mean, error = mean_and_error([1, 2, 3, 4])
    assert mean == 2.5
    assert error == pytest.approx(math.sqrt(5 / 12))
    assert mean_and_error([7.0])[0] == 7.0 and math.isnan(mean_and_error([7.0])[1])
    assert all(math.isnan(x) for x in mean_and_error([]))


def test_paired_difference_compares_deals_both_runs_played() -> None:
    new = {0: [10.0, -2.0], 1: [4.0], 2: [7.0]}  # deal 0: two seatings, mean 4
    old = {0: [0.0, 0.0], 1: [1.0], 3: [5.0]}
    # deals 0 and 1 only: differences 4 and 3
    assert paired_difference(new, old) == pytest.approx((3.5, 0.5, 2))


def test_flips_count_games_each_run_did_better_in() -> None:
    new = {0: [1.0, 0.0], 1: [0.5], 2: [1.0]}  # deal 2: the old run did not play it
    old = {0: [0.0, 0.0], 1: [1.0], 3: [0.0]}
    assert flips(new, old) == (1, 1)  # deal 0's first game won, deal 1's tied where old won


def test_mcnemar_exact_p_matches_hand_computed_values() -> None:
    assert mcnemar(0, 0) == 1.0 and mcnemar(5, 5) == 1.0  # an even split: nothing to see
    # 1 against 9: 2 * (C(10,0) + C(10,1)) / 2^10 = 22 / 1024
    assert mcnemar(1, 9) == pytest.approx(22 / 1024)
    assert mcnemar(9, 1) == mcnemar(1, 9)
    assert mcnemar(0, 6) == pytest.approx(2 / 64)


def test_summary_counts_ties_half_and_errors_over_deals() -> None:
    results = [DealResult(0, [(1.0, 6), (0.5, 0)]), DealResult(1, [(0.0, -4), (1.0, 2)])]
    line = summary("x", results, 4.0)
    # 2.5 of 4; per-deal margins 3 and -1: mean +1.0, s.e. 2.0
    assert "2.5/4 = 62%" in line
    assert "mean margin +1.0 (s.e. 2.0)" in line
    assert "1.0 s/game" in line


def test_deals_replay_and_workers_change_nothing() -> None:
    """A deal is a seed: the same deals in one process or in two give the same games."""
    # greedy's one-step look-ahead: what is checked is the bench's dealing, not greedy's search
    plan = Plan("greedy-random", "zapotec", {"plies": 1}, {}, 160)
    alone = play_all(plan, range(3, 5), workers=1)
    spread = play_all(plan, range(3, 5), workers=2)
    assert [(d.deal, d.games) for d in alone] == [(d.deal, d.games) for d in spread]
    assert [len(d.games) for d in alone] == [2, 2]  # both seatings


def test_ismcts_meets_a_rival_ismcts_on_its_budget_in_both_seatings() -> None:
    """ismcts-ismcts plays both seatings of a deal against a rival ismcts on the rival's own
    budget; every agent is seeded, so the deal replays."""
    plan = Plan("ismcts-ismcts", "zapotec", {"iterations": 4}, {}, 160, {"iterations": 2})
    [deal] = play_all(plan, range(5, 6), workers=1)
    assert len(deal.games) == 2  # both seatings
    assert deal.mine[1] > 0 and deal.theirs[1] > 0  # both sides decided
    same = Plan("ismcts-ismcts", "zapotec", {"iterations": 4}, {}, 160, {"iterations": 2})
    assert play_all(same, range(5, 6), workers=1)[0].games == deal.games  # seeded: replays
    other = Plan("ismcts-ismcts", "zapotec", {"iterations": 4}, {}, 160, {"iterations": 30})
    assert play_all(other, range(5, 6), workers=1)[0].games != deal.games  # the rival's budget counts


def test_save_and_paired_with(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    saved = tmp_path / "run.json"
    args = ["--game", "zapotec", "--pairing", "greedy-random", "--games", "1", "--first-deal", "7"]
    args += ["--greedy-option", "plies=1"]  # the bench's pairing is checked, not greedy's search
    main([*args, "--save", str(saved)])
    main([*args, "--paired-with", str(saved)])
    out = capsys.readouterr().out
    assert "+0.0 VP a deal (s.e. nan) over 1 deals" in out


def test_a_stopped_run_keeps_the_deals_it_saved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """--save is rewritten as each deal ends: a run stopped in its second deal (Ctrl-C, a kill)
    leaves a file with its first, which --paired-with reads, and a log with its CPU a decision."""
    import bench.bench_strength as bench

    played = bench.play_deal

    def stopped_after_one(plan: Plan, deal: int) -> DealResult:
        if deal > 7:
            raise KeyboardInterrupt
        return played(plan, deal)

    monkeypatch.setattr(bench, "play_deal", stopped_after_one)
    saved = tmp_path / "run.json"
    args = ["--game", "zapotec", "--pairing", "greedy-random", "--games", "3", "--first-deal", "7"]
    with pytest.raises(KeyboardInterrupt):
        main([*args, "--greedy-option", "plies=1", "--save", str(saved)])
    assert [d.deal for d in load_run(saved)[1]] == [7]
    [line] = [line for line in capsys.readouterr().err.splitlines() if "deal 7:" in line]
    assert re.search(r", \d+ ms/decision so far$", line)  # the bot's CPU a decision, read as it went


GREEDY_RANDOM = ["--game", "zapotec", "--pairing", "greedy-random", "--greedy-option", "plies=1"]


def test_a_stopped_run_started_again_plays_only_the_deals_it_had_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same command with the same --save file resumes: the deals saved are kept, not replayed,
    and the summary covers them all; a later range grows the same file."""
    import bench.bench_strength as bench

    played: list[int] = []
    real = bench.play_deal

    def counted(plan: Plan, deal: int) -> DealResult:
        played.append(deal)
        return real(plan, deal)

    monkeypatch.setattr(bench, "play_deal", counted)
    saved = tmp_path / "run.json"
    main([*GREEDY_RANDOM, "--games", "1", "--first-deal", "7", "--save", str(saved)])
    first = load_run(saved)[1]
    main([*GREEDY_RANDOM, "--games", "2", "--first-deal", "7", "--save", str(saved)])
    assert played == [7, 8]  # deal 7 was not played again
    out = capsys.readouterr()
    assert "1 of these deals already played" in out.err
    assert re.search(r"deals 7-8: [\d.]+/4 = ", out.out)  # both deals' games, kept and played
    kept = load_run(saved)[1]
    assert [d.deal for d in kept] == [7, 8] and kept[0] == first[0]  # CPU figures kept too
    assert kept[1].mine[1] > 0
    main([*GREEDY_RANDOM, "--games", "1", "--first-deal", "10", "--save", str(saved)])
    assert [d.deal for d in load_run(saved)[1]] == [7, 8, 10]  # another range: the file grows


def test_a_save_file_of_another_run_is_a_one_line_error(tmp_path: Path) -> None:
    saved = tmp_path / "run.json"
    main([*GREEDY_RANDOM, "--games", "1", "--first-deal", "7", "--save", str(saved)])
    before = saved.read_text()
    with pytest.raises(SystemExit) as stopped:
        main([*GREEDY_RANDOM, "--greedy-option", "plies=2", "--games", "1", "--save", str(saved)])
    assert str(stopped.value).startswith(f"error: --save {saved} holds another run (its bot_options differ)")
    assert saved.read_text() == before  # nothing lost


def test_compare_two_saved_runs_on_the_deals_both_played(tmp_path: Path) -> None:
    new, old = tmp_path / "new.json", tmp_path / "old.json"
    main([*GREEDY_RANDOM, "--games", "2", "--first-deal", "7", "--save", str(new)])
    main([*GREEDY_RANDOM[:-1], "plies=2", "--games", "1", "--first-deal", "8", "--save", str(old)])
    report = compare(new, old)
    assert report.startswith("on the 1 deals both played (deal 8):")
    assert f"{new} (zapotec, greedy-random: clock=False, plies=1): " in report and "/2 = " in report
    assert re.search(r"paired \(the first less the second\): [+-]\d+\.\d VP a deal", report)
    assert "games flipped" in report and "McNemar p" in report
    other = tmp_path / "other.json"
    main([*GREEDY_RANDOM, "--games", "1", "--first-deal", "20", "--save", str(other)])
    with pytest.raises(SystemExit, match="share no deal"):
        compare(new, other)


def test_paired_with_a_bad_file_is_a_one_line_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("not json")
    with pytest.raises(SystemExit) as stopped:
        main(["--game", "zapotec", "--pairing", "greedy-random", "--paired-with", str(bad)])
    assert str(stopped.value).startswith("error: --paired-with")


def test_the_value_agent_plays_the_automaton_on_deals_that_replay() -> None:
    plan = Plan("value-automaton", "zapotec", {"look": "step"}, {}, 160)
    first = play_all(plan, range(2), workers=1)
    assert [(d.deal, d.games) for d in first] == [
        (d.deal, d.games) for d in play_all(plan, range(2), workers=1)
    ]
    assert [len(d.games) for d in first] == [1, 1] and first[0].mine[1] > 0  # its decisions were counted


def test_a_value_option_it_does_not_declare_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["--pairing", "value-automaton", "--value-option", "plys=2"])
    assert stopped.value.code != 0
    assert "plys" in capsys.readouterr().err


def test_a_malformed_option_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["--greedy-option", "samples"])
    assert stopped.value.code == 2
    assert capsys.readouterr().err.startswith("error: --greedy-option 'samples': write it as key=value")


def test_the_script_measures_its_own_checkout(tmp_path: Path) -> None:
    # A `plugins` package ahead of the checkout on the path (as another checkout's editable install
    # is, for a git worktree sharing its .venv) must not be the code the script measures.
    decoy = tmp_path / "plugins"
    decoy.mkdir()
    (decoy / "__init__.py").write_text("raise ImportError('the decoy plugins package was imported')\n")
    script = Path(__file__).resolve().parents[2] / "bench" / "bench_strength.py"
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, str(script), "--help"], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "--pairing" in done.stdout


@pytest.fixture
def old_bots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A git repository whose one commit holds this checkout's plugins/bots with a Zapotec evaluator
    of its own (every seat level, always); the rival package is dropped again afterwards."""
    repo = tmp_path / "repo"
    bots = repo / "plugins" / "bots"
    bots.mkdir(parents=True)
    for source in (Path(__file__).resolve().parents[2] / "plugins" / "bots").glob("*.py"):
        (bots / source.name).write_text(source.read_text())
    with (bots / "zapotec_eval.py").open("a") as module:
        module.write("\n\ndef evaluate(state):\n    return [0.0, 0.0]  # the test's games have two seats\n")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "old bots"], check=True)
    commit = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True)
    monkeypatch.setattr(sys, "path", list(sys.path))
    yield repo, commit.stdout.strip()
    rival_ismcts.cache_clear()
    for name in [m for m in sys.modules if m.split(".")[0] == "rival_bots"]:
        del sys.modules[name]


def test_the_rival_is_the_old_commits_ismcts_with_its_own_evaluators(tmp_path: Path, old_bots) -> None:
    repo, commit = old_bots
    folder = str(extract(repo, commit, tmp_path / "rival"))
    rival = rival_ismcts(folder)
    assert Path(sys.modules[rival.__module__].__file__ or "").parent == tmp_path / "rival" / "rival_bots"
    spec = sys.modules["rival_bots.evaluators"].find_evaluator("zapotec")
    assert spec.evaluate.__module__ == "rival_bots.zapotec_eval"  # not today's, registered by plugins
    old = Plan("ismcts-ismcts", "zapotec", {"iterations": 4}, {}, 160, {"iterations": 8}, commit, folder)
    here = Plan("ismcts-ismcts", "zapotec", {"iterations": 4}, {}, 160, {"iterations": 8})
    # the same bot but for its evaluator (level everywhere): its cut-offs decide nothing, its games differ
    games = [[deal.games for deal in play_all(plan, range(3), workers=1)] for plan in (old, here)]
    assert games[0] != games[1]


def test_a_commit_not_in_the_history_is_a_one_line_error(tmp_path: Path, old_bots) -> None:
    repo, _ = old_bots
    with pytest.raises(SystemExit) as stopped:
        extract(repo, "0" * 40, tmp_path / "rival")
    message = str(stopped.value)
    assert message.startswith("error: --rival-commit: git ") and "\n" not in message


def test_no_git_installed_is_a_one_line_error(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no git on it
    with pytest.raises(SystemExit) as stopped:
        extract(tmp_path, "HEAD", tmp_path / "rival")
    message = str(stopped.value)
    assert message.startswith("error: --rival-commit needs git") and "\n" not in message


def test_progress_says_a_game_decided_on_the_tie_break_so():
    assert [game_said(1, 17), game_said(0, -3), game_said(0.5, 0)] == ["won by +17", "lost by -3", "tied"]
    assert [game_said(1, 0), game_said(0, 0)] == ["won on the tie-break", "lost on the tie-break"]


@pytest.mark.parametrize("workers", [1, 2])
def test_a_run_stopped_with_sigterm_removes_its_folder_and_its_workers(tmp_path: Path, workers: int) -> None:
    """A background run ignores Ctrl-C, so it is stopped with SIGTERM: that must unwind as Ctrl-C
    does (the rival's temporary folder removed, every worker ended, the deals saved kept), with a
    one-line message, not leave a folder per stopped run in /tmp and workers playing on."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    saved = tmp_path / "run.json"
    script = Path(__file__).resolve().parents[2] / "bench" / "bench_strength.py"
    args = [*GREEDY_RANDOM, "--games", "100000", "--workers", str(workers), "--save", str(saved)]
    run = subprocess.Popen(
        [sys.executable, str(script), *args],
        env={**os.environ, "TMPDIR": str(temp)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not saved.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert saved.exists(), "no deal was saved in 60 s"
        assert [p.name for p in temp.iterdir() if p.name.startswith("tlachtli-rival-")]
        workers_seen = [child.pid for child in psutil.Process(run.pid).children()]
        assert len(workers_seen) == (workers if workers > 1 else 0)  # the pool's processes
        run.send_signal(signal.SIGTERM)
        _, err = run.communicate(timeout=60)
    finally:
        run.kill()
        run.wait()
    assert run.returncode == 130
    assert err.strip().splitlines()[-1].startswith("stopped: a --save file keeps the deals that ended")
    assert "Traceback" not in err
    assert not [p.name for p in temp.iterdir() if p.name.startswith("tlachtli-rival-")]
    still = processes.eventually_empty(lambda: [pid for pid in workers_seen if alive(pid)])
    assert not still, f"a worker went on after the run was stopped: {processes.describe(still)}"
    assert load_run(saved)[1]  # the deals that ended are kept

"""`arena play`, `arena replay` and `arena check` as a user runs them."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from tests.support.agent_processes import FIRST_OPTION, processes_marked

runner = CliRunner()


def arena(*args: str):
    return runner.invoke(app, list(args))


def test_play_json_has_game_seed_and_seats(no_leftovers):  # noqa: F811
    out = arena(
        "play", "--game", "goofspiel", "--agent", "random", "--agent", FIRST_OPTION, "--seed", "4", "--json"
    )
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["game"] == "goofspiel" and data["seed"] == 4
    assert [s["agent"] for s in data["seats"]] == ["random", FIRST_OPTION]
    assert {tuple(sorted(s)) for s in data["seats"]} == {("agent", "fault", "rank", "score", "seat")}
    assert all(s["fault"] is None for s in data["seats"])


def test_play_fills_seats_and_prints_the_fault_table(no_leftovers):  # noqa: F811
    out = arena("play", "-g", "goofspiel", "-a", "fault-wrong-id", "-a", "random", "--players", "3", "--seed", "2",
                "--option", "cards=4")  # fmt: skip
    assert out.exit_code == 0, out.output
    lines = out.stdout.splitlines()
    assert lines[1].split() == ["seat", "agent", "score", "rank", "fault"]
    assert lines[3].split()[1] == "fault-wrong-id" and lines[3].split()[-1] == "wrong-id"
    assert [line.split()[1] for line in lines[4:6]] == ["random", "random"]
    assert "seat 0 forfeited (wrong-id, move)" in out.stdout


def test_agent_options_reach_each_seats_agent_and_the_record(tmp_path, no_leftovers):  # noqa: F811
    def moves(*agent_options: str) -> tuple[list, list]:
        path = tmp_path / "match.json"
        # seat 0 an executable (it declares no options: any reach it, as TOML values where they are
        # ones); seat 1 `random`, which declares its seed
        args = [
            "play",
            "-g",
            "goofspiel",
            "-a",
            FIRST_OPTION,
            "-a",
            "random",
            "--seed",
            "3",
            "--record",
            str(path),
        ]
        out = arena(*args, *[word for option in agent_options for word in ("-O", option)])
        assert out.exit_code == 0, out.output
        record = json.loads(path.read_text())
        return [agent["options"] for agent in record["agents"]], [
            (move["seat"], move["choice"]) for move in record["moves"]
        ]

    options, seeded = moves("1:seed=7", "0:label=two words", "0:fast=true")
    assert options == [{"label": "two words", "fast": True}, {"seed": 7}]  # TOML values where they are ones
    assert moves("1:seed=7")[1] == seeded  # the seed reached seat 1's agent: same seed, same moves ...
    assert moves("1:seed=8")[1] != seeded  # ... another seed, other moves


def test_record_replays_step_by_step_and_final(tmp_path, no_leftovers):  # noqa: F811
    path = tmp_path / "match.json"
    out = arena(
        "play", "-g", "goofspiel", "-a", "fault-crash", "-a", "random", "--seed", "3", "--record", str(path)
    )
    assert out.exit_code == 0, out.output
    record = json.loads(path.read_text())
    assert record["faults"][0]["fault"] == "crash" and record["options"] == {}
    steps = arena("replay", str(path))
    assert steps.exit_code == 0, steps.output
    assert steps.stdout.count("--- move") == 10 and "(random policy: forfeited seat)" in steps.stdout
    assert "replay OK: 10 moves" in steps.stdout
    final = arena("replay", "--final", str(path))
    assert "--- move" not in final.stdout and final.stdout.startswith("round 5 scores")
    record["result"]["scores"] = [0, 0]
    path.write_text(json.dumps(record))
    bad = arena("replay", str(path))
    assert bad.exit_code == 1 and "does not match the record" in bad.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["--game", "chess", "-a", "random", "-a", "random"], "unknown game 'chess'"),
        (["--game", "goofspiel", "-a", "nobody", "-a", "random"], "unknown agent 'nobody'"),
        (["--game", "goofspiel", "-a", "random"], "takes 2-4 players"),
        (["--game", "goofspiel", "-a", "random", "-a", "random", "--players", "5"], "takes 2-4 players"),
        (["--game", "goofspiel", "-a", "random", "-a", "random", "-o", "cards=0"], "'cards' must be within"),
        (["--game", "goofspiel", "-a", "random", "-a", "random", "-o", "cards"], "key=value"),
        (["--game", "goofspiel", "-a", "random", "-a", "random", "--automaton", "x"], "no automaton 'x'"),
        (
            ["--game", "goofspiel", "-a", "random", "-a", "random", "-O", "seed=1"],
            "write it as SEAT:key=value",
        ),
        (
            ["--game", "goofspiel", "-a", "random", "-a", "random", "-O", "0:seed"],
            "write it as SEAT:key=value",
        ),
        (["--game", "goofspiel", "-a", "random", "-a", "random", "-O", "2:seed=1"], "the seat must be 0-1"),
    ],
)
def test_bad_matches_fail_in_one_line_with_status_2(args, message):
    out = arena("play", *args)
    assert out.exit_code == 2
    assert message in out.output and len(out.output.strip().splitlines()) == 1


def test_replay_rejects_a_file_that_is_not_a_record(tmp_path):
    path = tmp_path / "x.json"
    path.write_text("{}")
    out = arena("replay", str(path))
    assert out.exit_code == 2 and "not a Tlachtli match record" in out.output


def test_check_passes_a_good_external_bot(no_leftovers):  # noqa: F811
    out = arena("check", FIRST_OPTION, "--game", "goofspiel")
    assert out.exit_code == 0, out.output
    assert "matches played: 9" in out.stdout and "per move: median" in out.stdout
    assert out.stdout.strip().splitlines()[-1].startswith("PASS")


def test_check_fails_a_crashing_bot_and_says_why(no_leftovers):  # noqa: F811
    out = arena("check", "fault-crash", "--game", "goofspiel")
    assert out.exit_code == 1
    assert "FORFEIT goofspiel 2p seat 0: crash: exited with status 3" in out.stdout
    assert "stderr| crashing on purpose" in out.stdout
    assert out.stdout.strip().splitlines()[-1].startswith("FAIL")


def both_agents_run(mark: str) -> bool:
    """Whether the random agent (arena.wire.host) and the fault-sleep bot (faulty_bot.py) have started."""
    lines = []
    for pid in processes_marked(mark):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                line = handle.read().replace(b"\0", b" ")
        except OSError:
            continue
        if not line.startswith((b"bwrap", b"setpriv")):  # the sandbox's own, not yet the program
            lines.append(line)
    return any(b"arena.wire.host random" in line for line in lines) and any(
        b"faulty_bot.py" in line for line in lines
    )


@pytest.mark.parametrize(
    "signum, status, said", [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "SIGTERM")]
)
def test_ctrl_c_or_sigterm_stops_the_match_and_every_agent(signum, status, said, no_leftovers, popen):  # noqa: F811
    mark = os.environ["TLACHTLI_TEST_MARK"]
    argv = [sys.executable, "-m", "arena.cli", "play", "-g", "goofspiel", "-a", "random", "-a", "fault-sleep",
            "--move-ms", "600000"]  # fmt: skip
    proc = popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # Wait until both agents' programs run (not just their sandboxes, which carry the mark
    # too), then interrupt.
    deadline = time.monotonic() + 60
    while not both_agents_run(mark) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)  # let the sleeping agent reach its second decision
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == status and said in err and len(err.strip().splitlines()) == 1

"""bench/bench_endgame.py: its forked arms are the whole games two runs would play, seeded games
with the exact search replay, and its report on hand-made rows."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from arena.match.inprocess import play_in_process
from bench.bench_endgame import play_deal, report
from engine.zapotec import GAME as ZAPOTEC
from plugins.bots.ismcts import ISMCTSAgent

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_endgame.py"
SOLO = {"automaton": "cocijobot", "difficulty": "normal"}


def solo_game(options: dict, deal: int) -> tuple[list[int], ISMCTSAgent]:
    """A whole game of ismcts against Cocijobot, dealt as the bench deals ``deal``."""
    agent = ISMCTSAgent()
    state = play_in_process(
        ZAPOTEC, [agent], 1000 + deal, options=SOLO, agent_options=[{**options, "seed": deal}]
    )
    return list(state.result().scores), agent


def test_a_seeded_game_with_the_exact_search_replays_and_the_forked_arms_are_whole_games():
    options = {"iterations": 20, "endgame": True, "endgame_nodes": 2000}
    first, agent = solo_game(options, 4)
    again, _ = solo_game(options, 4)
    assert first == again and agent.solved > 0
    off, _ = solo_game({"iterations": 20}, 4)
    row = play_deal("zapotec", 4, {"iterations": 20, "endgame_nodes": 2000})
    assert row["on"][1] == first[0] - first[1] and row["off"][1] == off[0] - off[1]
    assert row["solved"] == agent.solved


def test_report_pairs_the_arms_deal_by_deal():
    row = {"solved": 2, "on_ms": 30.0, "off_ms": 10.0, "on_max_ms": 50.0}
    rows = [
        {**row, "deal": 0, "on": [1.0, 4], "off": [0.0, -1]},  # flipped to a win, +5
        {**row, "deal": 1, "on": [1.0, 3], "off": [1.0, 3]},  # unchanged
    ]
    text = report(rows)
    assert "endgame on : won 100.0%" in text and "endgame off: won 50.0%" in text
    assert "on - off: +2.50 (2.50); games changed 1, flipped 1 to the better, 0 to the worse" in text
    assert "on 30 (slowest 50), off 10; decisions solved exactly a game 2.0" in text


def test_an_undeclared_option_is_one_error_line():
    done = subprocess.run(
        [sys.executable, str(BENCH), "--game", "zapotec", "--ismcts-option", "endgame_nodes=0"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2 and done.stdout == ""
    assert (
        done.stderr.startswith("error: ") and done.stderr.count("\n") == 1 and "endgame_nodes" in done.stderr
    )

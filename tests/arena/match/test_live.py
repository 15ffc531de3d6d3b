"""Live records (arena/match/live.py): the referee writes each step as it is played, batched, and a
reader gets a partial record that grows into the finished one."""

from __future__ import annotations

import os
import time

import pytest

from arena.match import live as live_module
from arena.match.live import LiveWriter, read_live
from arena.match.referee import run_match
from arena.match.spec import MatchSpec


@pytest.fixture(autouse=True)
def _info_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TLACHTLI_PLUGINS", os.environ["TLACHTLI_PLUGINS"] + ",tests.support.info_agents")


def test_the_live_file_holds_the_record_as_played(tmp_path, monkeypatch):
    flushes = []
    original = LiveWriter.flush

    def counted(self: LiveWriter) -> None:
        flushes.append(len(self._lines))
        original(self)

    monkeypatch.setattr(LiveWriter, "flush", counted)
    path = tmp_path / "match.jsonl"
    spec = MatchSpec(game="zapotec", agents=("talker", "random"), seed=2, agent_options=({}, {"seed": 3}))
    started = time.monotonic()
    record = run_match(spec, live=str(path)).record
    seconds = time.monotonic() - started
    found = read_live(path)
    assert found is not None and found["live"] is True
    assert found["moves"] == record["moves"] and found["faults"] == record["faults"] == []
    for key in ("game", "game_version", "seed", "players", "options", "spec", "clock"):
        assert found[key] == record[key]
    assert [agent["name"] for agent in found["agents"]] == [agent["name"] for agent in record["agents"]]
    assert record["moves"][0]["info"].startswith("thinking #1")
    # Batched: about one write per FLUSH_S of play (plus the header and the last), not one per move.
    written = [count for count in flushes if count]
    assert sum(written) == len(record["moves"]) + 1
    assert len(written) <= 3 + seconds / live_module.FLUSH_S
    assert len(record["moves"]) > 3 * len(written) or seconds > 1


def test_a_partial_or_missing_live_file_reads_safely(tmp_path):
    assert read_live(tmp_path / "none.jsonl") is None
    path = tmp_path / "m.jsonl"
    writer = LiveWriter(path)
    assert read_live(path) is None  # nothing whole yet
    writer.start({"game": "zapotec", "seed": 1, "players": 2})
    writer.move({"seat": 0, "choice": 1, "ms": 1.0, "by": "agent"})
    writer.fault({"seat": 1, "fault": "timeout", "detail": "slow", "phase": "move", "move": 1})
    writer.close()
    with open(path, "a") as handle:
        handle.write('{"kind":"move","seat":0,"cho')  # a line still being written
    found = read_live(path)
    assert found is not None
    assert found["moves"] == [{"seat": 0, "choice": 1, "ms": 1.0, "by": "agent"}]
    assert found["faults"][0]["fault"] == "timeout" and found["result"]["scores"] == []
    assert oct(path.stat().st_mode & 0o777) == "0o600"


def test_a_live_file_that_cannot_be_written_does_not_stop_the_match(tmp_path):
    spec = MatchSpec(game="zapotec", agents=("random", "random"), seed=2)
    outcome = run_match(spec, live=str(tmp_path / "no" / "such" / "folder.jsonl"))
    assert outcome.record["result"]["scores"]


def test_frames_extended_move_by_move_equal_the_finished_replay():
    from arena.web.replay import extend_frames, replay_frames
    from engine.teotihuacan import GAME

    record = run_match(MatchSpec(game="teotihuacan", agents=("random", "random"), seed=3)).record
    finished, error = replay_frames(record, GAME, ("a", "b"))
    assert error is None
    frames: list = []
    for count in (0, 1, 50, len(record["moves"])):  # as a follower's polls see it grow
        assert extend_frames(frames, dict(record, moves=record["moves"][:count]), GAME, ("a", "b")) is None
        assert len(frames) == count + 1
    assert [frame.info for frame in frames] == [frame.info for frame in finished]
    phases = list(dict.fromkeys(frame.info["phase"] for frame in frames))
    assert phases == ["until Eclipse 1", "until Eclipse 2", "until Eclipse 3"]
    # A move the engine refuses stops the extension with the reason.
    seat = record["moves"][3]["seat"]
    bad = dict(record, moves=record["moves"][:3] + [{"seat": seat, "choice": 999, "ms": 1, "by": "agent"}])
    cut: list = []
    assert "out of range" in (extend_frames(cut, bad, GAME) or "") and len(cut) == 4

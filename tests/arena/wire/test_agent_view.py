"""The typed view of the protocol messages a Python bot receives (arena.wire.agent.DecisionView, Hello)."""

from __future__ import annotations

import dataclasses

import pytest

from arena.match.inprocess import decide_message, hello_message, play_in_process
from arena.wire.agent import Agent, DecisionView, Hello
from examples.games.goofspiel.game import GAME as GOOFSPIEL
from plugins.random_agent import RandomAgent


def test_decision_reads_a_decide_message():
    state = GOOFSPIEL.setup(2, 7, {"cards": 3})
    message = decide_message(state, 1, 5)
    decision = DecisionView.from_wire(message)
    assert (decision.id, decision.kind) == (5, "bid")
    assert decision.prompt == message["prompt"]
    assert [o.label for o in decision.options] == ["bid 1", "bid 2", "bid 3"]
    assert [o.index for o in decision.options] == [0, 1, 2]
    assert decision.options[2]["card"] == 3 and decision.options[2].get("missing", "-") == "-"
    assert decision.option("bid 2").index == 1
    assert (decision.clock.move_ms, decision.clock.bank_ms_left) == (1000, 60000)
    assert decision.observation["hand"] == [1, 2, 3] and decision.observation["seat"] == 1
    with pytest.raises(KeyError, match="offered: \\['bid 1', 'bid 2', 'bid 3'\\]"):
        decision.option("bid 9")


def test_the_view_is_read_only():
    decision = DecisionView.from_wire(decide_message(GOOFSPIEL.setup(2, 1, {"cards": 2}), 0, 1))
    with pytest.raises(dataclasses.FrozenInstanceError):
        decision.kind = "other"  # type: ignore[misc]
    with pytest.raises(TypeError):
        decision.options[0].fields["card"] = 9  # type: ignore[index]
    with pytest.raises(TypeError):
        decision.observation["seat"] = 3  # type: ignore[index]


def test_hello_reads_a_hello_message():
    hello = Hello.from_wire(hello_message(GOOFSPIEL, 1, 3, {"cards": 4}, {"seed": 9}))
    assert (hello.game, hello.seat, hello.players) == ("goofspiel", 1, 3)
    assert hello.options["cards"] == 4 and hello.agent_options["seed"] == 9
    assert (hello.clock_move_ms, hello.clock_bank_ms) == (1000, 60000)


class HighestBid(Agent):
    """Written against the typed view: always bids its highest card."""

    def act(self, observation, decision):
        view = DecisionView.from_wire(decision)
        return max(view.options, key=lambda option: option["card"]).index


def test_a_bot_written_with_the_view_plays_a_whole_game():
    state = play_in_process(GOOFSPIEL, [HighestBid(), RandomAgent()], seed=3, options={"cards": 5})
    assert state.terminal()
    bids = [event["bids"][0] for event in state.log() if "bids" in event]
    assert bids == [5, 4, 3, 2, 1]

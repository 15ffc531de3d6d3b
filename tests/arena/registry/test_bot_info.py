"""A bot's ``info`` text (docs/protocol.md): bounded, escaped, stored per move; the bundled bots fill it."""

from __future__ import annotations

import os

import pytest

from arena.match.inprocess import decide_message, hello_message
from arena.match.referee import run_match
from arena.match.spec import MatchSpec
from arena.wire.agent import Agent, Answer, split_answer
from arena.wire.protocol import (
    AGENT_MESSAGES,
    INFO_CUT,
    INFO_LIMIT,
    ProtocolError,
    act_message,
    check_message,
    check_reply,
    reply_info,
)
from engine.zapotec import GAME as ZAPOTEC
from plugins.bots.greedy import GreedyAgent
from plugins.bots.ismcts import ISMCTSAgent
from tests.support.info_agents import HOSTILE_INFO


@pytest.fixture(autouse=True)
def _info_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TLACHTLI_PLUGINS", os.environ["TLACHTLI_PLUGINS"] + ",tests.support.info_agents")


def test_an_act_may_carry_an_info_text_and_nothing_else_new():
    assert check_message({"type": "act", "id": 1, "choice": 0, "info": "eval +3"}, AGENT_MESSAGES) == "act"
    assert check_reply({"type": "act", "id": 1, "choice": 0}, 1, 2) == 0  # info stays optional
    with pytest.raises(ProtocolError, match="'info' must be str") as error:
        check_reply({"type": "act", "id": 1, "choice": 0, "info": 5}, 1, 2)
    assert error.value.kind == "bad-frame"
    with pytest.raises(ProtocolError, match="unknown field 'why'"):
        check_reply({"type": "act", "id": 1, "choice": 0, "why": "x"}, 1, 2)
    with pytest.raises(ProtocolError, match="unknown field 'info'"):  # only an act carries one
        check_message({"type": "ready", "name": "a", "version": "1", "info": "x"}, AGENT_MESSAGES)


def test_info_is_cut_to_its_limit_and_escaped():
    assert reply_info({"info": ""}) is None and reply_info({}) is None
    assert reply_info({"info": "visits 40/100"}) == "visits 40/100"
    long = reply_info({"info": "é" * 1_000_000})
    assert long == "é" * INFO_LIMIT + INFO_CUT
    escaped = reply_info({"info": HOSTILE_INFO})
    assert "\x1b" not in escaped and "\u202e" not in escaped and "\x07" not in escaped
    assert "\\x1b[2J" in escaped and "\\u202e" in escaped
    # Escapes lengthen a text: the kept text is bounded all the same.
    assert len(reply_info({"info": "\x1b" * INFO_LIMIT})) == INFO_LIMIT + len(INFO_CUT)


def test_an_agent_answers_with_info_by_explain_or_answer():
    class Explaining(Agent):
        def act(self, observation, decision):
            self.explain("because")
            return 1

    agent = Explaining()
    assert split_answer(agent, agent.act({}, {})) == (1, "because")
    assert split_answer(agent, 1) == (1, None)  # taken once: the next answer has none
    assert split_answer(agent, Answer(2, "why not")) == (2, "why not")
    assert split_answer(object(), 3) == (3, None)  # a bot that is no Agent subclass
    assert act_message(4, *split_answer(agent, Answer(0, "x"))) == {
        "type": "act",
        "id": 4,
        "choice": 0,
        "info": "x",
    }
    assert "info" not in act_message(4, 0)


@pytest.mark.parametrize("mode", ["huge", "hostile", "answer"])
def test_hostile_info_breaks_nothing_and_is_stored_safe(mode):
    spec = MatchSpec(
        game="zapotec", agents=("talker", "random"), seed=4, agent_options=({"info": mode}, {"seed": 1})
    )
    record = run_match(spec).record
    assert record["faults"] == []  # a 1 MB text under the frame limit is cut, not a fault
    infos = [move.get("info") for move in record["moves"] if move["seat"] == 0]
    assert infos and all(isinstance(info, str) for info in infos)
    if mode == "huge":
        assert {info for info in infos} == {"x" * INFO_LIMIT + INFO_CUT}
    elif mode == "hostile":
        assert all("\x1b" not in info and "<img" in info and "\\x1b[2J" in info for info in infos)
    else:
        assert infos[:2] == ["answered #1", "answered #2"]
    assert all("info" not in move for move in record["moves"] if move["seat"] == 1)  # random says nothing


@pytest.mark.parametrize("bot, options", [(GreedyAgent, {}), (ISMCTSAgent, {"iterations": 30, "seed": 1})])
def test_bundled_bots_explain_their_choices(bot, options):
    state = ZAPOTEC.setup(2, 7, {})
    agent = bot()
    agent.setup(hello_message(ZAPOTEC, 0, 2, {}, options))
    explained = []
    for step in range(1, 40):
        if state.to_act() != (0,) and state.to_act():
            state.apply(state.to_act()[0], 0)
            continue
        message = decide_message(state, 0, step)
        choice, info = split_answer(agent, agent.act(message["obs"], message))
        if len(message["options"]) > 1:
            explained.append(info)
        state.apply(0, choice)
    assert explained and all(info for info in explained)
    word = "value" if bot is GreedyAgent else "visits"
    assert all(word in info for info in explained)

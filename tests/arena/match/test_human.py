"""A person's seat (`arena play --agent human`) without a browser: the referee's side in process,
the page's requests over HTTP against a real `arena play` (the browser tests are in
tests/arena/web/test_human_browser.py)."""

from __future__ import annotations

import json
import socket
import time
from typing import Any

import pytest
import trio

from arena.match.human import HumanSeat
from arena.match.record import replay
from arena.match.referee import MatchSetupError, play_match, run_match
from arena.match.spec import MatchSpec
from arena.registry.plugins import discover
from engine.zapotec.svg import _card
from tests.support.cli import arena_in_process
from tests.support.human_play import HumanMatch, get_json, post_json
from tests.support.svg_checks import shown_text

pytest.importorskip("hypercorn", reason="the web extra is not installed (pip install -e '.[web]')")


def tab_of(page_url: str) -> str:
    """Open the seat's page (as a new tab would) and return the tab id it was given."""
    status, html = get_json(page_url)
    assert status == 200
    return html.split('data-tab="', 1)[1].split('"', 1)[0]


def next_state(page: str, tab: str, since: int, wanted: tuple[str, ...]) -> dict[str, Any]:
    """The page's state once its status is one of ``wanted`` (long polls from version ``since``)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status, state = get_json(f"{page}/state?tab={tab}&since={since}")
        assert status == 200, state
        if state["status"] in wanted:
            return state
        since = state["version"]
    raise AssertionError(f"no {wanted} state within 60 s")


def test_the_human_seat_is_asked_its_own_observation_only():
    """In process: every decision the seat's page gets carries exactly what a bot in that seat
    is sent (its observation, the options), and the match is recorded like any other."""
    game = discover().game("zapotec")
    spec = MatchSpec(game="zapotec", agents=("random", "human"), seed=9)
    seat = HumanSeat(1, 5_000)
    asked: list[dict[str, Any]] = []

    async def person() -> None:  # what the page does: answer every pending decision
        tab = seat.claim()
        while not seat.stopped:
            if seat.question is not None:
                asked.append(seat.question)
                seat.choose(tab, seat.question["id"], len(asked) % len(seat.question["options"]))
            await seat.changed_since(seat.version, 1.0)

    async def main():
        async with trio.open_nursery() as nursery:
            nursery.start_soon(person)
            return await play_match(spec, discover(), {1: seat})

    outcome = trio.run(main)
    record = outcome.record
    assert record["faults"] == [] and record["agents"][1]["kind"] == "human"
    assert seat.hello is not None and seat.hello["seat"] == 1 and seat.hello["clock"]["move_ms"] == 5_000
    replay(record, game)  # recorded like any match: it replays
    expected, moves = [], iter(record["moves"])
    state = game.setup(2, 9, {})
    while seats := state.to_act():  # simultaneous seats are all asked before any is applied
        for index in seats:
            if index == 1:
                decision = state.decision(1)
                expected.append((state.observation(1), decision.prompt, [dict(o) for o in decision.options]))
        for _ in seats:
            move = next(moves)
            state.apply(move["seat"], move["choice"])
    got = [(json.loads(json.dumps(q["obs"])), q["prompt"], q["options"]) for q in asked]
    assert got == [(json.loads(json.dumps(o)), p, opts) for o, p, opts in expected] and len(got) > 10


def test_a_human_seat_cannot_be_played_without_its_page():
    with pytest.raises(MatchSetupError, match="only `arena play` can seat it"):
        run_match(MatchSpec(game="zapotec", agents=("human", "random"), seed=1))
    for command in (["check", "human"], ["compare", "human", "random", "--game", "zapotec"]):
        done = arena_in_process(*command)  # refused before anything is played
        assert done.returncode == 2, done.stderr
        assert done.stderr.strip().splitlines()[-1] == (
            "error: agent 'human' is a person playing in the browser: only `arena play` can seat it"
        )


def test_forged_stale_and_foreign_requests_are_refused_and_the_match_goes_on(tmp_path):
    record_file = tmp_path / "m.json"
    match = HumanMatch(
        ["-g", "zapotec", "-a", "human", "-a", "random", "--seed", "4", "--record", str(record_file)]
    )
    try:
        page = match.pages[0]
        first = tab_of(page)
        state = next_state(page, first, -1, ("deciding",))
        count, decision = len(state["options"]), state["id"]
        assert {o["index"] for o in state["options"]} == set(range(count))
        # The board is drawn as seat 0 sees it: its own hand, the other hand face down.
        dealt = discover().game("zapotec").setup(2, 4, {})  # the first decision: nothing applied yet
        mine, theirs = (", ".join(_card(dealt, card) for card in dealt.hands[s]) for s in (0, 1))
        board = shown_text(state["board"])
        assert f"hand: {mine}" in board and f"hand: {theirs}" not in board
        assert f"hand: {len(dealt.hands[1])} cards face down" in board
        refusals = [
            (
                {"tab": first, "id": decision, "choice": 99},
                400,
                f"choice 99 is not one of this decision's options (0..{count - 1})",
            ),
            ({"tab": first, "id": decision, "choice": "0"}, 400, "is not one of this decision's options"),
            ({"tab": first, "id": decision, "choice": True}, 400, "is not one of this decision's options"),
            ({"tab": first, "id": decision + 7, "choice": 0}, 409, "that decision is no longer open"),
            ({"tab": "forged", "id": decision, "choice": 0}, 409, "played in another tab"),
        ]
        for body, code, message in refusals:
            status, answer = post_json(f"{page}/choose", body)
            assert status == code and message in answer["error"], (body, answer)
        status, answer = post_json(f"{page}/choose", None, raw=b"{not json")
        assert status == 400 and "send one JSON object" in answer["error"]
        body = {"tab": first, "id": decision, "choice": 0}
        status, answer = post_json(f"{page}/choose", body, content_type="text/plain")  # a cross-site form
        assert status == 415 and "application/json" in answer["error"]
        token = page.rsplit("/", 1)[1]
        assert get_json(page.replace(token, "x" + token))[0] == 404  # another token: no seat
        assert get_json(page, host="evil.example")[0] == 400  # DNS rebinding: refused
        second = tab_of(page)  # a second tab takes the seat over
        assert next_state(page, first, -1, ("taken",))["message"].startswith(
            "this seat is now played in another tab"
        )
        status, answer = post_json(f"{page}/choose", {"tab": first, "id": decision, "choice": 0})
        assert status == 409 and "another tab" in answer["error"]
        clicks, since = 0, -1
        while True:  # the second tab plays the match to its end
            state = next_state(page, second, since, ("deciding", "over"))
            since = state["version"]
            if state["status"] == "over":
                break
            assert post_json(f"{page}/choose", {"tab": second, "id": state["id"], "choice": 0})[0] == 200
            clicks += 1
        exit_status, stdout, stderr = match.finish()
    finally:
        match.stop()
    assert exit_status == 0, stderr
    record = json.loads(record_file.read_text())
    assert record["faults"] == [] and len([m for m in record["moves"] if m["seat"] == 0]) == clicks
    assert [s["agent"] for s in state["outcome"]["seats"]] == ["human", "random"]


@pytest.mark.parametrize("opened", [True, False])
def test_a_closed_page_forfeits_on_the_human_clock_with_a_clear_line(tmp_path, opened):
    record_file = tmp_path / "m.json"
    clock = 6 if opened else 1  # long enough, under load, for the page to open before it runs out
    args = [
        "-g",
        "zapotec",
        "-a",
        "human",
        "--automaton",
        "cocijobot",
        "--seed",
        "3",
        "--human-clock",
        str(clock),
    ]
    match = HumanMatch(args + ["--bank-ms", "0", "--record", str(record_file)])
    try:
        if opened:
            tab = tab_of(match.pages[0])
            next_state(match.pages[0], tab, -1, ("deciding",))  # shown; then the tab is closed
            state = next_state(match.pages[0], tab, -1, ("over",))
            assert f"no choice within {clock} s: the page gave no choice" in state["forfeit"]
        exit_status, stdout, stderr = match.finish()
    finally:
        match.stop()
    where = "the page gave no choice (closed tab?)" if opened else "no page was open for it"
    assert exit_status == 0, stderr
    assert f"seat 0 forfeited (timeout, move): human seat: no choice within {clock} s: {where}" in stdout
    fault = json.loads(record_file.read_text())["faults"][0]
    assert (fault["seat"], fault["fault"], fault["move"]) == (0, "timeout", 0)


def test_ctrl_c_while_the_person_thinks_stops_the_match_in_one_line():
    match = HumanMatch(["-g", "teotihuacan", "-a", "human", "-a", "random", "--seed", "1"])
    tab = tab_of(match.pages[0])
    next_state(match.pages[0], tab, -1, ("deciding",))
    match.process.send_signal(2)
    exit_status, stdout, stderr = match.finish()
    assert (
        exit_status == 130
        and stderr.strip().splitlines()[-1] == "error: interrupted; every agent process was stopped"
    )
    assert "Traceback" not in stderr


def test_a_busy_port_is_one_error_line():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = arena_in_process("play", "-g", "zapotec", "-a", "human", "-a", "random", "--port", str(port))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith(f"error: cannot listen on 127.0.0.1:{port}: ")


def test_two_people_each_get_their_own_page_and_only_their_seat():
    match = HumanMatch(["-g", "zapotec", "-a", "human", "-a", "human", "--seed", "6"], humans=2)
    try:
        assert sorted(match.pages) == [0, 1] and match.pages[0] != match.pages[1]
        tabs = {seat: tab_of(page) for seat, page in match.pages.items()}
        states = {seat: next_state(match.pages[seat], tabs[seat], -1, ("deciding",)) for seat in (0, 1)}
        assert [states[seat]["seat"] for seat in (0, 1)] == [0, 1]  # the pick is simultaneous: both asked
        # seat 0's page (its tab id) cannot answer for seat 1, whose page it is not
        body = {"tab": tabs[0], "id": states[1]["id"], "choice": 0}
        status, answer = post_json(f"{match.pages[1]}/choose", body)
        assert status == 409 and "another tab" in answer["error"]
    finally:
        match.stop()

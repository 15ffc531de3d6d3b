"""The referee end to end: real subprocess agents on goofspiel, every fault, records, cleanup."""

from __future__ import annotations

import pytest
import trio

from arena.match.record import ReplayError, replay
from arena.match.referee import MatchSetupError, play_match, run_match
from arena.match.spec import MatchSpec
from arena.registry.plugins import discover
from arena.wire.faults import FAULTS
from engine.api import IllegalAction, validate_options
from examples.games.goofspiel.game import GAME, Goofspiel, GoofspielState
from tests.support.agent_processes import FIRST_OPTION, ROUNDS, alive, check_replays, eventually_empty


def test_random_agents_play_a_full_match(no_leftovers):
    spec = MatchSpec(game="goofspiel", agents=("random", "random", "random"), seed=11)
    outcome = run_match(spec)
    assert [s.seat for s in outcome.seats] == [0, 1, 2]
    assert all(s.fault is None and s.agent == "random" for s in outcome.seats)
    assert sum(s.score for s in outcome.seats) <= 15 and min(s.rank for s in outcome.seats) == 1
    record = outcome.record
    assert record["game"] == "goofspiel" and record["seed"] == 11 and record["faults"] == []
    assert [a["name"] for a in record["agents"]] == ["random"] * 3 and record["agents"][0]["version"] == "1"
    assert len(record["moves"]) == 3 * ROUNDS
    assert all(m["by"] == "agent" and m["ms"] >= 0 for m in record["moves"])
    check_replays(outcome)


def test_same_seed_same_match():
    spec = MatchSpec(game="goofspiel", agents=("random", "random"), seed=5)
    first, second = run_match(spec), run_match(spec)

    def choices(record):
        return [(m["seat"], m["choice"]) for m in record["moves"]]

    assert choices(first.record) == choices(second.record) and first.seats == second.seats


FAULT_CASES = [
    ("fault-crash", "crash", "move", "status 3"),
    ("fault-exit", "exit", "move", "status 0"),
    (
        "fault-garbage",
        "bad-frame",
        "move",
        "not valid msgpack (FormatError); the frame's 5 bytes start b'\\xc1",
    ),
    ("fault-choice-str", "bad-frame", "move", "'choice' must be int, got '1'"),
    ("fault-choice-float", "bad-frame", "move", "'choice' must be int, got 1.9"),
    ("fault-choice-bool", "bad-frame", "move", "'choice' must be int, got True"),
    ("fault-print", "oversized-frame", "move", "print to stdout"),
    ("fault-oversized", "oversized-frame", "move", "2097152 bytes"),
    ("fault-illegal", "illegal-choice", "move", "not in 0..3"),
    ("fault-wrong-id", "wrong-id", "move", "expected"),
    ("fault-unknown-type", "unknown-type", "move", "'ponder'"),
    ("fault-error", "error", "move", "I give up"),
    ("fault-orphan", "crash", "move", "status 4"),
    ("fault-handshake-exit", "exit", "handshake", "status 0"),
    ("fault-handshake-crash", "crash", "handshake", "broken before ready"),
]


@pytest.mark.parametrize("agent, fault, phase, detail", FAULT_CASES)
def test_fault_forfeits_and_the_match_finishes(agent, fault, phase, detail, no_leftovers):
    spec = MatchSpec(game="goofspiel", agents=(agent, "random"), seed=3, agent_options=({"at": 2}, {}))
    outcome = run_match(spec)
    faulty, other = outcome.seats
    assert (faulty.fault, faulty.rank, other.fault, other.rank) == (fault, 2, None, 1)
    (entry,) = outcome.record["faults"]
    assert entry["seat"] == 0 and entry["fault"] == fault and entry["phase"] == phase
    assert detail in entry["detail"]
    moves = outcome.record["moves"]
    assert len(moves) == 2 * ROUNDS  # the match went on to the end
    mine = [m for m in moves if m["seat"] == 0]
    played = 0 if phase == "handshake" else 1  # at=2: the first decision was answered
    assert [m["by"] for m in mine] == ["agent"] * played + ["random"] * (ROUNDS - played)
    check_replays(outcome)


def test_timeout_uses_the_move_clock_and_the_bank(no_leftovers):
    spec = MatchSpec(game="goofspiel", agents=("fault-sleep", "random"), seed=1, move_ms=1000, bank_ms=500)
    outcome = run_match(spec)
    assert outcome.seats[0].fault == "timeout" and outcome.seats[1].fault is None
    assert "1000 ms + 500 ms bank" in outcome.record["faults"][0]["detail"]
    check_replays(outcome)


def test_overruns_draw_on_the_bank_without_forfeiting(no_leftovers):
    spec = MatchSpec(
        game="goofspiel",
        agents=("fault-slow", "random"),
        seed=1,
        move_ms=50,
        bank_ms=5000,
        agent_options=({"sleep_ms": 150}, {}),
    )
    outcome = run_match(spec)
    assert outcome.seats[0].fault is None
    banks = [int(line.split()[1]) for line in outcome.record["agents"][0]["stderr"].splitlines()]
    assert banks[0] == 5000 and len(banks) == ROUNDS
    # every move overran the 50 ms clock by at least 100 ms, taken from the bank
    assert all(later <= earlier - 100 for earlier, later in zip(banks, banks[1:], strict=False))


def test_handshake_stall_forfeits(no_leftovers):
    spec = MatchSpec(game="goofspiel", agents=("random", "fault-handshake-stall"), seed=2, handshake_ms=5000)
    outcome = run_match(spec)
    assert [s.fault for s in outcome.seats] == [None, "handshake"]
    assert outcome.record["agents"][1]["handshake_ms"] is None
    assert outcome.record["agents"][0]["handshake_ms"] > 0


def test_orphaned_grandchild_is_killed_with_the_group(no_leftovers):
    # no sandbox: the orphan reports its pid as the host sees it (tests/arena/process/test_sandbox.py: the same in a sandbox)
    outcome = run_match(
        MatchSpec(game="goofspiel", agents=("fault-orphan", "random"), seed=3, sandbox="none")
    )
    stderr = outcome.record["agents"][0]["stderr"]
    pid = int(stderr.split("orphan pid ")[1].split()[0])
    assert eventually_empty(lambda: [pid] if alive(pid) else []) == []


def test_every_seat_can_fault_and_all_share_last_place(no_leftovers):
    spec = MatchSpec(game="goofspiel", agents=("fault-illegal", "random", "fault-crash"), seed=4)
    outcome = run_match(spec)
    assert [(s.fault, s.rank) for s in outcome.seats] == [("illegal-choice", 2), (None, 1), ("crash", 2)]


def test_stderr_is_captured_and_bounded(no_leftovers):
    outcome = run_match(MatchSpec(game="goofspiel", agents=("fault-noisy", "random"), seed=3))
    assert outcome.seats[0].fault is None
    stderr = outcome.record["agents"][0]["stderr"]
    assert stderr.rstrip().endswith("last noisy line") and "earlier bytes dropped" in stderr
    assert len(stderr) < 17 * 1024


def test_memory_limit_applies_to_the_agent(no_leftovers):
    spec = MatchSpec(game="goofspiel", agents=("fault-hog", "random"), seed=3, memory_mb=400)
    outcome = run_match(spec)
    assert outcome.seats[0].fault == "crash" and "MemoryError" in outcome.record["agents"][0]["stderr"]


def test_cpu_limit_applies_to_the_agent(no_leftovers):
    spec = MatchSpec(game="goofspiel", agents=("fault-spin", "random"), seed=3, cpu_seconds=1, move_ms=20_000)
    outcome = run_match(spec)
    assert outcome.seats[0].fault == "crash" and "SIGXCPU" in outcome.record["faults"][0]["detail"]


def test_simultaneous_seats_are_asked_concurrently(tmp_path, no_leftovers):
    # Each rendezvous agent answers only once all three were asked in the same round.
    options = ({"dir": str(tmp_path)},) * 3
    spec = MatchSpec(
        game="goofspiel",
        agents=("rendezvous",) * 3,
        seed=8,
        agent_options=options,
        move_ms=20_000,
        sandbox="none",  # the agents meet in a shared directory, which sandboxes keep apart
    )
    outcome = run_match(spec)
    assert [s.fault for s in outcome.seats] == [None, None, None]
    assert "stray print" in outcome.record["agents"][0]["stderr"]  # host kept stdout for the protocol


def test_cancelled_referee_leaves_no_process(no_leftovers):
    spec = MatchSpec(game="goofspiel", agents=("random", "fault-sleep"), seed=1, move_ms=60_000)
    registry = discover()

    async def main() -> None:
        with trio.move_on_after(2.5) as scope:
            await play_match(spec, registry)
        assert scope.cancelled_caught

    trio.run(main)


def test_stdlib_external_bot_plays_by_path_and_by_plugin_argv(no_leftovers):
    outcome = run_match(MatchSpec(game="goofspiel", agents=(FIRST_OPTION, "random"), seed=6))
    assert outcome.seats[0].fault is None and outcome.seats[0].agent == FIRST_OPTION
    assert (
        outcome.record["agents"][0]["name"] == "first-option"
        and outcome.record["agents"][0]["kind"] == "external"
    )
    first = [m["choice"] for m in outcome.record["moves"] if m["seat"] == 0]
    assert first == [0] * ROUNDS
    check_replays(outcome)


@pytest.mark.parametrize(
    "spec, message",
    [
        (MatchSpec(game="chess", agents=("random", "random"), seed=1), "unknown game 'chess'"),
        (MatchSpec(game="goofspiel", agents=("nobody", "random"), seed=1), "unknown agent 'nobody'"),
        (MatchSpec(game="goofspiel", agents=("random",), seed=1), "takes 2-4 players, got 1"),
        (MatchSpec(game="goofspiel", agents=("random", "random"), seed=1, options={"cards": 99}), "'cards'"),
        (MatchSpec(game="goofspiel", agents=("./no/such/bot", "random"), seed=1), "no such file"),
        (MatchSpec(game="goofspiel", agents=("random", "random"), seed=1, automaton="bot"), "no automaton"),
    ],
)
def test_a_match_that_cannot_start_says_why(spec, message):
    with pytest.raises(MatchSetupError, match=None) as info:
        run_match(spec)
    assert message in str(info.value)


def test_replay_detects_a_tampered_record():
    outcome = run_match(MatchSpec(game="goofspiel", agents=("random", "random"), seed=9))
    short = dict(outcome.record, moves=outcome.record["moves"][:-1])
    with pytest.raises(ReplayError, match="not over"):
        replay(short, GAME)
    result = dict(outcome.record["result"], scores=[99, 99])
    with pytest.raises(ReplayError, match="replay gives scores"):
        replay(dict(outcome.record, result=result), GAME)


def test_fault_vocabulary_covers_the_cases():
    assert {case[1] for case in FAULT_CASES} | {"timeout", "handshake"} <= set(FAULTS)


class SoloState(GoofspielState):
    """Goofspiel with an automaton in the last seat: it always bids its highest card."""

    def to_act(self) -> tuple[int, ...]:
        return tuple(seat for seat in super().to_act() if seat != self.players - 1)

    def apply(self, seat: int, choice: int) -> None:
        if seat == self.players - 1:
            raise IllegalAction("the automaton's seat is played by the engine")
        super().apply(seat, choice)
        bot = self.players - 1
        if [s for s in range(self.players) if self.bids[s] is None] == [bot]:
            card = max(self.hands[bot])
            self.hands[bot].remove(card)
            self.bids[bot] = card
            self._resolve()

    def decision(self, seat: int):
        if seat == self.players - 1:
            raise IllegalAction("the automaton's seat is played by the engine")
        return super().decision(seat)


class SoloGoofspiel(Goofspiel):
    id = "goofspiel-solo"
    min_players = 1
    max_players = 3
    automata = ("bidbot",)

    def option_schema(self):
        return {**super().option_schema(), "automaton": {"type": "str", "default": None, "help": ""}}

    def setup(self, players, seed, options):
        options = validate_options(self.option_schema(), options)
        return SoloState(players + (options["automaton"] is not None), seed, options)


def test_automaton_takes_the_next_seat_and_is_never_asked(no_leftovers):
    registry = discover()
    registry.games["goofspiel-solo"] = SoloGoofspiel()
    spec = MatchSpec(game="goofspiel-solo", agents=(FIRST_OPTION,), seed=5, automaton="bidbot")
    outcome = run_match(spec, registry)
    assert [(s.seat, s.agent) for s in outcome.seats] == [(0, FIRST_OPTION), (1, "bidbot")]
    assert {m["seat"] for m in outcome.record["moves"]} == {0} and len(outcome.record["moves"]) == ROUNDS
    assert outcome.record["options"] == {"automaton": "bidbot"} and outcome.record["players"] == 1
    same = SoloGoofspiel().setup(1, 5, {"automaton": "bidbot"})
    while same.to_act():
        same.apply(0, 0)  # what first-option plays
    assert [s.score for s in outcome.seats] == list(same.result().scores)
    assert replay(outcome.record, registry.games["goofspiel-solo"]).terminal()


class LeakyState(GoofspielState):
    """Breaks the simultaneous contract: a seat's option labels show how many seats already bid."""

    def decision(self, seat: int):
        decision = super().decision(seat)
        made = sum(bid is not None for bid in self.bids)
        options = tuple(dict(option, label=f"{option['label']} after {made}") for option in decision.options)
        return type(decision)(decision.kind, decision.prompt, options)


class LeakyGoofspiel(Goofspiel):
    id = "goofspiel-leaky"

    def setup(self, players, seed, options):
        return LeakyState(players, seed, validate_options(self.option_schema(), options))


def test_an_engine_changing_simultaneous_options_is_caught(no_leftovers):
    registry = discover()
    registry.games["goofspiel-leaky"] = LeakyGoofspiel()
    with pytest.raises(RuntimeError, match="options changed while applying a simultaneous decision"):
        run_match(MatchSpec(game="goofspiel-leaky", agents=("random", "random"), seed=1), registry)

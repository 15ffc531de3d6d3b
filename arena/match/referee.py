"""The referee: plays one match between agent subprocesses on a rules engine.

``play_match`` starts every agent (own process group, optional limits), shakes hands, then asks
the seats in ``to_act()`` for their choices (simultaneous seats concurrently) under a per-move
clock and a per-game time bank (a seat is charged only from its ``decide`` to its ``act``, and,
unless the match allows pondering, frozen while any other seat is asked), applies them,
sends ``end`` and reaps every process. A seat that faults (see arena/wire/faults.py) forfeits:
the random policy plays it to the end and it is ranked last. Every match yields a record (arena/match/record.py) from which ``arena replay`` re-runs
the game.
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from random import Random
from typing import Any, TypeVar

import trio

from arena.match.human import HumanSeat
from arena.match.lineup import ONLY_ARENA_PLAY, MatchSetupError, SeatPlan, plan_seat, setup_state
from arena.match.live import LiveWriter
from arena.match.record import build_record, final_ranks, record_header, record_seats
from arena.match.spec import MatchOutcome, MatchSpec
from arena.process.connection import AgentProcess, DeadlineExceeded
from arena.process.sandbox import SandboxError, choose_sandbox
from arena.process.warm import release as release_kept
from arena.registry.plugins import PluginError, Registry, discover
from arena.wire.faults import AgentFault
from arena.wire.protocol import (
    AGENT_MESSAGES,
    DecideMessage,
    ProtocolError,
    check_message,
    check_ready,
    check_reply,
    decide_message,
    hello_message,
    reply_info,
    unsolicited,
)
from engine.api import Game, State
from engine.playout import option_counter, random_choice

# MatchSetupError is raised here too (bad specs), so callers import it from this module as well.
__all__ = ["MatchSetupError", "Terminated", "play_match", "run_match"]

# How long the referee may block in poll() for the answer of the only seat it is asking; a quick
# agent is then read without a round through trio's scheduler, a slow one costs at most this.
LINGER_MS = 1

T = TypeVar("T")


def forfeit_rng(seed: int) -> Random:
    """The random policy's generator for forfeited seats, derived from the match seed."""
    return Random(f"tlachtli-forfeit-{seed}")


@dataclass
class Seat:
    """The referee's view of one agent seat during a match."""

    plan: SeatPlan
    process: AgentProcess | HumanSeat
    bank_ms: float
    move_ms: int  # its clock per decision (a person's may be longer than the match's)
    name: str = "?"
    version: str = "?"
    handshake_ms: float | None = None
    fault: dict[str, Any] | None = None
    info: str | None = None  # the `info` text of its last answer (docs/protocol.md)


class Match:
    """One match in progress (used through ``play_match``)."""

    def __init__(
        self,
        spec: MatchSpec,
        game: Game,
        state: State,
        options: dict[str, Any],
        plans: list[SeatPlan],
        sandbox: str = "none",
        humans: Mapping[int, HumanSeat] | None = None,
        live: LiveWriter | None = None,
    ) -> None:
        self.spec = spec
        self.live = live  # where each step goes as it is played (arena/match/live.py), if anywhere
        self.game = game
        self.state = state
        self.options = options  # as given to Game.setup (the automaton included)
        self.rng = forfeit_rng(spec.seed)
        self.next_id = 0
        self.moves: list[dict[str, Any]] = []
        humans = humans or {}
        self.humans = list(humans.values())  # told each move's public log lines (their pages show them)
        self.logged = 0  # log entries the humans were told
        self.seats = [
            Seat(plan, humans[plan.seat], spec.bank_ms, humans[plan.seat].move_ms)
            if plan.kind == "human"
            else Seat(
                plan,
                AgentProcess(
                    plan.argv,
                    hosted=plan.hosted,
                    memory_mb=spec.memory_mb,
                    cpu_seconds=spec.cpu_seconds,
                    sandbox=sandbox,
                    cpus=spec.cpus,
                    ponder=spec.ponder,
                    plugin=plan.agent if plan.kind == "python" else None,
                    package=plan.package,
                ),
                spec.bank_ms,
                spec.move_ms,
            )
            for plan in plans
        ]

    def forfeit(self, seat: Seat, fault: AgentFault, phase: str) -> None:
        """Mark ``seat`` forfeited (first fault wins); its process is killed by the caller."""
        if seat.fault is None:
            seat.fault = {
                "seat": seat.plan.seat,
                "fault": fault.kind,
                "detail": fault.detail,
                "phase": phase,
                "move": len(self.moves),
            }
            if self.live is not None:
                self.live.fault(seat.fault)

    async def handshake(self, seat: Seat, nursery: trio.Nursery, agent_options: dict[str, Any]) -> None:
        """Start the agent and exchange hello/ready within the handshake clock; faults forfeit."""
        spec = self.spec
        players = spec.table_size
        clock = {"move_ms": seat.move_ms, "bank_ms": spec.bank_ms}
        hello = hello_message(
            self.game.id, self.game.version, seat.plan.seat, players, self.options, clock, agent_options
        )
        try:
            seat.process.prepare()  # the referee's own start-up: not on the agent's clock
            started = time.perf_counter()
            with trio.move_on_after(spec.handshake_ms / 1000) as scope:
                await seat.process.start(nursery)
                await seat.process.send(hello)
                reply = await seat.process.receive()
                kind = check_message(reply, AGENT_MESSAGES)
                if kind == "error":
                    raise AgentFault("error", reply["message"][:300])
                if kind != "ready":
                    raise ProtocolError("unknown-type", f"expected 'ready', got {kind!r}")
                seat.name, seat.version = check_ready(reply)
                seat.process.pause()  # not deciding until its first `decide`
            if scope.cancelled_caught:
                raise AgentFault("handshake", f"no 'ready' within {spec.handshake_ms} ms")
            seat.handshake_ms = (time.perf_counter() - started) * 1000
        except AgentFault as fault:
            self.forfeit(seat, fault, "handshake")
            await seat.process.kill()

    async def ask(
        self, seat: Seat, decision_id: int, message: DecideMessage, options: int, alone: bool = False
    ) -> int | None:
        """One decision from ``seat``'s agent under its clock; None when it faulted (forfeit).

        ``alone``: no other seat is being asked, so the reply may be awaited in a short blocking
        poll first (LINGER_MS), which saves a trip through trio's scheduler per decision.
        """
        seat.info = None
        started = time.perf_counter()
        allowed_ms = seat.move_ms + seat.bank_ms
        try:
            if seat.process.wrote_unasked():
                try:
                    early = await seat.process.receive(trio.current_time())
                except DeadlineExceeded:
                    early = None  # not one whole frame
                raise unsolicited(early)
            try:
                deadline = trio.current_time() + allowed_ms / 1000
                # frozen since its last answer unless the match allows pondering: thawed with
                # its `decide` already in its pipe (one wake-up, not two)
                await seat.process.send(message, deadline, resume=True)
                reply = await seat.process.receive(deadline, LINGER_MS if alone else 0.0)
                if not alone:
                    seat.process.pause()  # others still decide: it may not use their time
            except DeadlineExceeded:
                reply = None
            if reply is None or (time.perf_counter() - started) * 1000 > allowed_ms:
                raise AgentFault(
                    "timeout", f"no answer within {seat.move_ms} ms + {seat.bank_ms:.0f} ms bank"
                )
            choice = check_reply(reply, decision_id, options)
            seat.info = reply_info(reply)
        except AgentFault as fault:
            self.forfeit(seat, fault, "move")
            await seat.process.kill()
            return None
        elapsed = (time.perf_counter() - started) * 1000
        seat.bank_ms = max(0.0, seat.bank_ms - max(0.0, elapsed - seat.move_ms))
        return choice

    def decide_message(self, seat: Seat) -> tuple[int, DecideMessage, int]:
        """(id, decide message, number of options) for ``seat``'s current decision."""
        self.next_id += 1
        index = seat.plan.seat
        message = decide_message(
            self.next_id,
            self.state.observation(index),
            self.state.decision(index),
            seat.move_ms,
            int(seat.bank_ms),
        )
        return self.next_id, message, len(message["options"])

    async def play_turn(self, to_act: tuple[int, ...]) -> None:
        """Get a choice from every seat in ``to_act`` (concurrently when several), then apply them."""
        for index in to_act:
            if index >= len(self.seats):
                raise RuntimeError(f"engine asked seat {index}, which is no agent seat (automaton?)")
        asked = [self.seats[i] for i in to_act if self.seats[i].fault is None]
        for seat in self.seats:  # a seat not deciding may not use the others' turns (unless it may ponder)
            if seat.plan.seat not in to_act and seat.fault is None:
                seat.process.pause()  # frozen once, not after each of its decisions: a freeze costs ~1 ms
        questions = {seat.plan.seat: self.decide_message(seat) for seat in asked}
        answers: dict[int, tuple[int | None, float]] = {}

        async def one(seat: Seat, alone: bool = False) -> None:
            started = time.perf_counter()
            decision_id, message, options = questions[seat.plan.seat]
            choice = await self.ask(seat, decision_id, message, options, alone)
            answers[seat.plan.seat] = (choice, (time.perf_counter() - started) * 1000)

        if len(asked) == 1:
            await one(asked[0], alone=True)
        elif asked:
            async with trio.open_nursery() as nursery:
                for seat in asked:
                    nursery.start_soon(one, seat)
        for index in to_act:  # applied in seat order, whoever answered first
            choice, ms = answers.get(index, (None, 0.0))
            by = "agent"
            if choice is None:
                choice, by = random_choice(self.state, index, self.rng, option_counter(self.game)), "random"
            elif (
                len(to_act) > 1 and list(self.state.decision(index).options) != questions[index][1]["options"]
            ):
                # Simultaneous seats chose from what they were shown; an engine whose options
                # for one seat change with another seat's choice breaks the contract.
                raise RuntimeError(
                    f"{self.game.id}: seat {index}'s options changed while applying a simultaneous decision"
                )
            self.state.apply(index, choice)
            move: dict[str, Any] = {"seat": index, "choice": choice, "ms": round(ms, 3), "by": by}
            info = self.seats[index].info if by == "agent" else None
            if info:
                move["info"] = info
            self.moves.append(move)
            if self.live is not None:
                self.live.move(move)
        if self.humans:
            self.inform_humans()

    def inform_humans(self) -> None:
        """Tell each person's seat the engine's log lines since the last time (the public log, as the
        replay shows it), its own observation now, and at the end the final position."""
        log = self.state.log()
        lines = [
            str(entry.get("text", "")) if isinstance(entry, dict) else str(entry)
            for entry in log[self.logged :]
        ]
        self.logged = len(log)
        final = self.state if self.state.terminal() else None
        for human in self.humans:
            human.witness(lines, self.state.observation(human.seat), final)

    def agent_entries(self) -> list[dict[str, Any]]:
        """The record's ``agents`` entries (their stderr excepted: it is read at the end)."""
        spec = self.spec
        return [
            {
                "seat": seat.plan.seat,
                "agent": seat.plan.agent,
                "display": spec.display_names[seat.plan.seat] if spec.display_names else seat.plan.agent,
                "options": dict(spec.agent_options[seat.plan.seat]) if spec.agent_options else {},
                "kind": seat.plan.kind,
                "name": seat.name,
                "version": seat.version if seat.version != "?" else seat.plan.version,
                "handshake_ms": None if seat.handshake_ms is None else round(seat.handshake_ms, 3),
            }
            | ({"move_ms": seat.move_ms} if seat.move_ms != spec.move_ms else {})
            for seat in self.seats
        ]

    async def run(self) -> MatchOutcome:
        """The whole match: handshake, decisions until the end, goodbye; every process reaped."""
        spec = self.spec
        started = time.time()
        async with trio.open_nursery() as nursery:  # holds the stderr drains
            try:
                async with trio.open_nursery() as shakes:
                    for seat in self.seats:
                        options = spec.agent_options[seat.plan.seat] if spec.agent_options else {}
                        shakes.start_soon(self.handshake, seat, nursery, dict(options))
                for seat in self.seats:  # the next match's agents start while this one plays (a worker)
                    if isinstance(seat.process, AgentProcess):
                        seat.process.prestart_successor()
                if self.live is not None:
                    self.live.start(
                        record_header(spec, self.game, self.options, self.agent_entries(), started)
                    )
                if self.humans:
                    self.inform_humans()  # the setup's log lines and the opening position
                while to_act := self.state.to_act():
                    await self.play_turn(to_act)
                result = self.state.result()
                forfeited = {seat.plan.seat for seat in self.seats if seat.fault}
                ranks = final_ranks(result.ranks, forfeited)
                goodbye = {
                    "type": "end",
                    "result": {"scores": list(result.scores), "ranks": list(ranks)},
                    "reason": "finished",
                }
                async with trio.open_nursery() as farewells:
                    for seat in self.seats:
                        if seat.fault is None:
                            farewells.start_soon(seat.process.finish, goodbye)
            finally:
                for seat in self.seats:  # every path, including cancellation (Ctrl-C)
                    await seat.process.kill()
                if self.live is not None:
                    self.live.close()
                release_kept()  # zygotes, thaw guard: unless this process keeps them warm (a runner's worker)
        record = build_record(
            spec,
            self.game,
            self.options,
            [
                entry | {"stderr": seat.process.stderr_text()}
                for entry, seat in zip(self.agent_entries(), self.seats, strict=True)
            ],
            self.moves,
            [seat.fault for seat in self.seats if seat.fault],
            result,
            ranks,
            started=started,
            duration_ms=(time.time() - started) * 1000,
        )
        # Seats past the agents are the engine's automaton, named as such even if it came unasked.
        return MatchOutcome(spec=spec, seats=record_seats(spec, record), record=record)


async def play_match(
    spec: MatchSpec,
    registry: Registry,
    humans: Mapping[int, HumanSeat] | None = None,
    live: str | None = None,
) -> MatchOutcome:
    """Play one match through agent subprocesses; raises MatchSetupError if it cannot start.

    ``humans``: the seats a person plays (agent ``human``), by seat, each served by a page
    (arena/web/human_play.py); such a seat cannot be played without one.
    ``live``: a file to append each step to as it is played (arena/match/live.py), for followers.
    """
    game, state, options = setup_state(spec, registry)
    plans = [plan_seat(seat, name, registry, game.id) for seat, name in enumerate(spec.agents)]
    for plan in plans:
        if plan.kind == "human" and plan.seat not in (humans or {}):
            raise MatchSetupError(ONLY_ARENA_PLAY)
    if spec.agent_options and len(spec.agent_options) != len(spec.agents):
        raise MatchSetupError(
            f"agent_options has {len(spec.agent_options)} entries for {len(spec.agents)} agents"
        )
    if spec.display_names and len(spec.display_names) != len(spec.agents):
        raise MatchSetupError(
            f"display_names has {len(spec.display_names)} entries for {len(spec.agents)} agents"
        )
    try:
        sandbox = choose_sandbox(spec.sandbox)
    except SandboxError as error:
        raise MatchSetupError(str(error)) from None
    if sandbox == "none" and any(plan.package for plan in plans):
        raise MatchSetupError(
            "a bot package runs only in the bwrap sandbox (its code never runs outside one): "
            "install bubblewrap, or play it as an installed plugin"
        )
    return await Match(
        spec, game, state, options, plans, sandbox, humans, LiveWriter(live) if live else None
    ).run()


class Terminated(Exception):
    """The referee's process received SIGTERM: the match was stopped and its agents killed."""

    def __init__(self, message: str = "terminated by SIGTERM; every agent process was stopped") -> None:
        super().__init__(message)


async def play_unless_terminated(
    spec: MatchSpec,
    registry: Registry,
    humans: Mapping[int, HumanSeat] | None = None,
    live: str | None = None,
) -> MatchOutcome:
    """``play_match``, cancelled cleanly (every agent killed) if the process gets SIGTERM."""
    if threading.current_thread() is not threading.main_thread():
        return await play_match(spec, registry, humans, live)  # signals can only be caught in the main thread
    async with trio.open_nursery() as nursery:

        async def watch() -> None:
            with trio.open_signal_receiver(signal.SIGTERM) as signals:
                async for _ in signals:
                    raise Terminated()

        nursery.start_soon(watch)
        outcome = await play_match(spec, registry, humans, live)
        nursery.cancel_scope.cancel()
    return outcome


def single_error(group: BaseExceptionGroup) -> BaseException:
    """The one meaningful exception in a trio exception group (KeyboardInterrupt first)."""
    for kind in (KeyboardInterrupt, Terminated):
        if group.subgroup(kind) is not None:
            return kind()
    leaves = []

    def walk(error: BaseException) -> None:
        if isinstance(error, BaseExceptionGroup):
            for inner in error.exceptions:
                walk(inner)
        else:
            leaves.append(error)

    walk(group)
    return leaves[0] if len(leaves) == 1 else group


def run_match(spec: MatchSpec, registry: Registry | None = None, live: str | None = None) -> MatchOutcome:
    """Synchronous ``play_match`` (runs trio); discovers the plugins when ``registry`` is None;
    ``live``: the live file of ``play_match``.

    Ctrl-C raises KeyboardInterrupt and SIGTERM raises Terminated, both after every agent
    process was killed.
    """
    if registry is None:
        try:
            registry = discover()
        except PluginError as error:
            raise MatchSetupError(str(error)) from None
    return run_trio(partial(play_unless_terminated, spec, registry, None, live))


def run_trio(main: Callable[[], Awaitable[T]]) -> T:
    """``trio.run(main)``, with KeyboardInterrupt, Terminated or a lone error out of trio's
    exception groups (``run_match``, and `arena play` with a person at the table)."""
    with single_errors():
        return trio.run(main)


@contextlib.contextmanager
def single_errors() -> Iterator[None]:
    """KeyboardInterrupt, Terminated or a lone error raised as itself out of trio's exception
    groups (``single_error``); a group of several errors as it is."""
    try:
        yield
    except BaseExceptionGroup as group:
        single = single_error(group)
        if single is group:
            raise
        raise single from group

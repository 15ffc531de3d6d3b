"""The referee: plays one match between agent subprocesses on a rules engine.

``play_match`` starts every agent (own process group, optional limits), shakes hands, then asks
the seats in ``to_act()`` for their choices (simultaneous seats concurrently) under a per-move
clock and a per-game time bank, applies them, sends ``end`` and reaps every process. A seat
that faults (see arena/faults.py) forfeits: the random policy plays it to the end and it is
ranked last. Every match yields a record (arena/record.py) from which ``arena replay`` re-runs
the game.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from random import Random
from typing import Any

import trio

from arena.connection import AgentProcess
from arena.faults import AgentFault
from arena.match import MatchOutcome, MatchSpec, SeatResult
from arena.plugins import AgentSpec, PluginError, Registry, discover
from arena.protocol import AGENT_MESSAGES, PROTOCOL_VERSION, ProtocolError, check_message
from arena.record import build_record, final_ranks
from engine.api import BadOptions, Game, State
from engine.playout import random_choice


class MatchSetupError(ValueError):
    """A match that cannot start: unknown game or agent, wrong seat count, bad options."""


@dataclass(frozen=True)
class SeatPlan:
    """How one agent seat is played: the name it was asked by, how to start it, what it claims."""

    seat: int
    agent: str  # as given in the MatchSpec: a plugin name or a path
    argv: tuple[str, ...]
    kind: str  # "python" (hosted by arena.host) or "external"
    version: str


def host_argv(name: str) -> tuple[str, ...]:
    """The command running plugin agent ``name`` behind the wire protocol."""
    return (sys.executable, "-m", "arena.host", name)


def resolve_agent(name: str, registry: Registry, game_id: str | None = None) -> AgentSpec | str:
    """A registered agent's spec, or the absolute path of an executable file; else MatchSetupError."""
    if name in registry.agents:
        spec = registry.agents[name]
        if game_id is not None and not spec.plays(game_id):
            raise MatchSetupError(
                f"agent {name!r} does not play {game_id!r} (it plays: {', '.join(spec.games)})"
            )
        return spec
    if os.sep in name or os.path.exists(name):
        if not os.path.isfile(name):
            raise MatchSetupError(
                f"agent {name!r}: no such file (a path must name an executable speaking the protocol)"
            )
        if not os.access(name, os.X_OK):
            raise MatchSetupError(f"agent {name!r} is not executable (chmod +x it)")
        return os.path.abspath(name)
    try:
        registry.agent(name)
    except PluginError as error:
        raise MatchSetupError(f"{error}, or a path to an executable") from None
    raise AssertionError("unreachable")


def plan_seat(seat: int, name: str, registry: Registry, game_id: str) -> SeatPlan:
    """Resolve agent ``name`` for ``seat`` into the command that plays it."""
    resolved = resolve_agent(name, registry, game_id)
    if isinstance(resolved, str):
        return SeatPlan(seat, name, (resolved,), "external", "?")
    if resolved.factory is not None:
        return SeatPlan(seat, name, host_argv(resolved.name), "python", resolved.version)
    assert resolved.argv is not None
    return SeatPlan(seat, name, tuple(resolved.argv), "external", resolved.version)


def setup_state(spec: MatchSpec, registry: Registry) -> tuple[Game, State, dict[str, Any]]:
    """The game, its initial state and the options given to ``setup``; MatchSetupError if impossible."""
    try:
        game = registry.game(spec.game)
    except PluginError as error:
        raise MatchSetupError(str(error)) from None
    players = len(spec.agents)
    options = dict(spec.options)
    if spec.automaton is not None:
        if spec.automaton not in game.automata:
            known = ", ".join(game.automata) or "none"
            raise MatchSetupError(f"game {game.id!r} has no automaton {spec.automaton!r} (automata: {known})")
        options["automaton"] = spec.automaton
        seats_ok = 1 <= players and players + 1 <= max(game.max_players, 2)
    else:
        seats_ok = game.min_players <= players <= game.max_players
    if not seats_ok:
        raise MatchSetupError(
            f"{game.id} takes {game.min_players}-{game.max_players} players, got {players} agent(s)"
            + (f" plus the automaton {spec.automaton}" if spec.automaton else "")
        )
    try:
        state = game.setup(players, spec.seed, options)
    except (BadOptions, ValueError) as error:
        raise MatchSetupError(f"{game.id}: {error}") from None
    return game, state, options


def forfeit_rng(seed: int) -> Random:
    """The random policy's generator for forfeited seats, derived from the match seed."""
    return Random(f"tlachtli-forfeit-{seed}")


@dataclass
class Seat:
    """The referee's view of one agent seat during a match."""

    plan: SeatPlan
    process: AgentProcess
    bank_ms: float
    name: str = "?"
    version: str = "?"
    handshake_ms: float | None = None
    fault: dict[str, Any] | None = None
    times_ms: list[float] = field(default_factory=list)


class Match:
    """One match in progress (used through ``play_match``)."""

    def __init__(self, spec: MatchSpec, game: Game, state: State, plans: list[SeatPlan]) -> None:
        self.spec = spec
        self.game = game
        self.state = state
        self.rng = forfeit_rng(spec.seed)
        self.next_id = 0
        self.moves: list[dict[str, Any]] = []
        self.seats = [
            Seat(
                plan,
                AgentProcess(plan.argv, memory_mb=spec.memory_mb, cpu_seconds=spec.cpu_seconds),
                spec.bank_ms,
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

    async def handshake(self, seat: Seat, nursery: trio.Nursery, agent_options: dict[str, Any]) -> None:
        """Start the agent and exchange hello/ready within the handshake clock; faults forfeit."""
        spec = self.spec
        hello = {
            "type": "hello",
            "protocol": PROTOCOL_VERSION,
            "game": self.game.id,
            "game_version": self.game.version,
            "seat": seat.plan.seat,
            "players": len(spec.agents) + (spec.automaton is not None),
            "options": dict(spec.options, **({"automaton": spec.automaton} if spec.automaton else {})),
            "clock": {"move_ms": spec.move_ms, "bank_ms": spec.bank_ms},
            "agent_options": agent_options,
        }
        started = time.perf_counter()
        try:
            with trio.move_on_after(spec.handshake_ms / 1000) as scope:
                await seat.process.start(nursery)
                await seat.process.send(hello)
                reply = await seat.process.receive()
                kind = check_message(reply, AGENT_MESSAGES)
                if kind == "error":
                    raise AgentFault("error", reply["message"][:300])
                if kind != "ready":
                    raise ProtocolError("unknown-type", f"expected 'ready', got {kind!r}")
                seat.name, seat.version = reply["name"], reply["version"]
            if scope.cancelled_caught:
                raise AgentFault("handshake", f"no 'ready' within {spec.handshake_ms} ms")
            seat.handshake_ms = (time.perf_counter() - started) * 1000
        except AgentFault as fault:
            self.forfeit(seat, fault, "handshake")
            await seat.process.kill()

    async def ask(self, seat: Seat, decision_id: int, message: dict[str, Any], options: int) -> int | None:
        """One decision from ``seat``'s agent under its clock; None when it faulted (forfeit)."""
        spec = self.spec
        started = time.perf_counter()
        try:
            with trio.move_on_after((spec.move_ms + seat.bank_ms) / 1000) as scope:
                await seat.process.send(message)
                reply = await seat.process.receive()
            if scope.cancelled_caught:
                raise AgentFault(
                    "timeout", f"no answer within {spec.move_ms} ms + {seat.bank_ms:.0f} ms bank"
                )
            kind = check_message(reply, AGENT_MESSAGES)
            if kind == "error":
                raise AgentFault("error", reply["message"][:300])
            if kind != "act":
                raise ProtocolError("unknown-type", f"expected 'act', got {kind!r}")
            if reply["id"] != decision_id:
                raise ProtocolError(
                    "wrong-id", f"act id {reply['id']} answers no pending decision (expected {decision_id})"
                )
            choice = reply["choice"]
            if not 0 <= choice < options:
                raise ProtocolError("illegal-choice", f"choice {choice} is not in 0..{options - 1}")
        except AgentFault as fault:
            self.forfeit(seat, fault, "move")
            await seat.process.kill()
            return None
        elapsed = (time.perf_counter() - started) * 1000
        seat.bank_ms = max(0.0, seat.bank_ms - max(0.0, elapsed - spec.move_ms))
        seat.times_ms.append(elapsed)
        return choice

    def decide_message(self, seat: Seat) -> tuple[int, dict[str, Any], int]:
        """(id, decide message, number of options) for ``seat``'s current decision."""
        index = seat.plan.seat
        decision = self.state.decision(index)
        self.next_id += 1
        message = {
            "type": "decide",
            "id": self.next_id,
            "obs": self.state.observation(index),
            "kind": decision.kind,
            "prompt": decision.prompt,
            "options": list(decision.options),
            "clock": {"move_ms": self.spec.move_ms, "bank_ms_left": int(seat.bank_ms)},
        }
        return self.next_id, message, len(decision.options)

    async def play_turn(self, to_act: tuple[int, ...]) -> None:
        """Get a choice from every seat in ``to_act`` (concurrently when several), then apply them."""
        for index in to_act:
            if index >= len(self.seats):
                raise RuntimeError(f"engine asked seat {index}, which is no agent seat (automaton?)")
        asked = [self.seats[i] for i in to_act if self.seats[i].fault is None]
        questions = {seat.plan.seat: self.decide_message(seat) for seat in asked}
        answers: dict[int, tuple[int | None, float]] = {}

        async def one(seat: Seat) -> None:
            started = time.perf_counter()
            decision_id, message, options = questions[seat.plan.seat]
            choice = await self.ask(seat, decision_id, message, options)
            answers[seat.plan.seat] = (choice, (time.perf_counter() - started) * 1000)

        if len(asked) == 1:
            await one(asked[0])
        elif asked:
            async with trio.open_nursery() as nursery:
                for seat in asked:
                    nursery.start_soon(one, seat)
        for index in to_act:  # applied in seat order, whoever answered first
            choice, ms = answers.get(index, (None, 0.0))
            by = "agent"
            if choice is None:
                choice, by = random_choice(self.state, index, self.rng), "random"
            self.state.apply(index, choice)
            self.moves.append({"seat": index, "choice": choice, "ms": round(ms, 3), "by": by})

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
        record = build_record(
            spec,
            self.game,
            [
                {
                    "seat": seat.plan.seat,
                    "agent": seat.plan.agent,
                    "kind": seat.plan.kind,
                    "name": seat.name,
                    "version": seat.version if seat.version != "?" else seat.plan.version,
                    "handshake_ms": None if seat.handshake_ms is None else round(seat.handshake_ms, 3),
                    "stderr": seat.process.stderr_text(),
                }
                for seat in self.seats
            ],
            self.moves,
            [seat.fault for seat in self.seats if seat.fault],
            result,
            ranks,
            started=started,
            duration_ms=(time.time() - started) * 1000,
        )
        names = [seat.plan.agent for seat in self.seats] + ([spec.automaton] if spec.automaton else [])
        faults = {seat.plan.seat: seat.fault["fault"] for seat in self.seats if seat.fault}
        seats = tuple(
            SeatResult(index, names[index], result.scores[index], ranks[index], faults.get(index))
            for index in range(len(result.scores))
        )
        return MatchOutcome(spec=spec, seats=seats, record=record)


async def play_match(spec: MatchSpec, registry: Registry) -> MatchOutcome:
    """Play one match through agent subprocesses; raises MatchSetupError if it cannot start."""
    game, state, _ = setup_state(spec, registry)
    plans = [plan_seat(seat, name, registry, game.id) for seat, name in enumerate(spec.agents)]
    if spec.agent_options and len(spec.agent_options) != len(spec.agents):
        raise MatchSetupError(
            f"agent_options has {len(spec.agent_options)} entries for {len(spec.agents)} agents"
        )
    return await Match(spec, game, state, plans).run()


class Terminated(Exception):
    """The referee's process received SIGTERM: the match was stopped and its agents killed."""

    def __init__(self, message: str = "terminated by SIGTERM; every agent process was stopped") -> None:
        super().__init__(message)


async def _play_unless_terminated(spec: MatchSpec, registry: Registry) -> MatchOutcome:
    """``play_match``, cancelled cleanly (every agent killed) if the process gets SIGTERM."""
    if threading.current_thread() is not threading.main_thread():
        return await play_match(spec, registry)  # signals can only be caught in the main thread
    async with trio.open_nursery() as nursery:

        async def watch() -> None:
            with trio.open_signal_receiver(signal.SIGTERM) as signals:
                async for _ in signals:
                    raise Terminated()

        nursery.start_soon(watch)
        outcome = await play_match(spec, registry)
        nursery.cancel_scope.cancel()
    return outcome


def _single(group: BaseExceptionGroup) -> BaseException:
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


def run_match(spec: MatchSpec, registry: Registry | None = None) -> MatchOutcome:
    """Synchronous ``play_match`` (runs trio); discovers the plugins when ``registry`` is None.

    Ctrl-C raises KeyboardInterrupt and SIGTERM raises Terminated, both after every agent
    process was killed.
    """
    if registry is None:
        try:
            registry = discover()
        except PluginError as error:
            raise MatchSetupError(str(error)) from None
    try:
        return trio.run(_play_unless_terminated, spec, registry)
    except BaseExceptionGroup as group:
        error = _single(group)
        if error is group:
            raise
        raise error from group

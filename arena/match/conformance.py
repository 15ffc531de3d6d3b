"""``arena check``: a conformance run for bot authors.

A few short matches against ``random``, in every seat count the agent claims and in every seat
position, then a report: handshake time, per-move time (median and worst), protocol errors and
forfeits with their cause, and a verdict.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field

from arena.match.lineup import MatchSetupError, resolve_agent
from arena.match.spec import MatchOutcome, MatchSpec
from arena.registry.plugins import Registry

# fault -> (what the protocol expected instead, the section of the docs that says so)
EXPECTED: dict[str, tuple[str, str]] = {
    "spawn": ("an executable file the referee can start (chmod +x; a #! line for a script)", "docs/protocol.md#running-your-bot"),
    "handshake": ("a `ready` frame answering `hello` within the handshake clock (10 s): load models before it", "docs/protocol.md#clocks"),
    "crash": ("the bot keeps running until the `end` message, then exits with status 0", "docs/protocol.md#faults"),
    "exit": ("the bot keeps reading stdin until the `end` message; exit only after it", "docs/protocol.md#messages"),
    "timeout": ("an `act` within `move_ms`, or within `move_ms` plus the bank left", "docs/protocol.md#clocks"),
    "bad-frame": ("one msgpack map per frame, string keys, exactly the message's fields (`act`: type, id, choice)", "docs/protocol.md#frames"),
    "oversized-frame": ("a 4-byte big-endian length, then that many bytes of msgpack; nothing else on stdout (print to stderr)", "docs/protocol.md#frames"),
    "wrong-id": ("an `act` echoing the `id` of the `decide` it answers", "docs/protocol.md#bot--referee"),
    "unknown-type": ("`ready` after `hello`, `act` after `decide`, or `error` to give up", "docs/protocol.md#bot--referee"),
    "illegal-choice": ("`choice` is an index into the decision's `options`: 0 .. len(options) - 1", "docs/protocol.md#bot--referee"),
    "error": ("no `error` message: the bot gave up (its message, or its stderr, says why)", "docs/protocol.md#bot--referee"),
}  # fmt: skip


@dataclass(frozen=True)
class Problem:
    """One forfeit of the checked agent: which match, which seat, which fault and why."""

    game: str
    players: int
    seat: int
    fault: str
    detail: str
    stderr_tail: str
    phase: str = "move"
    move: int = 0

    def advice_lines(self, first_of_its_kind: bool) -> list[str]:
        """What was seen; for the first problem of each fault, what was expected and where the docs say so."""
        where = "before `ready`" if self.phase == "handshake" else f"at move {self.move + 1} of the match"
        lines = [f"    seen:     {self.detail} ({where})"]
        if first_of_its_kind:
            expected, docs = EXPECTED.get(
                self.fault, ("see the fault's description", "docs/protocol.md#faults")
            )
            lines += [f"    expected: {expected}", f"    docs:     {docs}"]
        return lines


@dataclass
class CheckReport:
    """What ``arena check`` found over all its matches."""

    agent: str
    matches: int = 0
    handshake_ms: list[float] = field(default_factory=list)
    move_ms: list[float] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.matches > 0 and not self.problems

    def add(self, outcome: MatchOutcome, seat: int) -> None:
        """Account for one finished match in which the checked agent played ``seat``."""
        self.matches += 1
        record = outcome.record
        mine = {seat}
        for entry in record["agents"]:
            if entry["seat"] in mine and entry["handshake_ms"] is not None:
                self.handshake_ms.append(entry["handshake_ms"])
        self.move_ms += [m["ms"] for m in record["moves"] if m["seat"] in mine and m["by"] == "agent"]
        for fault in record["faults"]:
            if fault["seat"] in mine:
                lines = record["agents"][fault["seat"]]["stderr"].strip().splitlines()
                self.problems.append(
                    Problem(
                        record["game"],
                        record["players"],
                        fault["seat"],
                        fault["fault"],
                        fault["detail"],
                        "\n".join(lines[-5:]),
                        fault.get("phase", "move"),
                        fault.get("move", 0),
                    )
                )

    def summary_lines(self) -> list[str]:
        """The report as text lines, ending with the PASS/FAIL line."""
        lines = [f"matches played: {self.matches}"]
        if self.handshake_ms:
            lines.append(f"handshake: median {_ms(self.handshake_ms)}, worst {max(self.handshake_ms):.1f} ms")
        if self.move_ms:
            lines.append(
                f"per move: median {_ms(self.move_ms)}, worst {max(self.move_ms):.1f} ms"
                f" over {len(self.move_ms)} decisions"
            )
        advised: set[str] = set()
        for problem in self.problems:
            lines.append(
                f"FORFEIT {problem.game} {problem.players}p seat {problem.seat}: {problem.fault}: {problem.detail}"
            )
            lines += problem.advice_lines(problem.fault not in advised)
            advised.add(problem.fault)
            lines += [f"    stderr| {line}" for line in problem.stderr_tail.splitlines()]
        verdict = "PASS" if self.passed else "FAIL"
        lines.append(
            f"{verdict}: {self.agent} " + ("speaks the protocol cleanly" if self.passed else "forfeited")
        )
        return lines


def _ms(values: Sequence[float]) -> str:
    return f"{statistics.median(values):.2f} ms"


def check_specs(
    agent: str, registry: Registry, game_id: str | None = None, move_ms: int = 1000
) -> list[tuple[MatchSpec, int]]:
    """The matches of a conformance run, each with the agent's seat: every claimed seat count, every seat."""
    resolved = resolve_agent(agent, registry, game_id)
    claimed_games = () if isinstance(resolved, str) else resolved.games
    claimed_players = () if isinstance(resolved, str) else resolved.players
    if game_id is not None:
        game_ids = [game_id]
        registry.game(game_id)
    else:
        game_ids = [g for g in sorted(registry.games) if not claimed_games or g in claimed_games]
    if not game_ids:
        raise MatchSetupError(f"agent {agent!r} claims games {list(claimed_games)}, none of them installed")
    specs: list[tuple[MatchSpec, int]] = []
    for gid in game_ids:
        game = registry.game(gid)
        counts = claimed_players or tuple(range(game.min_players, game.max_players + 1))
        for players in counts:
            automaton = game.automata[0] if players == 1 and game.automata else None
            for seat in range(players):
                agents = tuple(agent if i == seat else "random" for i in range(players))
                spec = MatchSpec(
                    game=gid, agents=agents, seed=1000 + len(specs), automaton=automaton, move_ms=move_ms
                )
                specs.append((spec, seat))
    return specs

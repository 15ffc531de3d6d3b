"""What a match is asked to be (MatchSpec) and what it came to (MatchOutcome).

Shared by the referee (plays one), the scheduler (makes them) and the runner and store (run and
keep them). Specs are plain data so they pickle to worker processes and serialise to SQLite.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from arena.process.cgroups import DEFAULT_CPUS

# A person at the table (arena/match/human.py); here, where every command can read them without trio.
HUMAN = "human"  # the agent name that seats a person (`arena play --agent human`)
HUMAN_VERSION = "1"  # the version a human seat gives in its ``ready``
DEFAULT_HUMAN_CLOCK_S = 300  # a person's clock per decision (`--human-clock`)


def table_seats(agents: Sequence[str], automaton: str | None) -> tuple[str, ...]:
    """Every seat of a table in seat order: the agents' seats, then the automaton's seat, if any.

    The one place that adds the automaton's seat to the agents' (the hello's player count, the
    record, the report and the web pages all count seats this way).
    """
    return tuple(agents) + ((automaton,) if automaton else ())


@dataclass(frozen=True)
class MatchSpec:
    """One match to play.

    ``agents`` holds one entry per agent seat, in seat order: a plugin agent's name or a path to
    an executable speaking the wire protocol. An ``automaton`` (e.g. "teotibot") takes the seat
    after them and is played by the engine.
    """

    game: str
    agents: tuple[str, ...]
    seed: int
    options: dict[str, Any] = field(default_factory=dict)
    automaton: str | None = None
    agent_options: tuple[dict[str, Any], ...] = ()  # per agent seat; empty = none
    display_names: tuple[str, ...] = ()  # per agent seat, e.g. the ladder's names; empty = ``agents``
    move_ms: int = 1000  # per-decision clock
    bank_ms: int = 60_000  # per-game time bank drawn on once a move overruns move_ms
    # Memory of an agent as a whole (its cgroup; None: DEFAULT_MEMORY_MB there) and address space
    # per agent process (None: none; a default would stop runtimes that reserve much, e.g. Java).
    memory_mb: int | None = None
    cpu_seconds: int | None = None  # CPU-time limit per agent process
    cpus: int = DEFAULT_CPUS  # cores' worth of CPU time an agent may use at once (its cgroup's quota)
    ponder: bool = False  # may an agent run while not deciding? (else it is frozen between decisions)
    handshake_ms: int = 10_000  # time from spawn to the agent's `ready` (Python startup included)
    sandbox: str | None = None  # "bwrap" or "none" (arena/process/sandbox.py); None: the strongest available

    @property
    def players(self) -> int:
        """Agent seats (the automaton seat, if any, is not counted)."""
        return len(self.agents)

    @property
    def table_size(self) -> int:
        """Every seat of the table: the agents' plus the automaton's, if any."""
        return len(table_seats(self.agents, self.automaton))

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["agents"] = list(self.agents)
        data["agent_options"] = [dict(o) for o in self.agent_options]
        data["display_names"] = list(self.display_names)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MatchSpec:
        data = dict(data)
        data["agents"] = tuple(data["agents"])
        data["agent_options"] = tuple(dict(o) for o in data.get("agent_options", ()))
        data["display_names"] = tuple(data.get("display_names", ()))  # absent in older stores
        return cls(**data)


@dataclass(frozen=True)
class SeatResult:
    """One seat's line in a finished match; ``fault`` is None unless the seat forfeited."""

    seat: int
    agent: str
    score: int
    rank: int
    fault: str | None = None


@dataclass(frozen=True)
class MatchOutcome:
    """A finished match: one SeatResult per seat (automaton included) and the full record."""

    spec: MatchSpec
    seats: tuple[SeatResult, ...]
    record: dict[str, Any]

"""The store's interface: what a tournament store saves and loads, as types, and nothing it decides.

A store keeps ladder runs, their matches (pending, running, done, aborted), each match's seats
and its record. Everything about what to store is decided before it is called: the planner
(arena/tournament/plan/) builds the schedule, grows a run, draws a secret seed and hands over the
rows; the runner (arena/tournament/run/) reports how each match went. ``TournamentStore`` is the
whole interface; arena/tournament/store/sqlite.py is the embedded implementation and
arena/tournament/store/postgres.py the server one, both over the queries of base.py; open either
with ``open_store`` (arena/tournament/store/opening.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

from arena.match.spec import MatchOutcome, MatchSpec

DEFAULT_DB = "tlachtli.db"
STATUSES = ("pending", "running", "done", "aborted")

# What to do about a damaged store, appended to every message about one.
DAMAGED_HINT = "; `arena doctor DB` lists every problem; restore the file from a backup or use another --db"


class StoreError(RuntimeError):
    """A database that cannot be used as asked (newer schema, edited ladder, unknown ladder)."""


class DatabaseError(StoreError):
    """The database failed or refused a command: a damaged or unreadable SQLite file, a PostgreSQL
    server that is down, went away or refused a query. Each store turns its driver's errors
    (sqlite3.Error, psycopg.Error) into this at its boundary, so that no caller outside the store
    names a driver: ``except StoreError`` covers every backend, with one line to show."""


class AlreadyStored(StoreError):
    """A match's outcome arrived after another one was stored (on a shared store: a runner whose
    lease ran out while it played, and another runner played the match again)."""


class DiskFullError(StoreError):
    """The disk holding the database is full: nothing is damaged, a write was refused."""

    def __init__(self, path: str, error: BaseException) -> None:
        super().__init__(
            f"the disk holding {path} is full ({error}); free some space there and run the same command "
            "again (what was stored is kept)"
        )


@dataclass(frozen=True)
class LadderRun:
    """One run of a ladder stored in the database."""

    id: int
    name: str
    digest: str
    game: str
    format: str
    source: str
    created: str
    base_seed: int | None = None  # the base seed the schedule was made from (None: older database)
    secret: bool = False  # the base seed was drawn at random and must never be shown


@dataclass(frozen=True)
class NewRun:
    """A run as the planner hands it to the store to be created (arena/tournament/plan/runs.py)."""

    name: str
    digest: str
    game: str
    format: str
    source: str
    config: str  # the validated ladder with its roster, as JSON text (kept as given)
    base_seed: int
    secret: bool


@dataclass(frozen=True)
class StoredSeat:
    """One seat's result as stored."""

    seat: int
    agent: str
    plugin: str
    score: int
    rank: int
    fault: str | None


@dataclass(frozen=True)
class StoredMatch:
    """A stored match with its seats (empty until it is done)."""

    id: int
    ladder_id: int
    idx: int
    key: str
    seed: int
    status: str
    attempts: int
    seconds: float | None
    spec: MatchSpec
    entrants: tuple[str, ...]
    seats: tuple[StoredSeat, ...]
    failures: int = 0
    reason: str | None = None  # why it was aborted


# -- what the read queries return (arena/tournament/store/reads.py)


@dataclass(frozen=True)
class RunProgress:
    """How far a ladder run is: matches per status and the time of its last activity."""

    counts: dict[str, int]  # status -> matches (statuses without any are absent)
    last: str | None  # the latest start or finish (ISO text), None before any


class DoneSeat(NamedTuple):
    """One seat of a done match as the ratings read it (a tuple: a season reads millions)."""

    agent: str
    score: int
    rank: int
    fault: str | None


@dataclass(frozen=True)
class DoneMatch:
    """A done match's seats in seat order, with its place in the schedule and its seed (deal)."""

    id: int
    idx: int
    seed: int
    seats: tuple[DoneSeat, ...]


@dataclass(frozen=True)
class AgentSeatStats:
    """An agent's done matches in one seat of one ladder run."""

    ladder_id: int
    seat: int
    matches: int
    wins: int  # first place without a fault
    mean_score: float
    faults: int


@dataclass(frozen=True)
class FaultSeat:
    """A seat that forfeited in a done match."""

    agent: str
    fault: str
    match_id: int
    idx: int
    seat: int


@dataclass(frozen=True)
class MatchFilter:
    """Which of a run's matches a list shows: played by ``agent``, with a fault (``fault``: its
    kind, or "any"), dealt ``seed``; None: any."""

    agent: str | None = None
    fault: str | None = None
    seed: int | None = None


@dataclass(frozen=True)
class SeasonEvent:
    """One entry of a season's log (arena/tournament/run/season.py): what changed its field or
    its ratings, in order. ``at`` is how many of the run's matches were scheduled before it, so
    a replay interleaves the log with the scheduled matches exactly as they happened."""

    seq: int
    at: int
    kind: str  # start, join, withdraw, record, final, end
    data: dict[str, Any]


class MatchToStore(Protocol):
    """A scheduled match as the store takes it (the planner's ScheduledMatch is one)."""

    @property
    def index(self) -> int:
        """Its place in schedule order."""

    @property
    def key(self) -> str:
        """Its stable human-readable id."""

    @property
    def entrants(self) -> tuple[str, ...]:
        """The display names of the agent seats, in seat order."""

    @property
    def spec(self) -> MatchSpec:
        """What the match is asked to be."""


class StoreReader(Protocol):
    """What the pages and reports read from a store (arena/tournament/store/reads.py holds the
    queries, shared by every backend), besides the loads of ``TournamentStore``."""

    path: str

    def runs(self) -> list[LadderRun]:
        """Every run, oldest first."""

    def config(self, run_id: int) -> dict[str, Any]:
        """A run's stored config."""

    def counts(self, run_id: int) -> dict[str, int]:
        """How many of the run's matches are in each status."""

    def match(self, match_id: int) -> StoredMatch | None:
        """One match by its id, with its seats."""

    def record(self, match_id: int) -> dict[str, Any] | None:
        """The record of a done match."""

    def snapshot(self) -> AbstractContextManager[None]:
        """One read transaction: the reads inside it see one state of the store."""

    def progress(self, run_id: int) -> RunProgress:
        """A run's matches per status and its last activity."""

    def progress_by_run(self) -> dict[int, RunProgress]:
        """``progress`` of every run that holds a match."""

    def running(self, run_id: int, limit: int) -> list[tuple[int, str]]:
        """The (id, key) of the run's first ``limit`` running matches."""

    def unplayed_from(self, run_id: int) -> int | None:
        """The index of the run's first match still pending or running (None: none is)."""

    def done_matches(self, run_id: int, after: int = -1, upto: int | None = None) -> Iterator[DoneMatch]:
        """The run's done matches with ``after`` < index (<= ``upto``), in schedule order."""

    def bot_match_count(self, bot: str) -> int:
        """How many finished matches submitted bot ``bot`` played, any version."""

    def bot_match_ids(self, bot: str, limit: int, offset: int = 0) -> list[int]:
        """One page of the ids of ``bot``'s finished matches (any version), latest first."""

    def fault_seats(self, run_id: int) -> list[FaultSeat]:
        """Every seat that forfeited in the run's done matches, in schedule order."""

    def seats_played(self, run_id: int, agents: Sequence[str]) -> dict[str, int]:
        """How many seats each of ``agents`` had in the run's done matches."""

    def count_matches(self, run_id: int, chosen: MatchFilter = MatchFilter()) -> int:
        """How many of the run's matches ``chosen`` lets through."""

    def match_ids(self, run_id: int, chosen: MatchFilter, limit: int, offset: int = 0) -> list[int]:
        """One page of the run's match ids ``chosen`` lets through, in schedule order."""

    def agent_seats(self, name: str) -> list[AgentSeatStats]:
        """An agent's done matches by ladder run and seat."""

    def agent_match_count(self, name: str) -> int:
        """How many matches seat ``name``."""

    def agent_match_ids(self, name: str, limit: int, offset: int = 0) -> list[int]:
        """One page of the ids of the matches seating ``name``, latest first."""

    def agent_plugins(self, name: str) -> list[str]:
        """What played the seats of ``name``, sorted."""

    def done_seconds(self) -> list[float]:
        """How long each done match took to play (seconds), where measured."""

    def record_sizes(self) -> list[int]:
        """The stored size of every match record, in bytes."""


class TournamentStore(StoreReader, Protocol):
    """A tournament store: saves and loads runs, matches, seats and records; decides nothing."""

    path: str  # where it is, for messages
    exclusive: bool  # True: one writer at a time (SQLite); False: several runners share it (PostgreSQL)

    def close(self) -> None:
        """Close it (and give up the writer claim, if any)."""

    def claim_writer(self) -> None:
        """Make this process the only runner writing it, until ``close``; StoreError if taken."""

    def planning(self) -> AbstractContextManager[None]:
        """Hold other writers off while a run is settled (created or grown)."""

    def heartbeat(self) -> None:
        """Renew this runner's lease on the matches it claimed (cheap to call often)."""

    def make_room(self) -> None:
        """Give back the space held for the last writes once the disk is full."""

    # -- runs
    def latest_run(self, name: str | None = None) -> LadderRun | None:
        """The most recent run of ladder ``name`` (of any ladder when None)."""

    def runs(self) -> list[LadderRun]:
        """Every run, oldest first."""

    def config(self, run_id: int) -> dict[str, Any]:
        """A run's stored config: the validated ladder with its roster."""

    def create_run(self, run: NewRun, matches: Iterable[MatchToStore]) -> LadderRun:
        """Store a new run with its first matches, all pending."""

    def update_run(
        self,
        run_id: int,
        *,
        digest: str,
        source: str,
        config: str,
        retired: Iterable[str],
        matches: Iterable[MatchToStore],
    ) -> None:
        """Rewrite a run's file digest, source and config; drop the pending matches of the
        ``retired`` entrants; add ``matches``. One transaction."""

    def held_matches(self, run_id: int) -> list[tuple[str, list[str]]]:
        """The (key, entrants) of every match of the run, any status."""

    def next_index(self, run_id: int) -> int:
        """The schedule index after the run's last match (0 for an empty run)."""

    def add_matches(self, run_id: int, schedule: Sequence[MatchToStore]) -> int:
        """Add the matches the run does not hold yet (by index); how many were added."""

    # -- matches
    def reset_interrupted(self, run_id: int) -> int:
        """Put the matches an interrupted run left running back to pending; how many (a shared
        store: only those whose runner's lease ran out)."""

    def pending(self, run_id: int) -> list[StoredMatch]:
        """The run's matches not yet done, in schedule order."""

    def mark_running(self, match_id: int) -> bool:
        """Claim a pending match for this runner (handed to a worker); False if it was not pending."""

    def mark_pending(self, match_ids: Iterable[int]) -> None:
        """Put running matches back to pending (their run was cancelled)."""

    def record_lost_worker(self, match_id: int, reason: str, max_failures: int, times: int = 1) -> bool:
        """Count lost workers against a running match; True if it is now aborted."""

    def count_recovered_losses(self, match_id: int, times: int) -> None:
        """Count lost workers against a match that was played elsewhere after all."""

    def take_back(self, match_ids: Iterable[int]) -> None:
        """Forget done matches' results and put them back to pending, to be played again."""

    def record_outcome(self, match: StoredMatch, outcome: MatchOutcome, seconds: float | None = None) -> None:
        """Commit a finished match: its seats, its record and status 'done', atomically."""

    def matches(
        self,
        run_id: int,
        statuses: Sequence[str] = STATUSES,
        agent: str | None = None,
        faults_only: bool = False,
    ) -> list[StoredMatch]:
        """The run's matches in schedule order, optionally only ``agent``'s or those with a fault."""

    def match(self, match_id: int) -> StoredMatch | None:
        """One match by its id, with its seats."""

    def record(self, match_id: int) -> dict[str, Any] | None:
        """The record of a done match."""

    def record_at(self, run_id: int, idx: int) -> dict[str, Any] | None:
        """The record of match number ``idx`` (schedule order) of a run, if it was played."""

    def counts(self, run_id: int) -> dict[str, int]:
        """How many of the run's matches are in each status."""

    # -- seasons (a ladder that runs as a service: arena/tournament/run/season.py)
    def add_season_event(self, run_id: int, at: int, kind: str, data: dict[str, Any]) -> None:
        """Append one entry to the run's season log."""

    def season_events(self, run_id: int) -> list[SeasonEvent]:
        """The run's season log, oldest first."""

    def save_season_state(self, run_id: int, state: dict[str, Any]) -> None:
        """Replace the season's live state (what `arena season status` and the web show)."""

    def season_state(self, run_id: int) -> dict[str, Any] | None:
        """The season's live state as last saved, or None."""

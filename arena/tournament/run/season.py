"""A season as a running service: matches drawn one at a time, played until it is stopped.

``run_season`` opens (or resumes) a season ladder's run, rebuilds its matchmaker by replaying the
season's log (arena/tournament/plan/season.py), and plays: whenever a worker is free it asks the
matchmaker for the next group, stores that match (pending) and hands it out; each result is
stored like any ladder's (so the leaderboard, export and web see it) and then logged and rated.
A kill -9 at any moment loses only the matches in flight: the next start replays the log, plays
them again, and goes on as if it had never stopped.

While it plays, it re-reads the ladder file and the ladder's active submissions every few
seconds: new entrants and new versions join (a new version inherits its predecessor's rating
mean), removed or withdrawn ones leave. It is stopped by SIGINT/SIGTERM or by the stop file
(`arena season stop`); `arena season final` (or the ladder's ``final_at``) begins the final
phase, which ends the season once the top K are separated or its budget is spent.

The service writes its live state (``save_season_state``) every few seconds: the numbers
`arena season status` and the web's season page show. Local worker processes only: a Dask
cluster plays a fixed list of matches per call (arena/tournament/run/cluster.py), not a stream.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from arena.match.live import live_file, remove_live_folder, remove_quietly, tournament_live_folder
from arena.tournament.plan.growth import GrowthError, RosterEntry, config_json, plan_growth
from arena.tournament.plan.ladder import Ladder
from arena.tournament.plan.runs import open_run
from arena.tournament.plan.season import policy_data, replay, season_match, unrecorded
from arena.tournament.plan.season_keys import SeasonSettings, season_settings
from arena.tournament.plan.season_table import published_ratings
from arena.tournament.run.replies import Done, Failed, Lost, Recovered, Reply, Stop
from arena.tournament.run.runner import MAX_FAILURES, RunReport, _Pool, _Stop, _store_reply, default_jobs
from arena.tournament.store.api import LadderRun, SeasonEvent, StoredMatch, StoreError, TournamentStore
from arena.tournament.store.opening import data_folder, is_url

POLL_S = 0.25  # how often the loop looks at signals, the stop file and the workers
STATE_EVERY_S = 5.0  # how often the live state is saved
RELOAD_EVERY_S = 3.0  # how often the ladder file and the submissions are read again
FINAL_CHECK_EVERY_S = 20.0  # how often the final phase's stop rule is fitted (an MLE over all games)
HISTORY_LIMIT = 240  # samples of (time, matches done) kept for the web's chart


def control_file(db: str, run_id: int, what: str) -> Path:
    """The file beside the database that asks the season of run ``run_id`` to ``stop`` or begin
    its ``final`` phase (`arena season stop|final` write it; the service removes it); for a
    PostgreSQL store, in its data folder (TLACHTLI_DATA)."""
    if is_url(db):
        return data_folder(db) / f"season-{run_id}.{what}"
    return Path(f"{db}.season-{run_id}.{what}")


@dataclass
class SeasonReport:
    """What one ``run_season`` call did."""

    run: LadderRun | None = None
    played: int = 0
    aborted: int = 0
    ended: str | None = None  # why the season ended (its final phase settled), if it did
    signal: int | None = None
    errors: list[str] = field(default_factory=list)


class SeasonService:
    """One running season: its store, its book, its workers and its clock."""

    def __init__(
        self,
        store: TournamentStore,
        load: Callable[[], Ladder],
        jobs: int | None,
        say: Callable[[str], None],
    ) -> None:
        self.store = store
        self.load = load
        self.say = say
        self.ladder = load()
        self.settings: SeasonSettings = season_settings(self.ladder.season, self.ladder.players)
        self.jobs = jobs or self.ladder.concurrency or default_jobs()
        self.report = SeasonReport()
        self.finished: deque[float] = deque()  # wall times of the results of the last minutes
        self.history: list[tuple[str, int]] = []
        self.queue: list[StoredMatch] = []
        self.in_flight: dict[int, StoredMatch] = {}
        self.pool: _Pool | None = None
        self.started = datetime.now(UTC).isoformat(timespec="seconds")
        self.began = time.time()
        self.warned: set[str] = set()
        self.stillborn = 0  # workers in a row that died before starting their match
        self.rated = 0  # results rated since this start

    # -- opening ----------------------------------------------------------------------------

    def open(self) -> None:
        """Claim the store, settle the run and rebuild the book from its log."""
        self.store.claim_writer()  # before any write: two services of one season would play it twice
        if self.store.latest_run(self.ladder.name) is None:
            open_run(self.store, self.ladder)
        self.run, roster = grow_season(self.store, self.ladder)
        self.report.run = self.run
        events = self.store.season_events(self.run.id)
        if not events:
            seed = self.run.base_seed if self.run.base_seed is not None else self.ladder.seed
            self.log("start", {"policy": policy_data(self.settings.policy), "seed": seed})
            events = self.store.season_events(self.run.id)
        elif events[0].data["policy"] != policy_data(self.settings.policy):
            self.warn("the [season] knobs changed in the file: a season keeps those it started with")
        matches = self.store.matches(self.run.id)
        self.book = replay(events, matches)
        for match in unrecorded(self.book, matches):  # stored, then killed before it was logged
            self.rate(match)
        self.previous = self.store.season_state(self.run.id) or {}
        self.sync(roster)
        self.store.reset_interrupted(self.run.id)
        self.queue = self.store.pending(self.run.id)

    def log(self, kind: str, data: dict[str, Any]) -> None:
        """Append an entry to the season's log at the matchmaker's clock now."""
        at = self.book.scheduled if kind != "start" else 0
        self.store.add_season_event(self.run.id, at, kind, data)

    def warn(self, line: str) -> None:
        """Say a warning once (the file is read again every few seconds)."""
        if line not in self.warned:
            self.warned.add(line)
            self.say(f"warning: {line}")

    # -- the field ------------------------------------------------------------------------------

    def sync(self, roster: list[RosterEntry]) -> None:
        """Join the roster's active entrants the book lacks; withdraw those it no longer lists."""
        listed = {entry.name: entry for entry in roster if entry.active}
        playing = set(self.book.playing())
        locked: set[str] = set()  # the final phase: a new version waits, its predecessor plays on
        for name, entry in listed.items():
            if name in playing:
                continue
            if self.book.final:
                locked.add(entry.inherits or "")
                self.warn(f"the final phase has begun: {name} does not join (submissions are locked)")
                continue
            self.log("join", {"name": name, "inherits": entry.inherits})
            self.book.apply(
                self.book_event("join", {"name": name, "inherits": entry.inherits}), lambda i: None
            )
            self.say(f"joined: {name}" + (f" (inherits {entry.inherits}'s rating)" if entry.inherits else ""))
        for name in sorted(playing - set(listed) - locked):
            self.log("withdraw", {"name": name})
            self.book.apply(self.book_event("withdraw", {"name": name}), lambda i: None)
            self.say(f"withdrawn: {name}")
        self.roster = {entry.name: entry for entry in roster}

    def book_event(self, kind: str, data: dict[str, Any]) -> SeasonEvent:
        """A log entry as the book applies it (the stored one is written by ``log``)."""
        return SeasonEvent(0, self.book.scheduled, kind, data)

    def reload(self) -> None:
        """Read the ladder file and the submissions again; grow the run to them."""
        try:
            ladder = self.load()
        except Exception as error:  # a file being edited, a bad edit: the season plays on
            self.warn(f"the ladder was not read again ({error}); the season plays on as it was")
            return
        if ladder.digest == self.ladder.digest and ladder.entrants == self.ladder.entrants:
            return
        try:
            _, roster = grow_season(self.store, ladder)
        except StoreError as error:
            self.warn(f"{error}; the season plays on as it was")
            return
        self.ladder = ladder
        self.sync(roster)
        try:
            self.settings = season_settings(ladder.season, ladder.players)  # a new final_at holds
        except ValueError:
            return  # the ladder file's validation refused it already
        if self.settings.policy != self.book.maker.policy:
            self.warn("the [season] knobs changed in the file: a season keeps those it started with")

    # -- scheduling -------------------------------------------------------------------------------

    def fill(self) -> None:
        """Hand matches to every free worker: the stored pending ones first, then new groups."""
        assert self.pool is not None
        while self.pool.has_room():
            if self.queue:
                match = self.queue.pop(0)
            else:
                found = self.schedule()
                if found is None:
                    return
                match = found
            self.store.mark_running(match.id)
            self.in_flight[match.id] = match
            self.pool.hand(match)

    def schedule(self) -> StoredMatch | None:
        """Draw the next group, store its match; None when the matchmaker has none."""
        group = self.book.next_group()
        if group is None:
            return None
        index = self.book.scheduled - 1
        scheduled = season_match(self.ladder, self.roster, group, index, self.seed)
        self.store.add_matches(self.run.id, [scheduled])
        stored = next(match for match in self.store.pending(self.run.id) if match.idx == index)
        return stored

    @property
    def seed(self) -> int:
        return self.run.base_seed if self.run.base_seed is not None else self.ladder.seed

    # -- results ------------------------------------------------------------------------------

    def collect(self, match: StoredMatch, reply: Reply) -> None:
        """Store one worker's reply; rate a result."""
        live = tournament_live_folder(self.store.path)
        if live is not None and not isinstance(reply, Recovered | Stop):
            remove_quietly(live_file(live, match.id))
        self.in_flight.pop(match.id, None)
        if isinstance(reply, Done):
            report = RunReport()
            if _store_reply(self.store, match, reply, report):
                stored = self.store.match(match.id)
                assert stored is not None
                self.rate(stored)
                self.report.played += 1
                self.finished.append(time.time())
                return
            reply = Failed("; ".join(report.errors))
        if isinstance(reply, Failed | Lost):
            began = not isinstance(reply, Lost) or reply.began
            reason = reply.error if isinstance(reply, Failed) else reply.reason
            if not began:  # died starting: not the match's fault, but a broken setup stops the season
                self.store.mark_pending([match.id])
                self.queue.insert(0, match)
                self.stillborn += 1
                if self.stillborn >= MAX_FAILURES * self.jobs:
                    self.report.errors.append(
                        f"{self.stillborn} worker processes in a row died before starting a match (last: "
                        f"{reason}); nothing was played by them, the season stopped"
                    )
                return
            self.stillborn = 0
            if self.store.record_lost_worker(match.id, reason, MAX_FAILURES):
                self.report.aborted += 1
                self.say(f"match {match.idx} aborted: {reason}")
            else:
                self.queue.insert(0, match)

    def rate(self, match: StoredMatch) -> None:
        """Log and rate a stored result; say who it suspended; a checkpoint now and then."""
        self.log("record", {"idx": match.idx})
        result = self.book.record(match)
        self.rated += 1
        if self.rated % self.settings.checkpoint_every == 0:
            self.log("checkpoint", self.book.checkpoint())
        for name, why in result.suspended.items():
            self.say(f"suspended: {name}: {why}")
        maker = self.book.maker
        if maker.final_top is not None and maker.final_played >= maker.policy.final_budget:
            self.maybe_end()  # the budget is spent: no fit needed to know

    # -- the final phase ----------------------------------------------------------------------

    def maybe_final(self) -> None:
        """Begin the final phase when asked or at ``final_at``."""
        if self.book.final:
            return
        asked = control_file(self.store.path, self.run.id, "final")
        due = self.settings.final_at is not None and datetime.now(UTC) >= self.settings.final_at
        if not (asked.exists() or due):
            return
        fits = published_ratings(self.store.matches(self.run.id, ("done",)))
        order = sorted(self.book.active(), key=lambda name: (-fits[name].elo if name in fits else 0.0, name))
        top = order[: self.book.maker.policy.final_top]
        self.log("final", {"top": top})
        self.book.apply(self.book_event("final", {"top": top}), lambda i: None)
        with contextlib.suppress(OSError):
            asked.unlink()
        self.say(f"final phase: submissions locked, no drift, settling {', '.join(top)}")

    def maybe_end(self) -> None:
        """End the season once the final phase's stop rule holds."""
        maker = self.book.maker
        if maker.final_top is None or self.book.ended is not None:
            return
        spent = maker.final_played >= maker.policy.final_budget
        fits = {} if spent else published_ratings(self.store.matches(self.run.id, ("done",)))
        order = sorted(maker.final_top, key=lambda name: (-fits[name].elo if name in fits else 0.0, name))
        if spent or maker.final_over(fits, order):
            why = (
                f"the final budget of {maker.policy.final_budget} games is spent"
                if spent
                else f"every adjacent pair of the top {len(order)} is separated"
            )
            self.log("end", {"why": why})
            self.book.ended = why
            self.report.ended = why
            self.say(f"the season is over: {why}")

    # -- the live state -----------------------------------------------------------------------------

    def state(self, status: str) -> dict[str, Any]:
        """What `arena season status` and the web show (saved every few seconds)."""
        now = time.time()
        while self.finished and self.finished[0] < now - 300:
            self.finished.popleft()
        counts = self.store.counts(self.run.id)
        stamp = datetime.now(UTC).isoformat(timespec="seconds")
        if not self.history or self.history[-1][0][:16] != stamp[:16]:  # one sample a minute
            self.history = [*self.history, (stamp, counts["done"])][-HISTORY_LIMIT:]
        maker, policy = self.book.maker, self.book.maker.policy
        clean = self.previous.get("status") in (None, "stopped", "finished")
        return {
            "pid": os.getpid(),
            "status": status,
            "phase": "over" if self.book.ended else "final" if self.book.final else "open",
            "started": self.started,
            "starts": self.previous.get("starts", 0) + 1,
            "restarts": self.previous.get("restarts", 0) + (0 if clean else 1),  # after a crash or kill
            "workers": self.jobs,
            "in_flight": len(self.in_flight),
            "queue": len(self.queue),
            "counts": counts,
            # over the last 5 minutes, or since this start if that is less
            "per_minute": round(60 * len(self.finished) / max(1.0, min(300.0, now - self.began)), 2),
            "history": [list(sample) for sample in self.history],
            "voided": self.book.voided,
            "playing": self.book.playing(),
            "placing": self.book.placing(),
            "suspended": dict(maker.suspended),
            "final_top": maker.final_top,
            "final_played": maker.final_played,
            "final_budget": policy.final_budget,
            "final_confidence": policy.final_confidence,
            "final_at": self.settings.final_at.isoformat() if self.settings.final_at else None,
            "ended": self.book.ended,
            "scheduled": self.book.scheduled,
            "fingerprint": self.book.fingerprint(),
        }

    def save(self, status: str) -> None:
        self.store.save_season_state(self.run.id, self.state(status))

    # -- the loop -----------------------------------------------------------------------------------

    def serve(self, stop: _Stop) -> None:
        """Play until stopped (signal or stop file) or until the season ends."""
        stop_file = control_file(self.store.path, self.run.id, "stop")
        with contextlib.suppress(OSError):
            stop_file.unlink()  # an old request is not this start's
        self.pool = _Pool(max(1, self.jobs), tournament_live_folder(self.store.path))
        self.save("running")
        next_state = next_reload = time.monotonic()
        next_final = time.monotonic() + FINAL_CHECK_EVERY_S
        while not stop.count and not stop_file.exists() and not self.report.errors:
            now = time.monotonic()
            if now >= next_reload:
                next_reload = now + RELOAD_EVERY_S
                self.reload()
                self.maybe_final()
            if now >= next_final:
                next_final = now + FINAL_CHECK_EVERY_S
                self.maybe_end()
            if self.book.ended is not None and not self.in_flight and not self.queue:
                break
            self.fill()
            for match, reply in self.pool.events(POLL_S):
                self.collect(match, reply)
            if now >= next_state:
                next_state = now + STATE_EVERY_S
                self.save("running")
        with contextlib.suppress(OSError):
            stop_file.unlink()

    def close(self, stop: _Stop) -> None:
        """Stop the workers (results that still arrive are stored), put back what was not played."""
        if self.pool is not None:
            self.pool.stop(
                stop, lambda match, reply: self.collect(match, reply) if not isinstance(reply, Stop) else None
            )
            self.pool.close()
        left = [match.id for match in self.in_flight.values()]
        if left:
            self.store.mark_pending(left)
        self.in_flight = {}
        self.queue = self.store.pending(self.run.id)
        live = tournament_live_folder(self.store.path)
        if live is not None:
            remove_live_folder(live)
        self.save("finished" if self.book.ended else "stopped")


def grow_season(store: TournamentStore, ladder: Ladder) -> tuple[LadderRun, list[RosterEntry]]:
    """Bring the season's stored roster up to ``ladder`` (its file and submissions now): new
    entrants and versions added, those no longer listed retired. Unlike a ladder's growth
    (arena/tournament/plan/runs.py: grow_run), a retired bot's pending matches are kept: each was
    drawn by the matchmaker, and a replay of the season's log needs every one. StoreError for an
    edit that would make the season's games incomparable."""
    run = store.latest_run(ladder.name)
    assert run is not None
    try:
        growth = plan_growth(store.config(run.id), ladder, (), 0, store.next_index(run.id))
    except GrowthError as error:
        raise StoreError(
            f"season {ladder.name!r} in {store.path}: {error}. Restore that, or start a new season under "
            "another name"
        ) from None
    if growth.changed or run.digest != ladder.digest:
        store.update_run(
            run.id,
            digest=ladder.digest,
            source=ladder.source,
            config=config_json(ladder, growth.roster),
            retired=(),
            matches=(),
        )
    return run, list(growth.roster)


def run_season(
    store: TournamentStore,
    load: Callable[[], Ladder],
    *,
    jobs: int | None = None,
    say: Callable[[str], None] = lambda line: None,
) -> SeasonReport:
    """Run the season of the ladder ``load`` reads (again, every few seconds) until it is stopped
    (SIGINT, SIGTERM, the stop file) or ends. StoreError when the store is held by another run."""
    service = SeasonService(store, load, jobs, say)
    stop = _Stop()
    with stop.installed():
        service.open()
        try:
            service.serve(stop)
        finally:
            service.close(stop)
    service.report.signal = stop.signum
    service.report.ended = service.book.ended
    return service.report

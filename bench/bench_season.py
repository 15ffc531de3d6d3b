"""A simulated season at scale: store size, insert throughput, page latencies, rating recomputation.

The season: BOTS bots (each with one to three versions, a new version inheriting its predecessor's
rating mean), matches of 2 to 4 seats drawn by a matchmaker that seats bots of similar strength,
results drawn from the bots' hidden strengths (Plackett-Luce: strength plus Gumbel noise, about 0.5%
of seats forfeiting). Every match is written through the store's own interface as `arena run`
writes it (``add_matches``, ``pending``, then ``mark_running`` and ``record_outcome`` per match),
each with a real record: a sample of matches is first played for real by the referee (random
agents, the same game), and each synthetic match stores one of them with its seat count.

Figures (each run prints them):
- store size per match and in all (the SQLite file, or a PostgreSQL store's tables by
  pg_total_relation_size; records' compressed bytes apart);
- insert throughput (matches/s) with 1, 4 and 16 writer processes at once, each its own run;
- latency p50 / p99 of the leaderboard page and its JSON, a bot's page, a match page, a replay
  step, the ladder list, a deep page of the match list, and `arena leaderboard` (a process);
  a writer adds a result every few requests, so the ladder view refreshes as it would live;
- the time to recompute every rating from the store (TrueSkill, MLE), and the server's warm-up.

`make bench` runs it small (BOTS bots, SMALL matches, in a temporary folder). A big run:
    python bench/bench_season.py build --db season.db --bots 1000 --matches 1000000 --keep-at 10000,100000
    python bench/bench_season.py measure --db season.db          (also on each season-10000.db kept)
    python bench/bench_season.py writers --db writers.db
``--db`` takes what ``open_store`` opens (a file; a server's URL where that backend is installed).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# BLAS threads spinning on a machine shared with other work slow the MLE fit several times over
# (Cholesky of 1,000 agents: 0.5 s against 0.02 s); set before numpy loads, for this process and
# the `arena leaderboard` it starts.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

BOTS = 40  # the small run's field
SMALL = 1500  # the small run's matches
GAME = "teotihuacan"
SAMPLE_PER_SIZE = 3  # real matches played per seat count for the records
CHUNK = 500  # matches added to the run at once (a season's matchmaker adds them as it goes)
NEIGHBOURS = 20  # a match seats bots within this many places of strength of its first seat
FAULT_RATE = 0.005
REQUESTS = 60  # timed requests per page
WRITE_EVERY = 5  # a result is stored before every this many ladder requests


def open_store(target: str) -> Any:
    """The store at ``target`` (a SQLite file, or a server's URL where that backend is installed):
    the one place this bench opens a store."""
    try:
        from arena.tournament.store.opening import open_store as opener
    except ImportError:  # a Tlachtli with the SQLite store only
        if "://" in target:
            raise SystemExit(f"error: this Tlachtli has no store for {target!r}; give --db a file") from None
        from arena.tournament.store.sqlite import Store

        return Store(target)
    return opener(target)


# -- the season ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SeasonMatch:
    """A match as the store takes it (``MatchToStore``)."""

    index: int
    key: str
    entrants: tuple[str, ...]
    spec: Any


class Season:
    """The bots, their versions and strengths, and the matchmaker's next match."""

    def __init__(self, bots: int, matches: int, seed: int | str) -> None:
        self.rng = random.Random(seed)
        self.names = [f"bot{i:04d}" for i in range(bots)]
        base = {name: self.rng.gauss(0, 1) for name in self.names}
        self.order = sorted(self.names, key=lambda name: base[name])  # the matchmaker's ladder
        # each bot: (match index from which a version plays, its display name, its strength)
        self.versions: dict[str, list[tuple[int, str, float]]] = {}
        for name in self.names:
            versions = [(0, name, base[name])]
            for number in range(2, 2 + self.rng.choice((0, 0, 1, 2))):
                versions.append(
                    (self.rng.randrange(matches), f"{name}@{number}", base[name] + self.rng.gauss(0.2, 0.3))
                )
            self.versions[name] = sorted(versions)
        self.strength = {shown: value for versions in self.versions.values() for _, shown, value in versions}

    def roster(self) -> list[dict[str, Any]]:
        """Every version as the stored config's roster has it (the latest active; later ones inherit)."""
        entries = []
        for name, versions in self.versions.items():
            for place, (_, shown, _) in enumerate(versions):
                entries.append(
                    {
                        "name": shown,
                        "base": name,
                        "agent": "random",
                        "options": {},
                        "version": str(place + 1),
                        "active": place == len(versions) - 1,
                        "inherits": versions[place - 1][1] if place else None,
                    }
                )
        return entries

    def playing(self, name: str, index: int) -> str:
        """The version of bot ``name`` that plays match ``index``."""
        shown = name
        for start, version, _ in self.versions[name]:
            if start <= index:
                shown = version
        return shown

    def match(self, index: int) -> SeasonMatch:
        from arena.match.spec import MatchSpec

        seats = self.rng.choice((2, 3, 4))
        anchor = self.rng.randrange(len(self.order))
        low, high = max(0, anchor - NEIGHBOURS), min(len(self.order), anchor + NEIGHBOURS + 1)
        bots = [
            self.order[anchor],
            *self.rng.sample(self.order[low:anchor] + self.order[anchor + 1 : high], seats - 1),
        ]
        self.rng.shuffle(bots)
        entrants = tuple(self.playing(name, index) for name in bots)
        seed = self.rng.getrandbits(63)
        spec = MatchSpec(GAME, ("random",) * seats, seed, display_names=entrants)
        return SeasonMatch(index, f"s{index}", entrants, spec)

    def outcome(self, match: Any, records: dict[int, list[dict[str, Any]]]) -> Any:
        """A Plackett-Luce result for a stored match, with a real record of its seat count."""
        from arena.match.spec import MatchOutcome, SeatResult

        utility = [self.strength[name] - math.log(-math.log(self.rng.random())) for name in match.entrants]
        faults = ["timeout" if self.rng.random() < FAULT_RATE else None for _ in utility]
        order = sorted(range(len(utility)), key=lambda seat: (faults[seat] is not None, -utility[seat]))
        ranks = {seat: place + 1 for place, seat in enumerate(order)}
        seats = tuple(
            SeatResult(seat, "random", max(0, round(60 + 12 * utility[seat])), ranks[seat], faults[seat])
            for seat in range(len(utility))
        )
        pool = records[len(utility)]
        return MatchOutcome(match.spec, seats, pool[match.idx % len(pool)])


def real_records(folder: Path) -> dict[int, list[dict[str, Any]]]:
    """Records of matches played for real (random agents), SAMPLE_PER_SIZE per seat count 2..4."""
    from arena.registry.plugins import discover
    from arena.tournament.plan.ladder import parse_ladder
    from arena.tournament.plan.runs import open_run
    from arena.tournament.plan.schedule import make_schedule
    from arena.tournament.run.runner import run_pending
    from arena.tournament.store.sqlite import Store

    registry = discover()
    found: dict[int, list[dict[str, Any]]] = {}
    with Store(folder / "sample.db") as store:
        for seats in (2, 3, 4):
            text = f'name = "sample{seats}"\ngame = "{GAME}"\nplayers = {seats}\nmatches_per_pairing = 1\nseed = {seats}\n'
            text += "".join(
                f'[[agents]]\nname = "r{i}"\nagent = "random"\noptions = {{ seed = {i} }}\n'
                for i in range(seats)
            )
            ladder = parse_ladder(text, registry, source="bench")
            run = open_run(store, ladder, make_schedule(ladder))
            pending = store.pending(run.id)[:SAMPLE_PER_SIZE]
            run_pending(store, pending, 2, show_progress=False)
            found[seats] = [r for m in pending if (r := store.record(m.id)) is not None]
    return found


def moves_per_record(records: dict[int, list[dict[str, Any]]]) -> dict[int, float]:
    return {seats: statistics.mean(len(r["moves"]) for r in pool) for seats, pool in records.items()}


def create_season_run(store: Any, season: Season, name: str = "season") -> Any:
    from arena.tournament.store.api import NewRun

    config = {"name": name, "game": GAME, "format": "round-robin", "players": 4, "roster": season.roster()}
    return store.create_run(
        NewRun(name, "bench", GAME, "round-robin", "bench_season.py", json.dumps(config), 1, False), []
    )


def write_season(
    store: Any,
    run_id: int,
    season: Season,
    records: dict[int, list[dict[str, Any]]],
    start: int,
    stop: int,
    checkpoint: Callable[[int], None] | None = None,
    mark_running: bool = True,
) -> None:
    """Play matches ``start``..``stop`` of the season into the store, as a runner would (without
    ``mark_running``: only its commit of each result, the season's bulk being built)."""
    index = start
    while index < stop:
        chunk = [season.match(i) for i in range(index, min(stop, index + CHUNK))]
        store.add_matches(run_id, chunk)
        for match in store.pending(run_id):
            if mark_running:
                store.mark_running(match.id)
            store.record_outcome(
                match, season.outcome(match, records), seconds=round(season.rng.uniform(20, 90), 3)
            )
        index += len(chunk)
        if checkpoint is not None:
            checkpoint(index)


# -- figures ---------------------------------------------------------------------------------------


def percentiles(values: Sequence[float], count: bool = True) -> str:
    ordered = sorted(values)
    p50 = ordered[len(ordered) // 2]
    p99 = ordered[min(len(ordered) - 1, math.ceil(0.99 * len(ordered)) - 1)]
    return f"p50 {p50:7.1f} ms  p99 {p99:7.1f} ms" + (f"  (n={len(ordered)})" if count else "")


def store_size(db: str, matches: int, store: Any) -> str:
    sizes = store.record_sizes()
    records = sum(sizes)
    if "://" in db:
        total = server_size(db)
        return (
            f"store {total / 1e6:.1f} MB for {matches} matches: {total / max(1, matches):.0f} B a match"
            f" (pg_total_relation_size of its tables), of which its record"
            f" {records / max(1, len(sizes)):.0f} B (compressed)"
        )
    total = sum(os.path.getsize(p) for p in (db, db + "-wal") if os.path.exists(p))
    return (
        f"store {total / 1e6:.1f} MB for {matches} matches: {total / max(1, matches):.0f} B a match, of which"
        f" its record {records / max(1, len(sizes)):.0f} B (compressed)"
    )


def server_size(url: str) -> int:
    """Bytes of a PostgreSQL store's tables with their indexes and TOAST (pg_total_relation_size)."""
    import psycopg

    with psycopg.connect(url) as connection:
        row = connection.execute(
            "SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) FROM pg_class c"
            " JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE c.relkind IN ('r', 'm') AND n.nspname = current_schema()"
        ).fetchone()
    return int(row[0]) if row else 0


def measure(
    db: str, requests: int = REQUESTS, cli_runs: int = 3, ratings: bool = True, recompute: bool = True
) -> None:
    """Every latency figure on the season in ``db`` (which it extends by a few results); without
    ``ratings``, only the pages that do not rate (no recomputation, no leaderboard); without
    ``recompute``, not the timed recomputation of every rating (the server still warms up)."""
    from starlette.testclient import TestClient

    from arena.registry.plugins import discover
    from arena.tournament.stats.report import mle_standings, standings
    from arena.web.app import create_app

    store = open_store(db)
    run = store.latest_run("season")
    if run is None:
        raise SystemExit(f"error: {db} holds no season; run `bench_season.py build --db {db}` first")
    done = store.counts(run.id)["done"]
    print(f"== season of {done} matches in {db}")
    print(store_size(db, done, store))
    if not ratings:
        pages(db, store, run, done, requests)
        return
    if recompute:
        started, cpu = time.perf_counter(), time.process_time()
        table = standings(store, run)
        print(
            f"recompute TrueSkill of every match: {time.perf_counter() - started:.1f} s"
            f" ({time.process_time() - cpu:.1f} s CPU; {len(table)} agents)"
        )
        started, cpu = time.perf_counter(), time.process_time()
        mle_standings(store, run)
        print(
            f"recompute MLE of every match:       {time.perf_counter() - started:.1f} s"
            f" ({time.process_time() - cpu:.1f} s CPU)"
        )

    registry = discover()
    app = create_app(db, registry)
    client = TestClient(app)
    started, cpu = time.perf_counter(), time.process_time()
    app.state.arena.warm_up()
    print(
        f"server warm-up (every table of the ladder page from the store): {time.perf_counter() - started:.1f} s"
        f" ({time.process_time() - cpu:.1f} s CPU)"
    )

    series = Series(client, requests)
    bots = played_bots(store, run)
    field = len({entry["base"] for entry in store.config(run.id)["roster"]})
    writer = LiveWriter(store, run.id, Season(field, done, seed=2), series.match_ids(store, run.id, done))
    series("leaderboard page (live)", lambda n: f"/ladders/{run.id}", writer)
    series("leaderboard JSON (live)", lambda n: f"/api/ladders/{run.id}/leaderboard", writer)
    series.store_pages(store, run.id, done, bots)
    store.close()
    times = []
    arena = str(Path(sys.executable).with_name("arena"))
    for _ in range(cli_runs):  # a process: it rates every match again, with nothing kept
        t = time.perf_counter()
        command = [arena, "leaderboard", "--db", db, "season", "--format", "json"]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        times.append((time.perf_counter() - t) * 1000)
    if times:
        print(f"{'`arena leaderboard` (a process)':34} {percentiles(times)}")


def pages(db: str, store: Any, run: Any, done: int, requests: int) -> None:
    """The pages that do not rate: a bot's, a match's, a replay step, the ladder list, the match list."""
    from starlette.testclient import TestClient

    from arena.registry.plugins import discover
    from arena.web.app import create_app

    bots = played_bots(store, run)
    Series(TestClient(create_app(db, discover())), requests).store_pages(store, run.id, done, bots)
    store.close()


def played_bots(store: Any, run: Any) -> list[str]:
    """The bots of the season's first matches (a bot's page is timed on one of them)."""
    return sorted({seat.agent for m in store.done_matches(run.id, upto=2000) for seat in m.seats})


class Series:
    """Timed requests through one client, printed as one line of percentiles."""

    def __init__(self, client: Any, requests: int) -> None:
        self.client, self.requests, self.rng = client, requests, random.Random(7)

    def match_ids(self, store: Any, run_id: int, done: int) -> list[int]:
        """A thousand consecutive matches from a random place of the run."""
        return store.match_ids(run_id, _all(), 1000, self.rng.randrange(max(1, done - 1000)))

    def timed(self, url: str) -> tuple[float, float]:
        """Wall-clock and CPU milliseconds of one request (CPU: of this whole process, so a
        background refresh running meanwhile counts too)."""
        t, cpu = time.perf_counter(), time.process_time()
        response = self.client.get(url)
        elapsed, used = (time.perf_counter() - t) * 1000, (time.process_time() - cpu) * 1000
        if response.status_code != 200:
            raise SystemExit(f"error: {url}: HTTP {response.status_code}")
        return elapsed, used

    def __call__(self, label: str, urls: Callable[[int], str], writer: LiveWriter | None = None) -> None:
        walls, cpus = [], []
        for n in range(self.requests):
            if writer is not None and n % WRITE_EVERY == 0:
                writer.one()  # a live season: the ladder view refreshes as it would
            wall, cpu = self.timed(urls(n))
            walls.append(wall)
            cpus.append(cpu)
        print(f"{label:34} {percentiles(walls)}; CPU {percentiles(cpus, count=False)}", flush=True)

    def store_pages(self, store: Any, run_id: int, done: int, bots: Sequence[str]) -> None:
        """The pages whose cost is the store's: a bot's, a match's, a step, the lists."""
        rng, match_ids = self.rng, self.match_ids(store, run_id, done)
        self("bot page", lambda n: f"/agents/{rng.choice(bots)}")
        self("match page", lambda n: f"/matches/{rng.choice(match_ids)}")
        self("replay step", lambda n: f"/api/matches/{match_ids[n % 8]}/steps/{rng.randrange(1, 40)}")
        self("ladder list", lambda n: "/")
        last = max(1, done // 50)
        self("match list, a page", lambda n: f"/ladders/{run_id}/matches?page={rng.randrange(1, last + 1)}")


def _all() -> Any:
    from arena.tournament.store.api import MatchFilter

    return MatchFilter()


class LiveWriter:
    """Stores one more season result on demand (a live season during the page timings)."""

    def __init__(self, store: Any, run_id: int, season: Season, match_ids: Sequence[int]) -> None:
        self.store, self.run_id, self.season = store, run_id, season
        self.records: dict[int, list[dict[str, Any]]] = {}
        for match_id in match_ids[:24]:  # records already stored, reused
            match, record = store.match(match_id), store.record(match_id)
            if match is not None and record is not None:
                self.records.setdefault(len(match.seats), []).append(record)
        for size in (2, 3, 4):  # every seat count has a record to store
            self.records.setdefault(size, next(iter(self.records.values())))
        self.next = store.next_index(run_id)

    def one(self) -> None:
        match = self.season.match(self.next)
        self.store.add_matches(self.run_id, [match])
        stored = self.store.pending(self.run_id)[0]
        self.store.mark_running(stored.id)
        self.store.record_outcome(stored, self.season.outcome(stored, self.records), seconds=30.0)
        self.next += 1


# -- writers ---------------------------------------------------------------------------------------


def _writer(db: str, number: str, matches: int, records: dict[int, list[dict[str, Any]]], ready: Any) -> None:
    store = open_store(db)
    season = Season(200, matches, seed=number)
    run = create_season_run(store, season, f"writer-{number}")
    ready.wait()
    write_season(store, run.id, season, records, 0, matches)
    store.close()


def writers(db: str, counts: Sequence[int], matches: int, records: dict[int, list[dict[str, Any]]]) -> None:
    """Insert throughput with ``counts`` writer processes at once, ``matches`` in all each time."""
    context = multiprocessing.get_context("fork")
    for count in counts:
        barrier = context.Barrier(count + 1)
        each = max(1, matches // count)
        procs = [
            context.Process(target=_writer, args=(db, f"{count}-{n}", each, records, barrier))
            for n in range(count)
        ]
        for proc in procs:
            proc.start()
        barrier.wait()
        started = time.perf_counter()
        for proc in procs:
            proc.join()
        seconds = time.perf_counter() - started
        if any(proc.exitcode for proc in procs):
            raise SystemExit(f"error: a writer failed (exit codes {[proc.exitcode for proc in procs]})")
        print(
            f"insert, {count:2} writer(s) at once: {each * count / seconds:7.0f} matches/s ({each * count} matches)"
        )


# -- commands --------------------------------------------------------------------------------------


def kept_name(db: str, count: int) -> str:
    """The copy of ``db`` kept at ``count`` matches: season.db -> season-10000.db."""
    path = Path(db)
    return str(path.with_name(f"{path.stem}-{count}{path.suffix}"))


def build(
    db: str, bots: int, matches: int, keep_at: Sequence[int], records: dict[int, list[dict[str, Any]]]
) -> None:
    store = open_store(db)
    season = Season(bots, matches, seed=1)
    run = create_season_run(store, season)
    started = time.perf_counter()
    marks = sorted(keep_at)

    def checkpoint(done: int) -> None:
        if done % 10_000 == 0 or done == matches:
            rate = done / (time.perf_counter() - started)
            print(f"{done} matches stored, {rate:.0f} matches/s", flush=True)
        while marks and done >= marks[0] and "://" not in db:
            kept = kept_name(db, marks.pop(0))
            for suffix in ("", "-wal"):  # between two commits: the file and its log are one state
                if os.path.exists(db + suffix):
                    # copied by another process: closing a file this process opened would drop
                    # its SQLite locks (POSIX), and the next reader to close would delete the log
                    subprocess.run(["cp", "--", db + suffix, kept + suffix], check=True)
            print(f"kept a copy at {done} matches: {kept}", flush=True)

    write_season(store, run.id, season, records, 0, matches, checkpoint, mark_running=False)
    print(f"built {matches} matches in {time.perf_counter() - started:.0f} s")
    store.close()


def main(argv: Sequence[str] | None = None) -> None:
    """`make bench`: a small season in a temporary folder; with arguments, see the module's docstring."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", nargs="?", choices=("all", "build", "measure", "writers"), default="all")
    parser.add_argument("--db", help="the store: a file, or a server's URL (default: a temporary file)")
    parser.add_argument("--bots", type=int, default=BOTS)
    parser.add_argument("--matches", type=int, default=SMALL)
    parser.add_argument("--keep-at", default="", help="match counts at which to keep a copy (NAME-COUNT.db)")
    parser.add_argument("--writers", default="1,4,16", help="writer processes at once, one figure each")
    parser.add_argument("--writer-matches", type=int, default=600, help="matches per throughput figure")
    parser.add_argument("--requests", type=int, default=REQUESTS)
    parser.add_argument("--cli-runs", type=int, default=3, help="timed `arena leaderboard` runs (0: none)")
    parser.add_argument("--no-ratings", action="store_true", help="measure only the pages that do not rate")
    parser.add_argument(
        "--no-recompute", action="store_true", help="skip the timed recomputation of every rating"
    )
    args = parser.parse_args([] if argv is None else argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        db = args.db or str(folder / "season.db")
        records = real_records(folder) if args.command in ("all", "build", "writers") else {}
        if args.command in ("all", "build"):
            print(f"real records: {moves_per_record(records)} moves a record by seat count")
            keep = [int(n) for n in args.keep_at.split(",") if n.strip()]
            build(db, args.bots, args.matches, keep, records)
        if args.command in ("all", "measure"):
            measure(db, args.requests, args.cli_runs, not args.no_ratings, not args.no_recompute)
        if args.command in ("all", "writers"):
            # a store of its own, unless named (a server's: each writer adds its own run to it)
            target = args.db if args.command == "writers" and args.db else str(folder / "writers.db")
            counts = [int(n) for n in args.writers.split(",") if n.strip()]
            writers(target, counts, args.writer_matches, records)


if __name__ == "__main__":
    main(sys.argv[1:])

"""Web arena response times on a store of 10,000 matches: ladder page, leaderboard JSON, match page.

The store is synthetic but realistic: a Zapotec round robin of 8 agents (28 pairings x 179 deals
x 2 seatings = 10,024 matches) written through the Store API as `arena run` writes it, each
match with a real record (one of 12 played by the real referee, reused) and seat results drawn
from the agents' hidden strengths (about 1% forfeits). Requests go through Starlette's TestClient
(in process, no network). Cases:
  warm   the store unchanged since the page was last computed (a reload);
  live   one more result stored since (what the page's 2 s poll fetches during `arena run`): a
         big ladder answers with its previous tables at once and refreshes them in a background
         thread (the "fresh again" line: how long until the tables include the new result);
  cold   a fresh server that skipped its start-up warm-up (the ratings from scratch).
Figures: median (min-max) over the repetitions.
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from pathlib import Path

from arena.tournament.plan.runs import open_run

AGENTS = 8
DEALS = 179
REPEATS = 7
COLD_REPEATS = 3


def small_ladder() -> str:
    head = 'name = "records"\ngame = "zapotec"\nplayers = 2\nmatches_per_pairing = 1\nseed = 4\n'
    return head + "".join(
        f'[[agents]]\nname = "r{i}"\nagent = "random"\noptions = {{ seed = {i} }}\n' for i in range(4)
    )


def big_ladder() -> str:
    head = f'name = "bench-web"\ngame = "zapotec"\nplayers = 2\nmatches_per_pairing = {DEALS}\nseed = 9\n'
    return head + "".join(
        f'[[agents]]\nname = "agent-{i}"\nagent = "random"\noptions = {{ seed = {i} }}\n'
        for i in range(AGENTS)
    )


class SyntheticRun:
    """The 10k-match store and a writer that stores one more result on demand."""

    def __init__(self, folder: Path, hold_back: int) -> None:
        from arena.registry.plugins import discover
        from arena.tournament.plan.ladder import parse_ladder
        from arena.tournament.plan.schedule import make_schedule
        from arena.tournament.run.runner import run_pending
        from arena.tournament.store.sqlite import Store

        registry = discover()
        small = parse_ladder(small_ladder(), registry, source="bench")
        with Store(folder / "records.db") as store:
            run = open_run(store, small, make_schedule(small))
            run_pending(store, store.pending(run.id), 2, show_progress=False)
            done = store.matches(run.id, statuses=("done",))
            self.records = [record for m in done if (record := store.record(m.id)) is not None]
        ladder = parse_ladder(big_ladder(), registry, source="bench")
        self.db = folder / "web.db"
        self.store = Store(self.db)
        run = open_run(self.store, ladder, make_schedule(ladder))
        self.pending = self.store.pending(run.id)
        self.rng = random.Random(1)
        self.strength = {f"agent-{i}": i * 2.0 for i in range(AGENTS)}
        self.stored = 0
        while len(self.pending) > hold_back:
            self.store_one()
        self.match_id = self.store.matches(run.id, statuses=("done",))[4321].id

    def store_one(self) -> None:
        from arena.match.spec import MatchOutcome, SeatResult

        match = self.pending.pop(0)
        scores = [round(self.strength[name] + self.rng.gauss(20, 6)) for name in match.entrants]
        faults = [("timeout" if self.rng.random() < 0.005 else None) for _ in scores]
        ranks = [1 + sum(other > score for other in scores) for score in scores]
        seats = tuple(SeatResult(s, "random", scores[s], ranks[s], faults[s]) for s in range(len(scores)))
        record = self.records[self.stored % len(self.records)]
        self.store.mark_running(match.id)
        self.store.record_outcome(match, MatchOutcome(match.spec, seats, record), seconds=0.4)
        self.stored += 1


def timed(client, url: str) -> float:
    start = time.perf_counter()
    response = client.get(url)
    elapsed = (time.perf_counter() - start) * 1000
    if response.status_code != 200:
        raise SystemExit(f"{url}: HTTP {response.status_code}")
    return elapsed


def figure(values: list[float]) -> str:
    return f"{statistics.median(values):7.1f} ms ({min(values):.1f}-{max(values):.1f})"


def main() -> None:
    from starlette.testclient import TestClient

    from arena.registry.plugins import discover
    from arena.web.app import create_app

    registry = discover()
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        synthetic = SyntheticRun(Path(tmp), hold_back=2 * REPEATS)
        db, match_id = synthetic.db, synthetic.match_id
        print(
            f"store: {synthetic.stored} matches written in {time.perf_counter() - start:.1f} s "
            f"({db.stat().st_size / 1e6:.1f} MB)"
        )
        app = create_app(db, registry)
        client = TestClient(app)
        start = time.perf_counter()
        app.state.arena.warm_up()
        print(
            f"server start-up warm-up (every ladder's ratings from scratch): {time.perf_counter() - start:.2f} s"
        )
        for label, url in (("ladder page", "/ladders/1"), ("leaderboard JSON", "/api/ladders/1/leaderboard")):
            warm = [timed(client, url) for _ in range(REPEATS)]
            live, catch_up = [], []
            for _ in range(REPEATS):
                synthetic.store_one()
                start = time.perf_counter()
                live.append(timed(client, url))
                while client.get("/api/ladders/1/leaderboard").headers["x-tlachtli-fresh"] != "1":
                    time.sleep(0.01)
                catch_up.append((time.perf_counter() - start) * 1000)
            print(f"{label:17} warm {figure(warm)}   live {figure(live)}")
            print(f"{'':17} tables fresh again after a new result (background refresh): {figure(catch_up)}")
        for label, url in (("ladder page", "/ladders/1"), ("leaderboard JSON", "/api/ladders/1/leaderboard")):
            cold = [timed(TestClient(create_app(db, registry)), url) for _ in range(COLD_REPEATS)]
            print(f"{label:17} cold {figure(cold)}")
        for label, url in (
            ("match page", f"/matches/{match_id}"),
            ("match step (API)", f"/api/matches/{match_id}/steps/30?seat=0"),
            ("ladders page", "/"),
            ("matches page 100", "/ladders/1/matches?page=100"),
            ("agent page", "/agents/agent-3"),
        ):
            cold, warm = [], []
            for _ in range(REPEATS):
                fresh = TestClient(create_app(db, registry))
                if "step" in label:
                    fresh.get(f"/matches/{match_id}")  # the viewer loads the page first
                cold.append(timed(fresh, url))
                warm.append(timed(fresh, url))
            print(f"{label:17} cold {figure(cold)}   warm {figure(warm)}")
        synthetic.store.close()


if __name__ == "__main__":
    main()

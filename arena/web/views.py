"""What the web pages show, as plain JSON-able dicts built from a read-only store.

Every page has a JSON twin under /api/ that returns exactly these dicts, so the templates and
scripts read one shape. Leaderboard rows are ``Standing.as_dict()``, the document of
`arena leaderboard --format json`, and are shown column by column, whatever columns they carry.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from arena.ratings import effective_ranks
from arena.report import seat_lines, standings
from arena.store import LadderRun, Store, StoredMatch

PAGE_SIZE = 50
CHART_POINTS = 150  # most points drawn per agent in the rating chart


class NotFound(LookupError):
    """The page asks for something the store does not hold (shown as 404)."""


def ladders(store: Store) -> list[dict[str, Any]]:
    """Every ladder run with its progress (done/total per status) and last activity."""
    progress: dict[int, dict[str, Any]] = {}
    for row in store.db.execute(
        "SELECT ladder_id, status, COUNT(*) AS n, MAX(COALESCE(finished, started)) AS last "
        "FROM matches GROUP BY ladder_id, status"
    ):
        entry = progress.setdefault(row["ladder_id"], {"counts": {}, "last": None})
        entry["counts"][row["status"]] = row["n"]
        if row["last"] and (entry["last"] is None or row["last"] > entry["last"]):
            entry["last"] = row["last"]
    out = []
    for run in reversed(store.runs()):
        entry = progress.get(run.id, {"counts": {}, "last": None})
        out.append(_run_dict(run, entry["counts"], entry["last"] or run.created))
    return out


def _run_dict(run: LadderRun, counts: dict[str, int], last: str | None) -> dict[str, Any]:
    return {
        "id": run.id,
        "name": run.name,
        "game": run.game,
        "format": run.format,
        "created": run.created,
        "done": counts.get("done", 0),
        "total": sum(counts.values()),
        "counts": counts,
        "last_activity": last,
    }


def find_run(store: Store, run_id: int) -> LadderRun:
    """The ladder run ``run_id``, or NotFound."""
    for run in store.runs():
        if run.id == run_id:
            return run
    raise NotFound(f"no ladder run {run_id}")


def progress(store: Store, run_id: int) -> dict[str, Any]:
    """The cheap live part of a ladder page: counts and last activity (polled every ~2 s)."""
    run = find_run(store, run_id)
    row = store.db.execute(
        "SELECT MAX(COALESCE(finished, started)) AS last FROM matches WHERE ladder_id = ?", (run_id,)
    ).fetchone()
    counts = {
        r["status"]: r["n"]
        for r in store.db.execute(
            "SELECT status, COUNT(*) AS n FROM matches WHERE ladder_id = ? GROUP BY status", (run_id,)
        )
    }
    return _run_dict(run, counts, row["last"] or run.created)


def leaderboard_rows(
    store: Store, run: LadderRun, done: list[StoredMatch] | None = None, **kw: Any
) -> list[dict]:
    """The leaderboard exactly as `arena leaderboard --format json` prints it."""
    return [row.as_dict() for row in standings(store, run, done, **kw)]


def ladder(store: Store, run_id: int) -> dict[str, Any]:
    """A ladder page: progress, leaderboard, rating history, head-to-head matrix, faults by kind."""
    run = find_run(store, run_id)
    done = store.matches(run.id, statuses=("done",))
    stride = max(1, len(done) // CHART_POINTS)
    history: dict[str, list[tuple[int, float]]] = {}
    count = 0

    def sample(ratings: Any) -> None:
        nonlocal count
        count += 1
        if count % stride == 0 or count == len(done):
            for agent, rating in ratings.items():
                history.setdefault(agent, []).append((count, round(rating.mu - 3 * rating.sigma, 3)))

    rows = leaderboard_rows(store, run, done, after_match=sample)
    agents = [row["agent"] for row in rows]
    return {
        "ladder": progress(store, run_id),
        "leaderboard": rows,
        "history": {agent: history.get(agent, []) for agent in agents},
        "head_to_head": _matrix(done, agents),
        "faults": _faults(done),
    }


def _matrix(done: list[StoredMatch], agents: list[str]) -> dict[str, Any]:
    """For each ordered pair: matches both played, and how often the row agent finished ahead."""
    met: Counter[tuple[str, str]] = Counter()
    ahead: Counter[tuple[str, str]] = Counter()
    for match in done:
        lines = seat_lines(match)
        ranks = effective_ranks(lines)
        for i, a in enumerate(lines):
            for j, b in enumerate(lines):
                if i != j and a.agent != b.agent:
                    met[a.agent, b.agent] += 1
                    ahead[a.agent, b.agent] += ranks[i] < ranks[j]
    cells = [
        [
            {
                "played": met[a, b],
                "ahead": ahead[a, b],
                "share": round(ahead[a, b] / met[a, b], 3) if met[a, b] else None,
            }
            for b in agents
        ]
        for a in agents
    ]
    return {"agents": agents, "cells": cells}


def _faults(done: list[StoredMatch]) -> list[dict[str, Any]]:
    counts = Counter((seat.agent, seat.fault) for match in done for seat in match.seats if seat.fault)
    return [{"agent": agent, "fault": fault, "count": n} for (agent, fault), n in sorted(counts.items())]


def match_list(
    store: Store, run_id: int, agent: str | None, fault: str | None, seed: int | None, page: int
) -> dict[str, Any]:
    """One page of a ladder's matches, filtered by agent, fault kind ("any" = any fault) and seed."""
    run = find_run(store, run_id)
    statuses = [
        r[0] for r in store.db.execute("SELECT DISTINCT status FROM matches WHERE ladder_id = ?", (run_id,))
    ]
    found = store.matches(
        run.id, statuses=statuses or ("done",), agent=agent or None, faults_only=bool(fault)
    )
    if fault and fault != "any":
        found = [m for m in found if any(seat.fault == fault for seat in m.seats)]
    if seed is not None:
        found = [m for m in found if m.seed == seed]
    pages = max(1, -(-len(found) // PAGE_SIZE))
    page = min(max(page, 1), pages)
    shown = found[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
    return {
        "ladder": progress(store, run_id),
        "filters": {"agent": agent, "fault": fault, "seed": seed},
        "page": page,
        "pages": pages,
        "count": len(found),
        "matches": [match_summary(m) for m in shown],
    }


def match_summary(match: StoredMatch) -> dict[str, Any]:
    """A stored match as a list row."""
    automaton = (match.spec.automaton,) if match.spec.automaton else ()
    return {
        "id": match.id,
        "ladder_id": match.ladder_id,
        "index": match.idx,
        "key": match.key,
        "game": match.spec.game,
        "seed": match.seed,
        "status": match.status,
        "seconds": match.seconds,
        "entrants": list(match.entrants + automaton),
        "seats": [
            {
                "seat": s.seat,
                "agent": s.agent,
                "plugin": s.plugin,
                "score": s.score,
                "rank": s.rank,
                "fault": s.fault,
            }
            for s in match.seats
        ],
    }


def stored_match(store: Store, match_id: int) -> tuple[StoredMatch, dict[str, Any] | None]:
    """A match and its record (None until it is done), or NotFound."""
    match = store.match(match_id)
    if match is None:
        raise NotFound(f"no match {match_id}")
    return match, store.record(match_id) if match.status == "done" else None


def agent(store: Store, name: str) -> dict[str, Any]:
    """An agent's matches across ladders and its results by seat."""
    ladder_ids = [
        r[0]
        for r in store.db.execute(
            "SELECT DISTINCT m.ladder_id FROM seats s JOIN matches m ON m.id = s.match_id WHERE s.agent = ?",
            (name,),
        )
    ]
    if not ladder_ids:
        raise NotFound(f"no agent {name!r}")
    runs = {run.id: run for run in store.runs()}
    by_seat: dict[tuple[int, int], dict[str, Any]] = {}
    matches = []
    for ladder_id in ladder_ids:
        run = runs[ladder_id]
        for match in store.matches(ladder_id, statuses=("done",), agent=name):
            matches.append(match_summary(match) | {"ladder": run.name})
            for seat in match.seats:
                if seat.agent != name:
                    continue
                line = by_seat.setdefault(
                    (ladder_id, seat.seat),
                    {
                        "ladder": run.name,
                        "ladder_id": ladder_id,
                        "seat": seat.seat,
                        "matches": 0,
                        "wins": 0,
                        "score": 0,
                        "faults": 0,
                    },
                )
                line["matches"] += 1
                line["wins"] += seat.rank == 1 and seat.fault is None
                line["score"] += seat.score
                line["faults"] += seat.fault is not None
    seats = []
    for line in by_seat.values():
        line["mean_score"] = round(line.pop("score") / line["matches"], 3)
        seats.append(line)
    return {"agent": name, "by_seat": seats, "matches": matches[-200:]}

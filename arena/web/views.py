"""What the web pages show, as plain JSON-able dicts built from a read-only store.

Every page has a JSON twin under /api/ that returns exactly these dicts, so the templates and
scripts read one shape. Leaderboard rows are ``report.rows_with_mle``, the document of
`arena leaderboard --format json`, and are shown column by column, whatever columns they carry.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from arena.match.spec import table_seats
from arena.registry.plugins import Registry
from arena.tournament.plan.growth import mark_uncertain, retired_names, without_retired
from arena.tournament.plan.secrecy import seeds_hidden
from arena.tournament.stats.fault_lines import agent_faults, faults_by_seat
from arena.tournament.stats.ratings import RateMemo, SeatLine, effective_ranks, inherited, leaderboard
from arena.tournament.stats.report import ranked_by_score, rows_with_mle, run_title
from arena.tournament.stats.solo import solo_rows
from arena.tournament.store.api import DAMAGED_HINT, LadderRun, StoredMatch, StoreError
from arena.tournament.store.sqlite import Store, seat_problem
from engine.options import OPTION_HEADERS, option_rows

PAGE_SIZE = 50
AGENT_MATCHES = 100  # latest matches listed on an agent's page
CHART_POINTS = 150  # most points drawn per agent in the rating chart
RUNNING_LINKS = 20  # running matches linked from a ladder's progress line, at most


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
        "title": run_title(run),
        "created": run.created,
        "done": counts.get("done", 0),
        "total": sum(counts.values()),
        "counts": counts,
        "last_activity": last,
    }


def deals_hidden(store: Store, run_id: int) -> bool:
    """Whether run ``run_id``'s seeds and records stay hidden for now (the CLI's rule: a secret
    base seed with matches left to play)."""
    return seeds_hidden(store, find_run(store, run_id))


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
    running = [
        {"id": r["id"], "key": r["key"]}
        for r in store.db.execute(
            "SELECT id, key FROM matches WHERE ladder_id = ? AND status = 'running' ORDER BY idx LIMIT ?",
            (run_id, RUNNING_LINKS),
        )
    ]
    return {**_run_dict(run, counts, row["last"] or run.created), "running": running}


def done_seats(store: Store, run_id: int) -> tuple[list[list[SeatLine]], list[int]]:
    """The seats of every done match of a run in schedule order, and each match's seed (its
    deal), read in one query (the leaderboard's input without decoding each match's spec)."""
    matches: list[list[SeatLine]] = []
    seeds: list[int] = []
    last = None
    for row in store.db.execute(
        "SELECT s.*, m.seed AS deal FROM seats s JOIN matches m ON m.id = s.match_id"
        " WHERE m.ladder_id = ? AND m.status = 'done' ORDER BY m.idx, s.seat",
        (run_id,),
    ):
        problem = seat_problem(row)  # a hand-edited store: one line, as the CLI's
        if problem is not None:
            raise StoreError(problem + DAMAGED_HINT)
        if row["match_id"] != last:
            matches.append([])
            seeds.append(row["deal"])
            last = row["match_id"]
        matches[-1].append(SeatLine(row["agent"], row["score"], row["rank"], row["fault"]))
    return matches, seeds


def ladder(store: Store, run_id: int, memo: RateMemo | None = None) -> dict[str, Any]:
    """A ladder page: progress, leaderboard, rating history, head-to-head matrix, faults by kind.

    The leaderboard rows are those of `arena leaderboard --format json` (``report.rows_with_mle``;
    a solo ladder's are ``solo.solo_rows``, with no rating history: it is not rated).
    """
    run = find_run(store, run_id)
    store.db.execute("BEGIN")  # one snapshot: the progress shown is that of the results rated
    try:
        live = progress(store, run_id)
        done, seeds = done_seats(store, run.id)
        test = _comparison(store, run)
        config = store.config(run.id)
    finally:
        store.db.execute("COMMIT")
    solo = ranked_by_score(run)
    if solo:
        rows, history = solo_rows(zip(seeds, done, strict=True)), None  # not rated: no history
    else:
        rows, history = _rated(done, seeds, memo, inherited(config))
    # as `arena leaderboard`: retired entrants leave the table, a swiss ladder marks what is uncertain;
    # the page lists them below it, marked, as `arena leaderboard --all` does
    retired = retired_names(config)
    target = config.get("target_interval")
    marked = [row for row in without_retired(rows, retired, keep=True)[0] if row["retired"]]
    rows = mark_uncertain(without_retired(rows, retired)[0], target)
    agents = [row["agent"] for row in rows]
    return {
        "ladder": live,
        "rated": len(done),
        "solo": solo,
        "leaderboard": rows,
        "retired": mark_uncertain(marked, target),
        "history": {} if history is None else {agent: history.get(agent, []) for agent in agents},
        "head_to_head": _matrix(done, agents),
        "faults": _faults(store, run),
        "compare": test,
    }


def _comparison(store: Store, run: LadderRun) -> dict[str, Any] | None:
    """An `arena compare` run's test (``compare.summary``); None for any other run, or where the
    test's settings cannot be read back."""
    if run.format != "compare":
        return None
    from arena.tournament.plan.compare import summary  # loads the runner: only for a comparison's page

    return summary(store, run)


def _rated(
    done: list[list[SeatLine]], seeds: list[int], memo: RateMemo | None, inherits: dict[str, str]
) -> tuple[list[dict[str, Any]], dict[str, list[tuple[int, float]]]]:
    """The rated leaderboard rows and each agent's TrueSkill rating (mu - 3 sigma) along the matches."""
    from arena.tournament.stats.ratings_mle import (
        mle_ratings,  # numpy and scipy load only when a ladder is shown
    )

    stride = max(1, len(done) // CHART_POINTS)
    history: dict[str, list[tuple[int, float]]] = {}
    count = 0

    def sample(ratings: Any) -> None:
        nonlocal count
        count += 1
        if count % stride == 0 or count == len(done):
            for agent, rating in ratings.items():
                history.setdefault(agent, []).append((count, round(rating.mu - 3 * rating.sigma, 3)))

    rows = rows_with_mle(
        leaderboard(done, after_match=sample, memo=memo, inherits=inherits),
        mle_ratings(zip(seeds, done, strict=True)),
    )
    return rows, history


def _matrix(done: list[list[SeatLine]], agents: list[str]) -> dict[str, Any]:
    """For each ordered pair: matches both played, and how often the row agent finished ahead."""
    met: Counter[tuple[str, str]] = Counter()
    ahead: Counter[tuple[str, str]] = Counter()
    for lines in done:
        ranks = effective_ranks(lines)
        for i, a in enumerate(lines):
            for j, b in enumerate(lines):
                if i != j and a.agent != b.agent:
                    met[a.agent, b.agent] += 1
                    ahead[a.agent, b.agent] += ranks[i] < ranks[j]
    cells: list[list[dict[str, Any]]] = [
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
    # met: how often two of these agents sat at one table (never in a solo ladder of one seat)
    return {
        "agents": agents,
        "cells": cells,
        "met": sum(cell["played"] for row in cells for cell in row) // 2,
    }


def _faults(store: Store, run: LadderRun) -> list[dict[str, Any]]:
    """Faults by agent and kind, each with its most frequent first detail line (none while the
    deals are secret: a bot's error may quote its hand)."""
    hidden = seeds_hidden(store, run)
    return [
        {"agent": f.agent, "fault": f.fault, "count": f.count, "line": "" if hidden else f.line}
        for f in agent_faults(store, run.id)
    ]


def match_list(
    store: Store, run_id: int, agent: str | None, fault: str | None, seed: int | None, page: int
) -> dict[str, Any]:
    """One page of a ladder's matches in schedule order, filtered by agent, fault kind ("any" =
    any fault) and seed; only the page's matches are read in full."""
    hidden = deals_hidden(store, run_id)
    if hidden:
        seed = None  # no oracle for guessing a secret deal
    where = "ladder_id = ?"
    params: list[Any] = [run_id]
    if agent:
        where += " AND id IN (SELECT match_id FROM seats WHERE agent = ?)"
        params.append(agent)
    if fault == "any":
        where += " AND id IN (SELECT match_id FROM seats WHERE fault IS NOT NULL)"
    elif fault:
        where += " AND id IN (SELECT match_id FROM seats WHERE fault = ?)"
        params.append(fault)
    if seed is not None:
        where += " AND seed = ?"
        params.append(seed)
    count = store.db.execute(f"SELECT COUNT(*) FROM matches WHERE {where}", params).fetchone()[0]
    pages = max(1, -(-count // PAGE_SIZE))
    page = min(max(page, 1), pages)
    ids = store.db.execute(
        f"SELECT id FROM matches WHERE {where} ORDER BY idx LIMIT ? OFFSET ?",
        [*params, PAGE_SIZE, (page - 1) * PAGE_SIZE],
    ).fetchall()
    shown = [store.match(row[0]) for row in ids]
    lines = {  # why each seat forfeited, from the records of the page's matches with a fault
        m.id: faults_by_seat(store.record(m.id))
        for m in shown
        if m is not None and not hidden and any(seat.fault for seat in m.seats)
    }
    return {
        "ladder": progress(store, run_id),
        "filters": {"agent": agent, "fault": fault, "seed": seed},
        "page": page,
        "pages": pages,
        "count": count,
        "matches": [match_summary(m, hidden, lines.get(m.id, {})) for m in shown if m is not None],
    }


def match_summary(
    match: StoredMatch, hidden: bool = False, lines: dict[int, tuple[str, str]] | None = None
) -> dict[str, Any]:
    """A stored match as a list row; ``hidden``: its seed is shown as "secret" (``deals_hidden``);
    ``lines``: each faulted seat's phase and first detail line (``fault_lines.faults_by_seat``)."""
    return {
        "id": match.id,
        "ladder_id": match.ladder_id,
        "index": match.idx,
        "key": match.key,
        "game": match.spec.game,
        "seed": "secret" if hidden else match.seed,
        "hidden": hidden,
        "status": match.status,
        "seconds": match.seconds,
        "entrants": list(table_seats(match.entrants, match.spec.automaton)),
        "seats": [
            {
                "seat": s.seat,
                "agent": s.agent,
                "plugin": s.plugin,
                "score": s.score,
                "rank": s.rank,
                "fault": s.fault,
                "why": (lines or {}).get(s.seat, ("", ""))[1] if s.fault else "",
            }
            for s in match.seats
        ],
    }


def stored_match(store: Store, match_id: int) -> tuple[StoredMatch, dict[str, Any] | None]:
    """A match and its record (None until it is done, or while ``deals_hidden``), or NotFound."""
    match = store.match(match_id)
    if match is None:
        raise NotFound(f"no match {match_id}")
    shown = match.status == "done" and not deals_hidden(store, match.ladder_id)
    return match, store.record(match_id) if shown else None


def agent(store: Store, name: str) -> dict[str, Any]:
    """An agent's results by ladder and seat, and its latest matches across ladders."""
    runs = {run.id: run for run in store.runs()}
    by_seat = []
    for row in store.db.execute(
        "SELECT m.ladder_id, s.seat, COUNT(*) AS n, SUM(s.rank = 1 AND s.fault IS NULL) AS wins, "
        "AVG(s.score) AS mean_score, SUM(s.fault IS NOT NULL) AS faults FROM seats s "
        "JOIN matches m ON m.id = s.match_id WHERE s.agent = ? AND m.status = 'done' "
        "GROUP BY m.ladder_id, s.seat ORDER BY m.ladder_id, s.seat",
        (name,),
    ):
        run = runs.get(row["ladder_id"])
        by_seat.append(
            {
                "ladder": run.name if run else str(row["ladder_id"]),
                "ladder_id": row["ladder_id"],
                "seat": row["seat"],
                "matches": row["n"],
                "wins": row["wins"],
                "mean_score": round(row["mean_score"], 3),
                "faults": row["faults"],
            }
        )
    if not by_seat:
        raise NotFound(f"no finished match of an agent named {name!r}")
    latest = store.db.execute(
        "SELECT DISTINCT m.id FROM matches m JOIN seats s ON s.match_id = m.id WHERE s.agent = ? "
        "ORDER BY m.id DESC LIMIT ?",
        (name, AGENT_MATCHES),
    ).fetchall()
    matches = []
    hidden = {run.id: seeds_hidden(store, run) for run in runs.values()}
    for row in latest:
        match = store.match(row[0])
        if match is not None:
            run = runs.get(match.ladder_id)
            summary = match_summary(match, hidden.get(match.ladder_id, False))
            matches.append(summary | {"ladder": run.name if run else str(match.ladder_id)})
    plays = [
        row[0]
        for row in store.db.execute(
            "SELECT DISTINCT plugin FROM seats WHERE agent = ? ORDER BY plugin", (name,)
        )
    ]
    return {"agent": name, "by_seat": by_seat, "matches": matches, "plays": plays}


def declared_options(registry: Registry, plays: list[str]) -> list[dict[str, Any]]:
    """The options each installed agent in ``plays`` declares (name, type, default, allowed,
    meaning), for an agent's page; an executable or an agent declaring none shows no table."""
    tables = []
    for plugin in plays:
        spec = registry.agents.get(plugin)
        if spec is not None and spec.options:
            tables.append(
                {"agent": plugin, "headers": list(OPTION_HEADERS), "rows": option_rows(spec.options)}
            )
    return tables

"""What the web pages show, as plain JSON-able dicts built from a read-only store.

Every page has a JSON twin under /api/ that returns exactly these dicts, so the templates and
scripts read one shape. Leaderboard rows are ``report.rows_with_mle``, the document of
`arena leaderboard --format json`, and are shown column by column, whatever columns they carry.
"""

from __future__ import annotations

from typing import Any

from arena.match.spec import table_seats
from arena.registry.plugins import Registry
from arena.tournament.plan.growth import mark_uncertain, retired_names, without_retired
from arena.tournament.plan.secrecy import seeds_hidden
from arena.tournament.stats.fault_lines import agent_faults, faults_by_seat
from arena.tournament.stats.ladder_tally import RunTables, seat_lines
from arena.tournament.stats.ratings import RateMemo, inherited
from arena.tournament.stats.report import ranked_by_score, rows_with_mle, run_title
from arena.tournament.stats.solo import solo_rows
from arena.tournament.store.api import LadderRun, MatchFilter, StoredMatch
from arena.tournament.store.api import TournamentStore as Store
from engine.options import OPTION_HEADERS, option_rows

PAGE_SIZE = 50
AGENT_MATCHES = 100  # matches listed per page of an agent's page, latest first
RUNNING_LINKS = 20  # running matches linked from a ladder's progress line, at most
SHOWN_AGENTS = 30  # a larger field charts and crosses (head to head) only its top agents


class NotFound(LookupError):
    """The page asks for something the store does not hold (shown as 404)."""


def ladders(store: Store) -> list[dict[str, Any]]:
    """Every ladder run with its progress (done/total per status) and last activity."""
    progress = store.progress_by_run()
    out = []
    for run in reversed(store.runs()):
        found = progress.get(run.id)
        counts = found.counts if found else {}
        out.append(_run_dict(run, counts, (found.last if found else None) or run.created))
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
    found = store.progress(run_id)
    running = [{"id": match_id, "key": key} for match_id, key in store.running(run_id, RUNNING_LINKS)]
    return {**_run_dict(run, found.counts, found.last or run.created), "running": running}


def ladder(
    store: Store, run_id: int, memo: RateMemo | None = None, kept: dict[int, RunTables] | None = None
) -> dict[str, Any]:
    """A ladder page: progress, leaderboard, rating history, head-to-head matrix, faults by kind.

    The leaderboard rows are those of `arena leaderboard --format json` (``report.rows_with_mle``;
    a solo ladder's are ``solo.solo_rows``, with no rating history: it is not rated). ``kept``:
    what a server keeps of each run between views (its ratings are fed only the matches done
    since; without it, every match is replayed). A field larger than SHOWN_AGENTS charts and
    crosses its top agents only.
    """
    run = find_run(store, run_id)
    with store.snapshot():  # one snapshot: the progress shown is that of the results rated
        live = progress(store, run_id)
        config = store.config(run.id)
        solo = ranked_by_score(run)
        kept = {} if kept is None else kept
        tables = kept.get(run.id)
        if tables is None or tables.inherits != inherited(config):  # a grown roster: replay it all
            tables = kept[run.id] = RunTables(run.id, memo, inherited(config))
        tally = tables.tally.current(store)
        if solo:  # not rated: no history
            rows, history = solo_rows((m.seed, seat_lines(m)) for m in store.done_matches(run.id)), None
        else:
            standings, history = tally.finished()
            rows = rows_with_mle(standings, tables.mle(store, run.id, tally.ratings.matches))
        test = _comparison(store, run)
        faults = _faults(store, run, tally.ratings.played, tables.fault_lines, tally.faulted)
    # as `arena leaderboard`: retired entrants leave the table, a swiss ladder marks what is uncertain;
    # the page lists them below it, marked, as `arena leaderboard --all` does
    retired = retired_names(config)
    target = config.get("target_interval")
    marked = [row for row in without_retired(rows, retired, keep=True)[0] if row["retired"]]
    rows = mark_uncertain(without_retired(rows, retired)[0], target)
    agents = [row["agent"] for row in rows][:SHOWN_AGENTS]
    return {
        "ladder": live,
        "rated": tally.ratings.matches,
        "solo": solo,
        "leaderboard": rows,
        "retired": mark_uncertain(marked, target),
        "history": {} if history is None else {agent: history.get(agent, []) for agent in agents},
        "head_to_head": tally.matrix(agents),
        "faults": faults,
        "compare": test,
    }


def _comparison(store: Store, run: LadderRun) -> dict[str, Any] | None:
    """An `arena compare` run's test (``compare.summary``); None for any other run, or where the
    test's settings cannot be read back."""
    if run.format != "compare":
        return None
    from arena.tournament.plan.compare import summary  # loads the runner: only for a comparison's page

    return summary(store, run)


def _faults(
    store: Store,
    run: LadderRun,
    played: dict[str, int],
    read: dict[int, dict[int, tuple[str, str]]],
    faulted: dict[tuple[str, str], list[tuple[int, int, int]]],
) -> list[dict[str, Any]]:
    """Faults by agent and kind, each with its most frequent first detail line (none while the
    deals are secret: a bot's error may quote its hand); ``played``, ``read`` and ``faulted`` as
    ``agent_faults``."""
    hidden = seeds_hidden(store, run)
    return [
        {"agent": f.agent, "fault": f.fault, "count": f.count, "line": "" if hidden else f.line}
        for f in agent_faults(store, run.id, played, read, faulted)
    ]


def match_list(
    store: Store, run_id: int, agent: str | None, fault: str | None, seed: int | None, page: int
) -> dict[str, Any]:
    """One page of a ladder's matches in schedule order, filtered by agent, fault kind ("any" =
    any fault) and seed; only the page's matches are read in full."""
    hidden = deals_hidden(store, run_id)
    if hidden:
        seed = None  # no oracle for guessing a secret deal
    chosen = MatchFilter(agent, fault, seed)
    live = progress(store, run_id)
    # unfiltered, the count is the progress line's total: a season's matches are counted once
    count = live["total"] if chosen == MatchFilter() else store.count_matches(run_id, chosen)
    pages = max(1, -(-count // PAGE_SIZE))
    page = min(max(page, 1), pages)
    ids = store.match_ids(run_id, chosen, PAGE_SIZE, (page - 1) * PAGE_SIZE)
    shown = [store.match(match_id) for match_id in ids]
    lines = {  # why each seat forfeited, from the records of the page's matches with a fault
        m.id: faults_by_seat(store.record(m.id))
        for m in shown
        if m is not None and not hidden and any(seat.fault for seat in m.seats)
    }
    return {
        "ladder": live,
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


def agent(store: Store, name: str, page: int = 1) -> dict[str, Any]:
    """An agent's results by ladder and seat, and one page of its matches across ladders, latest
    first (AGENT_MATCHES a page)."""
    runs = {run.id: run for run in store.runs()}
    by_seat = []
    for row in store.agent_seats(name):
        run = runs.get(row.ladder_id)
        by_seat.append(
            {
                "ladder": run.name if run else str(row.ladder_id),
                "ladder_id": row.ladder_id,
                "seat": row.seat,
                "matches": row.matches,
                "wins": row.wins,
                "mean_score": round(row.mean_score, 3),
                "faults": row.faults,
            }
        )
    if not by_seat:
        raise NotFound(f"no finished match of an agent named {name!r}")
    count = store.agent_match_count(name)
    pages = max(1, -(-count // AGENT_MATCHES))
    page = min(max(page, 1), pages)
    matches = []
    hidden: dict[int, bool] = {}
    for match_id in store.agent_match_ids(name, AGENT_MATCHES, (page - 1) * AGENT_MATCHES):
        match = store.match(match_id)
        if match is not None:
            run = runs.get(match.ladder_id)
            if match.ladder_id not in hidden:
                hidden[match.ladder_id] = run is not None and seeds_hidden(store, run)
            summary = match_summary(match, hidden[match.ladder_id])
            matches.append(summary | {"ladder": run.name if run else str(match.ladder_id)})
    return {
        "agent": name,
        "by_seat": by_seat,
        "matches": matches,
        "page": page,
        "pages": pages,
        "count": count,
        "plays": store.agent_plugins(name),
    }


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

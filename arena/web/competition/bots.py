"""A submitted bot's page and downloads: what everyone sees, and what only its owner sees.

Public: its versions that reached the ladder (with their states), its rating over the
competition's matches, and every game it played with the result and a link to the replay.
Owner only: rejected versions with their line and log, and, for each game, its own stderr and
info texts (the record keeps the last 16 KiB of stderr of every seat of every game). No one sees
another bot's stderr: records leave this module with every other seat's stderr removed.
"""

from __future__ import annotations

from typing import Any

from arena.registry.manifest import ManifestError, read_manifest
from arena.submissions.store import Submission, SubmissionStore
from arena.tournament.plan.secrecy import seeds_hidden
from arena.tournament.store.api import StoredMatch
from arena.tournament.store.reads import is_bot_entrant
from arena.tournament.store.sqlite import Store
from arena.web import views

GAMES_PAGE = 50  # games a page of the bot's page lists
INFO_SHOWN = 400  # info texts of one game shown on its log page, at most (each is capped at 2 KiB)
PUBLIC_STATES = ("active", "retired", "withdrawn")


def owner(submissions: SubmissionStore, bot: str) -> str | None:
    """Who owns the bot's name: the submitter of its first submission that was not rejected."""
    return next((r.submitter for r in submissions.all() if r.name == bot and r.state != "rejected"), None)


def versions(submissions: SubmissionStore, bot: str, mine: bool) -> list[dict[str, Any]]:
    """The bot's submissions, newest first: those that reached the ladder, and to its owner all
    (the rejected with their line)."""
    shown = [r for r in submissions.all() if r.name == bot and (mine or r.state in PUBLIC_STATES)]
    return [_version(r, mine) for r in reversed(shown)]


def description(submissions: SubmissionStore, bot: str) -> str:
    """The one-line description in the manifest of the bot's newest version on the ladder."""
    for record in reversed(submissions.all()):
        if record.name == bot and record.state in PUBLIC_STATES and record.sha256:
            try:
                return read_manifest(submissions.package(record.sha256)).description
            except (ManifestError, OSError):
                return ""
    return ""


def _version(record: Submission, mine: bool) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "id": record.id,
        "version": record.version,
        "state": record.state,
        "received_at": record.received_at,
    }
    if mine:
        entry["reason"] = record.reason
    return entry


def bot_games(store: Store, bot: str, limit: int, offset: int = 0) -> list[StoredMatch]:
    """``bot``'s finished matches (any version), newest first, ``limit`` from ``offset`` on."""
    found = (store.match(match_id) for match_id in store.bot_match_ids(bot, limit, offset))
    return [match for match in found if match is not None]


def games(store: Store, bot: str, page: int, mine: bool) -> dict[str, Any]:
    """One page of the bot's finished games, newest first: result, its seats' faults, and a
    replay link where its ladder shows records (``mine``: a link to its own log too)."""
    count = store.bot_match_count(bot)
    pages = max(1, -(-count // GAMES_PAGE))
    page = min(max(page, 1), pages)
    hidden: dict[int, bool] = {}
    rows = []
    for match in bot_games(store, bot, GAMES_PAGE, (page - 1) * GAMES_PAGE):
        if match.ladder_id not in hidden:
            hidden[match.ladder_id] = views.deals_hidden(store, match.ladder_id)
        summary = views.match_summary(match, hidden[match.ladder_id])
        own = [s for s in summary["seats"] if is_bot_entrant(bot, s["agent"])]
        rows.append(
            summary
            | {
                "own": [
                    {"seat": s["seat"], "rank": s["rank"], "score": s["score"], "fault": s["fault"]}
                    for s in own
                ],
                "faulted": any(s["fault"] for s in own),
                "log": mine,
            }
        )
    return {"page": page, "pages": pages, "count": count, "games": rows}


def rating_history(
    history: dict[str, list[tuple[int, float]]], bot: str
) -> dict[str, list[tuple[int, float]]]:
    """The ladder's rating history (``views.ladder``) of the bot's entrants only."""
    return {agent: series for agent, series in history.items() if is_bot_entrant(bot, agent)}


def game_log(store: Store, bot: str, match_id: int) -> dict[str, Any]:
    """The owner's view of one game: its result, and for each of the bot's seats its stderr,
    faults and the info text it sent with each move (the other seats' are not shown)."""
    match = store.match(match_id)
    if match is None or match.status != "done":
        raise views.NotFound(f"no finished match {match_id}")
    record = store.record(match_id)
    seats = [s.seat for s in match.seats if is_bot_entrant(bot, s.agent)]
    if record is None or not seats:
        raise views.NotFound(f"{bot} did not play match {match_id}")
    run = views.find_run(store, match.ladder_id)
    hidden = seeds_hidden(store, run)
    agents = {entry["seat"]: entry for entry in record.get("agents", [])}
    infos = [
        {"step": step + 1, "seat": move["seat"], "info": move["info"]}
        for step, move in enumerate(record.get("moves", []))
        if move.get("seat") in seats and move.get("info")
    ]
    return {
        "bot": bot,
        "match": views.match_summary(match, hidden),
        "replay": not hidden,
        "seats": [
            {
                "seat": seat,
                "agent": match.entrants[seat] if seat < len(match.entrants) else "",
                "stderr": agents.get(seat, {}).get("stderr", ""),
                "faults": [f for f in record.get("faults", []) if f.get("seat") == seat],
            }
            for seat in seats
        ],
        "infos": infos[:INFO_SHOWN],
        "infos_left_out": max(0, len(infos) - INFO_SHOWN),
    }


def public_record(record: dict[str, Any], keep_stderr_of: set[int] = frozenset()) -> dict[str, Any]:  # type: ignore[assignment]
    """``record`` with the stderr of every seat not in ``keep_stderr_of`` removed."""
    agents = [
        entry if entry.get("seat") in keep_stderr_of else {k: v for k, v in entry.items() if k != "stderr"}
        for entry in record.get("agents", [])
    ]
    return record | {"agents": agents}

"""Reads of one bot's games for the competition's pages: its entrants' matches, paged.

A submitted bot plays under its name and, from its second version on, as ``name@version``
(docs/submissions.md), so "a bot's games" are the seats of every entrant named so. Functions
over a ``Store`` (not methods) so that the store's class stays as it is; the SQL is plain, with
``?`` placeholders.
"""

from __future__ import annotations

from arena.tournament.store.api import StoredMatch
from arena.tournament.store.sqlite import Store

# ``bot`` itself, or a name from "bot@" up to (not including) "botA" ("A" follows "@"): every
# "bot@version", as a range the index on seats.agent answers (a LIKE would scan)
_BOT_SEATS = "(s.agent = ? OR (s.agent >= ? AND s.agent < ?))"


def bot_game_count(store: Store, bot: str, run_id: int | None = None) -> int:
    """How many finished matches ``bot`` (any version) played, in run ``run_id`` or in all."""
    where, params = _where(bot, run_id)
    row = store.db.execute(
        f"SELECT COUNT(DISTINCT m.id) FROM matches m JOIN seats s ON s.match_id = m.id WHERE {where}", params
    ).fetchone()
    return int(row[0])


def bot_games(
    store: Store, bot: str, limit: int, offset: int = 0, run_id: int | None = None
) -> list[StoredMatch]:
    """``bot``'s finished matches, newest first, ``limit`` from ``offset`` on."""
    where, params = _where(bot, run_id)
    rows = store.db.execute(
        f"SELECT DISTINCT m.id FROM matches m JOIN seats s ON s.match_id = m.id WHERE {where} "
        "ORDER BY m.id DESC LIMIT ? OFFSET ?",
        [*params, limit, offset],
    ).fetchall()
    found = (store.match(row[0]) for row in rows)
    return [match for match in found if match is not None]


def _where(bot: str, run_id: int | None) -> tuple[str, list[object]]:
    where = f"m.status = 'done' AND {_BOT_SEATS}"
    params: list[object] = [bot, bot + "@", bot + "A"]
    if run_id is not None:
        where += " AND m.ladder_id = ?"
        params.append(run_id)
    return where, params


def is_bot_entrant(bot: str, agent: str) -> bool:
    """Whether the seat's agent ``agent`` is a version of ``bot``."""
    return agent == bot or agent.startswith(bot + "@")

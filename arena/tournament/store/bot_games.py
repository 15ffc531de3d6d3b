"""Reads of one bot's games for the competition's pages: its entrants' matches, paged.

A submitted bot plays under its name and, from its second version on, as ``name@version``
(docs/submissions.md), so "a bot's games" are the matches with a seat of an entrant named so.
Seats are stored with a match's result and forgotten with it (``record_outcome``,
``take_back``), so the seats alone name the finished matches: the queries read only the seats
table through its index on ``agent``. Functions over a ``Store`` (not methods), so that the
store's class stays as it is; the SQL is plain, with ``?`` placeholders.
"""

from __future__ import annotations

from arena.tournament.store.api import StoredMatch
from arena.tournament.store.sqlite import Store

# ``bot`` itself, or a name from "bot@" up to (not including) "botA" ("A" follows "@"): every
# "bot@version", as a range the index on seats.agent answers (a LIKE would scan the table)
_BOT_SEATS = "agent = ? OR (agent >= ? AND agent < ?)"


def _names(bot: str) -> tuple[str, str, str]:
    return bot, bot + "@", bot + "A"


def bot_game_count(store: Store, bot: str) -> int:
    """How many finished matches ``bot`` (any version) played."""
    row = store.db.execute(f"SELECT COUNT(DISTINCT match_id) FROM seats WHERE {_BOT_SEATS}", _names(bot))
    return int(row.fetchone()[0])


def bot_games(store: Store, bot: str, limit: int, offset: int = 0) -> list[StoredMatch]:
    """``bot``'s finished matches, newest first, ``limit`` from ``offset`` on."""
    rows = store.db.execute(
        f"SELECT DISTINCT match_id FROM seats WHERE {_BOT_SEATS} ORDER BY match_id DESC LIMIT ? OFFSET ?",
        [*_names(bot), limit, offset],
    ).fetchall()
    found = (store.match(row[0]) for row in rows)
    return [match for match in found if match is not None]


def is_bot_entrant(bot: str, agent: str) -> bool:
    """Whether the seat's agent ``agent`` is a version of ``bot``."""
    return agent == bot or agent.startswith(bot + "@")

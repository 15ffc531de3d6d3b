"""The operator's actions that reach past the accounts (the same from the web and the CLI)."""

from __future__ import annotations

from arena.accounts.store import Accounts
from arena.submissions.store import SubmissionStore


def set_bot_suspended(accounts: Accounts, submissions: SubmissionStore, bot: str, suspended: bool) -> int:
    """Suspend ``bot`` (its live versions leave the ladder at the next `arena run`, withdrawn, and
    no new version is admitted) or lift that; how many versions were withdrawn."""
    accounts.suspend_bot(bot, suspended)
    if not suspended:
        return 0
    taken = 0
    for record in submissions.all():
        if record.name == bot and record.state == "active":
            submissions.move(record, "withdrawn", "the bot was suspended by the operator")
            taken += 1
    return taken

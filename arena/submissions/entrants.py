"""The active submissions of a ladder as its entrants: how ``arena run`` grows a ladder by them.

Each active submission enters under its bot's name, its agent the frozen package's folder and
its version the manifest's: a new version is a new entrant (``name@version``, the growth
mechanism of arena/tournament/plan/growth.py) that starts from the previous version's rating mean
(``inherits``), and the older version, no longer listed, retires with its matches kept. With
``active_versions`` above 1, each active version enters as ``name@version``.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import groupby

from arena.submissions.store import SubmissionStore
from arena.tournament.plan.ladder import Entrant, Ladder
from arena.tournament.plan.submission_limits import parse_limits

ENTERED = ("active", "retired", "withdrawn")  # versions that were on the ladder once


def with_submissions(ladder: Ladder, store: SubmissionStore) -> Ladder:
    """``ladder`` with its active submissions added after the file's entrants."""
    entered = sorted(store.of_ladder(ladder.name, ENTERED), key=lambda record: (record.name, record.id))
    if not entered:
        return ladder
    several = parse_limits(ladder.submissions).active_versions > 1
    added = []
    for name, versions in groupby(entered, key=lambda record: record.name):
        previous = None
        for record in versions:
            if record.state == "active":
                package = str(store.package(record.sha256))
                if several:
                    inherits: str | None = f"{name}@{previous.version}" if previous else None
                    added.append(Entrant(f"{name}@{record.version}", package, {}, record.version, inherits))
                else:
                    added.append(Entrant(name, package, {}, record.version, inherits=name))
            previous = record
    if several:
        return replace(ladder, entrants=ladder.entrants + tuple(added))
    newest = {entrant.name: entrant for entrant in added}  # one per bot: its newest active version
    return replace(ladder, entrants=ladder.entrants + tuple(newest.values()))

"""Which stored run a ladder is played in: resumed, grown to its edited file, or begun anew.

The decisions of `arena run` before any match is played, made here and handed to the store
(arena/tournament/store/): whether the file's edits keep old matches comparable, what a grown
ladder adds or retires (arena/tournament/plan/growth.py), the schedule of a new run, and its base
seed (drawn at random for ``seed = "secret"``, then kept only in the store).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from arena.tournament.formats import FORMATS
from arena.tournament.plan.growth import (
    Growth,
    GrowthError,
    config_json,
    first_roster,
    growable,
    plan_growth,
    played_ladder,
)
from arena.tournament.plan.ladder import Ladder
from arena.tournament.plan.schedule import ScheduledMatch, iter_schedule
from arena.tournament.store.api import LadderRun, NewRun, StoreError, TournamentStore
from arena.tournament.store.base import lease_seconds


@dataclass(frozen=True)
class RunPlan:
    """The run a ladder is played in, as ``plan_run`` decided it."""

    run: LadderRun
    ladder: Ladder  # the ladder as played (a grown run: its entrants under their display names)
    growth: Growth | None = None  # what an edited file added or retired (None: no run grown)


def plan_run(store: TournamentStore, ladder: Ladder, new: bool = False) -> RunPlan:
    """Claim ``store`` for writing and settle the run ``ladder`` is played in: its latest run,
    grown to the file as it is now, or a new one (``new``, or no run yet); see ``open_run``."""
    store.claim_writer()  # before any write: two runs of one ladder at once would play it twice
    with store.planning():  # several runners of a shared store settle one run, one at a time
        joined = run_in_play(store, ladder) if new else None
        if joined is not None:  # --new given to several runners: the first one's new run, shared
            return RunPlan(joined, ladder)
        grown = None if new else grow_run(store, ladder)
        if grown is not None:
            return RunPlan(grown[0], grown[1].ladder, grown[1])
        return RunPlan(open_run(store, ladder, new=new), ladder)


def run_in_play(store: TournamentStore, ladder: Ladder) -> LadderRun | None:
    """On a store several runners share: the latest run of ``ladder``, from the same file, that a
    runner is playing now, for a runner started with ``--new`` to join rather than start another.
    In play: one of its matches is held under a live lease, or it was created, or a match of it
    started or finished, within a lease (``TLACHTLI_LEASE_S``); and it is not played out. None on
    a store with one writer (SQLite: its single writer claim refused the second runner already)."""
    if store.exclusive:
        return None
    latest = store.latest_run(ladder.name)
    if latest is None or latest.digest != ladder.digest:
        return None
    store.reset_interrupted(latest.id)  # a killed runner's claims whose lease ran out: not in play
    progress = store.progress(latest.id)
    if progress.counts.get("running"):
        return latest
    if not progress.counts.get("pending") and not _more_rounds(store, latest, ladder):
        return None  # played out: --new starts another run
    last = max(filter(None, (latest.created, progress.last)))
    at = datetime.fromisoformat(last)
    age = (datetime.now(UTC) - (at if at.tzinfo else at.replace(tzinfo=UTC))).total_seconds()
    return latest if age <= lease_seconds() else None


def _more_rounds(store: TournamentStore, run: LadderRun, ladder: Ladder) -> bool:
    """Whether an adaptive run (swiss) with nothing pending would plan another round."""
    if not FORMATS[ladder.format].adaptive:
        return False
    from arena.tournament.plan.swiss import plan_round  # trueskill loads only for a swiss ladder

    return bool(plan_round(store.matches(run.id), run, ladder))


def open_run(
    store: TournamentStore,
    ladder: Ladder,
    schedule: Iterable[ScheduledMatch] | None = None,
    new: bool = False,
) -> LadderRun:
    """The run to play ``ladder`` in: its latest run (grown to the file as it is now, see
    ``grow_run``), or a new one when there is none or ``new``.

    A ladder file edited in what makes matches comparable is refused unless ``new``: mixing
    results of two different tournaments under one name would make the table meaningless.
    A run given its own ``schedule`` (`arena compare`) is refused on any edit. A new run stores
    its whole schedule (the ladder's own unless ``schedule`` is given: an open-ended run such as
    `arena compare` starts empty and grows with ``add_matches``); with ``seed = "secret"`` its
    base seed is drawn here, at random, and kept only in the store (resume and replay read it
    back from there).
    """
    latest = store.latest_run(ladder.name)
    if latest is not None and not new:
        growth = grow_run(store, ladder) if schedule is None else None
        if growth is not None:
            return growth[0]
        if latest.digest != ladder.digest:
            raise StoreError(
                f"ladder {ladder.name!r} in {store.path} was started from different content "
                f"(first run from {latest.source} at {latest.created}); its file was edited since, so "
                "resuming would mix two tournaments. Restore the file, rename the ladder, or pass --new "
                "to start a fresh run"
            )
        return latest
    base_seed = secrets.randbits(63) if ladder.secret_seed else ladder.seed
    if schedule is None and not FORMATS[ladder.format].adaptive:
        schedule = iter_schedule(played_ladder(ladder, first_roster(ladder)), base_seed)
    run = NewRun(
        name=ladder.name,
        digest=ladder.digest,
        game=ladder.game,
        format=ladder.format,
        source=ladder.source,
        config=config_json(ladder, first_roster(ladder)),
        base_seed=base_seed,
        secret=ladder.secret_seed,
    )
    return store.create_run(run, schedule or ())


def grow_run(store: TournamentStore, ladder: Ladder) -> tuple[LadderRun, Growth] | None:
    """Bring the latest run of ``ladder`` up to its file as it is now (arena/tournament/plan/growth.py):
    new entrants and repeats are scheduled, agents no longer listed retired (their pending
    matches dropped, their played ones kept). None when there is no run to grow; StoreError
    naming the change when the file changed what makes old matches comparable.
    """
    latest = store.latest_run(ladder.name)
    if latest is None or not growable(ladder):
        return None
    base_seed = ladder.seed if latest.base_seed is None else latest.base_seed
    try:
        growth = plan_growth(
            store.config(latest.id),
            ladder,
            store.held_matches(latest.id),
            base_seed,
            store.next_index(latest.id),
        )
    except GrowthError as error:
        raise StoreError(
            f"ladder {ladder.name!r} in {store.path}: {error}. Restore that, or start a new ladder: "
            "pass --new (the old run stays in the database) or give the ladder another name"
        ) from None
    if growth.changed or latest.digest != ladder.digest:
        store.update_run(
            latest.id,
            digest=ladder.digest,
            source=ladder.source,
            config=config_json(ladder, growth.roster),
            retired=growth.retired,
            matches=growth.matches,
        )
        latest = replace(latest, digest=ladder.digest, source=ladder.source)
    return latest, growth

"""When a ladder's deals must stay hidden: one rule for the command line and the web arena."""

from __future__ import annotations

from arena.tournament.store.api import LadderRun, TournamentStore


def seeds_hidden(store: TournamentStore, ladder_run: LadderRun) -> bool:
    """Whether the deals of ``ladder_run`` must stay hidden: its base seed is secret and matches
    are still to be played (a match's seed, or its record, would give away the deal of the rest
    of its seat rotations). Once every match is played or aborted, they may be shown; an
    `arena compare` run, which adds deals as it goes, only once its test has decided.
    """
    if not ladder_run.secret:
        return False
    counts = store.counts(ladder_run.id)
    if counts.get("pending", 0) + counts.get("running", 0) > 0:
        return True
    if ladder_run.format == "compare":
        from arena.tournament.plan.compare import summary  # it plays matches: not for every reader

        stands = summary(store, ladder_run)
        return stands is None or stands["verdict"] is None  # undecided: more deals may come
    return False

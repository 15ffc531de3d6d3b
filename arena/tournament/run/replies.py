"""What a worker answers about one match, as typed values (arena/tournament/run/runner.py, cluster.py).

A local worker process sends these over its pipe (pickled); a Dask task sends them as JSON bytes
(``arena.tournament.run.verify.encode_reply``), and the submitter turns a finished match's record back
into a ``Done`` only once it checks out by replay. ``run_pending`` reads every reply with ``match``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena.match.spec import MatchOutcome


@dataclass(frozen=True)
class Started:
    """The worker began the match it was handed: the watchdog counts from here (not from start-up)."""


@dataclass(frozen=True)
class Done:
    """The match was played: its outcome, and the wall-clock ``seconds`` it took."""

    outcome: MatchOutcome
    seconds: float


@dataclass(frozen=True)
class Failed:
    """The referee refused or broke (e.g. the engine refused the setup): the match stays pending."""

    error: str


@dataclass(frozen=True)
class Lost:
    """The match's worker was lost ``times`` times (died, stopped, past the watchdog, or forged a
    result); ``began``: after the match had started (before, it is not the match's fault)."""

    reason: str
    began: bool
    times: int


@dataclass(frozen=True)
class Recovered:
    """The match's worker was lost ``times`` times, but the pool played it again itself (a Dask
    cluster): counted like a loss, and the match's own reply follows."""

    reason: str
    times: int


@dataclass(frozen=True)
class Stop:
    """The pool cannot go on (a refused or lost cluster): ``run_pending`` stops with ``reason``."""

    reason: str


@dataclass(frozen=True)
class Refused:
    """A Dask worker whose plugins differ from the submitter's played nothing (becomes a ``Stop``)."""

    reason: str


@dataclass(frozen=True)
class Cancelled:
    """A Dask task the submitter cancelled (Ctrl-C) stopped its match; nobody reads this reply."""


@dataclass(frozen=True)
class Unchecked:
    """A finished match as a Dask worker reported it: its record, not yet checked by replay."""

    record: Any
    seconds: float


PlayReply = Done | Failed  # what ``worker.play_in_trio`` returns
WorkerReply = Done | Failed | Lost  # a watched worker's answer: played, refused, or lost
Reply = Done | Failed | Lost | Recovered | Stop  # what a ``runner.Pool`` reports for a match
TaskReply = Done | Failed | Lost | Refused | Cancelled  # what a Dask task sends (``encode_reply``)
DecodedReply = Unchecked | Failed | Lost | Refused | Cancelled  # what the submitter reads back

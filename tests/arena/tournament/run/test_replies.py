"""Typed worker replies (arena/tournament/run/replies.py) as the Dask submitter reads them back."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from arena.match.spec import MatchSpec
from arena.tournament.formats import FORMATS
from arena.tournament.run.cluster import DaskPool
from arena.tournament.run.replies import Cancelled, Failed, Lost, Refused, Stop
from arena.tournament.run.verify import encode_reply
from arena.tournament.store.api import StoredMatch

SPEC = MatchSpec(game="goofspiel", agents=("random", "random"), seed=1, options={"cards": 3})
MATCH = StoredMatch(1, 1, 0, "k", 1, "running", 1, None, SPEC, ("a", "b"), ())


def read_back(reply) -> object:
    """What the submitter makes of a finished task that answered ``reply`` (no cluster needed)."""
    pool = object.__new__(DaskPool)  # _reply reads nothing of the client for these replies
    pool.registry, pool.address = None, "tls://scheduler:8786"
    future = SimpleNamespace(status="finished", key="k", result=lambda: encode_reply(reply))
    return pool._reply(future, MATCH)


def test_a_refusal_stops_the_run_with_its_reason():
    assert read_back(Refused("other plugins")) == Stop("other plugins")


def test_a_task_cancelled_on_the_cluster_leaves_its_match_pending_with_a_reason():
    # Was a ("cancelled",) tuple passed on as if it were an error, whose text [1] did not exist.
    assert read_back(Cancelled()) == Failed("its Dask task was cancelled on the cluster")


def test_a_watchdog_loss_is_passed_on_as_it_came():
    assert read_back(Lost("its worker process was killed by SIGKILL", True, 1)) == Lost(
        "its worker process was killed by SIGKILL", True, 1
    )


def test_a_format_that_schedules_itself_says_so_instead_of_calling_nothing():
    with pytest.raises(ValueError, match="the compare format schedules its own matches"):
        FORMATS["compare"].meeting_groups((), 2, None)
    with pytest.raises(ValueError, match="the compare format schedules its own matches"):
        FORMATS["compare"].count_groups(3, 2)
    assert FORMATS["round-robin"].count_groups(4, 2) == 6

"""Hostile Dask workers, for tests/arena/tournament/run/test_cluster.py.

``dask worker SCHEDULER --preload tests.support.rogue_workers`` with ``TLACHTLI_ROGUE`` set to a
mode below: its ``dask_setup`` replaces the match task that ``arena run --cluster`` submits
(``arena.tournament.run.cluster.play_on_worker``, which Dask looks up by name on the worker) with a
hostile one. The worker passes the plugin check (its plugins are the honest ones).

- ``forge``: plays the match, then makes seat 0 the winner in the reply (scores and ranks);
- ``other-deal``: plays another deal (seed + 1) and answers with its true record;
- ``pickle``: answers with a pickle whose loading runs code (it creates the folder named by
  ``TLACHTLI_ROGUE_MARK``), already serialized, so that it goes out as a pickle whatever
  encoding the submitter asked for: the submitter must never load it;
- ``hang``: never answers (until the worker shuts down);
- ``seat-swap``: plays seat 0 with another bot (``prize-bidder``, or ``random`` where seat 0 is
  the bidder) and answers with a record that names the scheduled one: consistent, legal, and
  not what the scheduled bots would have played.
"""

from __future__ import annotations

import dataclasses
import json
import os
import time

from arena.tournament.run import cluster

MODE_ENV = "TLACHTLI_ROGUE"
MARK_ENV = "TLACHTLI_ROGUE_MARK"

_honest = cluster.play_on_worker


class RunsCode:
    """Unpickling it creates a folder: proof that a pickle from a worker was loaded."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self) -> tuple:
        return (os.mkdir, (self.path,))


def _forge(match, expected) -> bytes:
    reply = json.loads(_honest(match, expected))
    if reply["reply"] == "done":
        result = reply["record"]["result"]
        result["scores"][0] = max(result["scores"]) + 1
        ranks = [1] + [2] * (len(result["scores"]) - 1)
        result["ranks"], result["engine_ranks"] = ranks, list(ranks)
    return json.dumps(reply).encode()


def _other_deal(match, expected) -> bytes:
    other = dataclasses.replace(match.spec, seed=match.spec.seed + 1)
    return _honest(dataclasses.replace(match, spec=other, seed=other.seed), expected)


def _pickle(match, expected) -> object:
    """Already serialized with pickle: Dask passes it on as it is, whatever encoding was asked for."""
    from distributed.protocol.serialize import Serialized, serialize

    return Serialized(*serialize(RunsCode(os.environ[MARK_ENV]), serializers=["pickle"]))


def _hang(match, expected) -> bytes:
    from distributed import get_worker

    worker = get_worker()
    while worker.status.name not in ("closing", "closed", "closing_gracefully", "failed"):
        time.sleep(0.2)
    return b"{}"


def _seat_swap(match, expected) -> bytes:
    agents = list(match.spec.agents)
    agents[0] = "random" if agents[0] == "prize-bidder" else "prize-bidder"
    options = [{}] + [dict(o) for o in match.spec.agent_options[1:]] if match.spec.agent_options else ()
    other = dataclasses.replace(match.spec, agents=tuple(agents), agent_options=tuple(options))
    reply = json.loads(_honest(dataclasses.replace(match, spec=other), expected))
    if reply["reply"] == "done":  # the record as the scheduled match's: its spec, its seat 0
        record = reply["record"]
        record["spec"] = match.spec.to_dict()
        names = match.spec.display_names or match.spec.agents
        record["agents"][0].update(agent=match.spec.agents[0], display=names[0])
        if match.spec.agent_options:
            record["agents"][0]["options"] = dict(match.spec.agent_options[0])
    return json.dumps(reply).encode()


ROGUES = {
    "forge": _forge,
    "other-deal": _other_deal,
    "pickle": _pickle,
    "hang": _hang,
    "seat-swap": _seat_swap,
}


def dask_setup(worker: object) -> None:
    """Dask's preload hook, called as the worker starts: the match task becomes the rogue one."""
    rogue = ROGUES[os.environ[MODE_ENV]]

    def play_on_worker(match, expected):
        return rogue(match, expected)

    cluster.play_on_worker = play_on_worker

"""Plays a ladder's matches on a Dask cluster (dask.distributed): ``arena run --cluster``.

A match is one Dask task: ``play_on_worker`` plays it in the worker process with the same
``arena.tournament.runner.play`` as a local worker (agents are child processes of the worker, with their
limits and faults), and returns the same reply, which is the task's result. Everything else is
the local runner's: ``DaskPool`` sits behind ``arena.tournament.runner.Pool``, so the submitting process
stays the only writer of the store and commits each match as its task finishes; progress,
resume, Ctrl-C and the summary are the same code.

Plugins: every worker must have the submitter's games and agents at the same versions. The
workers present at the start are checked before anything is submitted; a worker that joins
later is checked by each task before it plays (its refusal stops the run, naming the worker).

Faults: a worker lost mid-match is Dask's to handle: the scheduler gives the task to another
worker, which plays the match again from its seed; only the result that reaches the submitter is
stored. A task whose workers keep dying is given up by the scheduler after its
``allowed-failures`` (``KilledWorker``) and recorded as aborted, like a local match that lost
MAX_FAILURES workers. Needs the ``cluster`` extra: ``pip install 'tlachtli[cluster]'``.
"""

from __future__ import annotations

import functools
import logging
import os
import queue
import time
from collections.abc import Callable
from typing import Any

import psutil

from arena.match import MatchSpec
from arena.plugins import PluginError, Registry, discover
from arena.tournament.runner import MAX_FAILURES, play
from arena.tournament.store import StoredMatch

LOCAL_PREFIX = "local:"  # --cluster local:N starts N local worker processes
CONNECT_TIMEOUT_S = 10.0  # to reach a scheduler, and for it to have a worker
ROOM_REFRESH_S = 2.0  # how often the cluster's size is asked again (workers join and leave)
TASKS_PER_THREAD = 2  # in flight per worker thread: one playing, one queued behind it


class ClusterError(RuntimeError):
    """The cluster cannot be used: unreachable, no workers, or workers with other plugins."""


# -- worker side: what a Dask task runs -----------------------------------------------------------


@functools.cache
def _registry() -> Registry:
    """This worker process's plugins, discovered once (as a local worker does at its start)."""
    return discover()


def plugin_versions(registry: Registry) -> dict[str, str]:
    """What every worker must agree on: each agent and game, its version and the plugin it comes from."""
    found = {f"agent {name!r}": f"version {spec.version} from {spec.source}" for name, spec in registry.agents.items()}
    for game_id, game in registry.games.items():
        found[f"game {game_id!r}"] = f"version {game.version} from {registry.game_sources[game_id]}"
    return found


def _local_versions() -> dict[str, str] | str:
    """This process's plugin versions, or why its plugins cannot load."""
    try:
        return plugin_versions(_registry())
    except PluginError as error:
        return f"cannot load its plugins: {error}"


def differences(here: dict[str, str], there: dict[str, str] | str) -> str:
    """What differs between the submitter's plugins (``here``) and a worker's, in words; '' if nothing."""
    if isinstance(there, str):
        return there
    found = []
    for thing in sorted(here.keys() | there.keys()):
        if thing not in there:
            found.append(f"{thing} is missing there")
        elif thing not in here:
            found.append(f"{thing} is there only")
        elif here[thing] != there[thing]:
            found.append(f"{thing} is {there[thing]} there, {here[thing]} here")
    return "; ".join(found)


def refusal(worker: str, difference: str) -> str:
    """The message that stops a run on a worker whose plugins differ."""
    return (
        f"Dask worker {worker} has other plugins than this machine: {difference}. "
        "Install the same games and bots on every worker (see docs/cluster.md)"
    )


def play_on_worker(spec: MatchSpec, expected: dict[str, str]) -> tuple:
    """The Dask task of one match: ``arena.tournament.runner.play`` after checking this worker's plugins.

    A worker whose plugins differ from the submitter's (``expected``) plays nothing: it answers
    ``("refused", message)``. Checking here catches workers that joined after the start.
    """
    difference = differences(expected, _local_versions())
    if difference:
        from distributed import get_worker  # dask loads only where a cluster is used: start-up time

        return ("refused", refusal(get_worker().address, difference))
    return play(spec, _registry())


# -- submitting side ---------------------------------------------------------------------------


class DaskPool:
    """``arena.tournament.runner.Pool`` on a Dask client: each match handed is a task, each result a reply.

    Keeps TASKS_PER_THREAD tasks per worker thread in flight, so workers never wait for the
    submitter and Ctrl-C has little to cancel. ``local`` is the LocalCluster it started, if any.
    """

    def __init__(self, client: Any, expected: dict[str, str], local: Any = None) -> None:
        self.client = client
        self.expected = expected
        self.local = local
        self.address = client.scheduler.address
        self.size = 1
        self._room_checked = -float("inf")
        self._tasks: dict[str, tuple[Any, StoredMatch]] = {}  # key -> (future, match)
        self._done: queue.Queue = queue.Queue()  # futures finished, from the client's thread
        self._closed = False

    def has_room(self) -> bool:
        now = time.monotonic()
        if now - self._room_checked >= ROOM_REFRESH_S:
            self._room_checked = now
            try:
                self.size = max(1, self.client.scheduler_info(n_workers=0).get("total_threads", 0))
            except Exception:  # the scheduler is gone: the futures say so (events)
                pass
        return len(self._tasks) < TASKS_PER_THREAD * self.size

    def hand(self, match: StoredMatch) -> None:
        future = self.client.submit(play_on_worker, match.spec, self.expected, pure=False)
        self._tasks[future.key] = (future, match)
        future.add_done_callback(self._done.put)

    def in_flight(self) -> int:
        return len(self._tasks)

    def events(self, timeout: float) -> list[tuple[StoredMatch, tuple]]:
        try:
            finished = [self._done.get(timeout=timeout)]
        except queue.Empty:
            return []
        while not self._done.empty():
            finished.append(self._done.get_nowait())
        found = []
        for future in finished:
            entry = self._tasks.pop(future.key, None)
            if entry is not None:  # else cancelled by us
                found.append((entry[1], self._reply(future)))
        found.sort(key=lambda event: event[1][0] == "stop")  # store the others first
        return found

    def _reply(self, future: Any) -> tuple:
        """A finished task's result as a runner reply (see ``arena.tournament.runner.Pool``)."""
        from distributed import KilledWorker  # dask loads only where a cluster is used: start-up time

        if future.status == "finished":
            try:
                reply = future.result()
            except Exception as error:  # its result could not be fetched (its worker just died, say)
                return ("error", f"{type(error).__name__}: {error}")
            return ("stop", reply[1]) if reply[0] == "refused" else reply
        if future.status == "error":
            error = future.exception()
            if isinstance(error, KilledWorker):
                times = error.allowed_failures + 1
                return (
                    "lost",
                    f"{times} Dask workers died playing it (last: {error.last_worker.address})",
                    True,
                    times,
                )
            return ("error", f"{type(error).__name__}: {error}")
        return (
            "stop",
            f"lost the Dask scheduler at {self.address} (task {future.status}); "
            "unfinished matches stay pending: run the same command again to resume",
        )

    def stop(self, stop: Any, collect: Callable[[StoredMatch, tuple], None]) -> None:
        """Keep what already finished; cancel the rest (a match already running on a remote worker
        plays to its end there, its result unused; a local cluster's workers are closed)."""
        for match, reply in self.events(0):
            collect(match, reply)
        self._cancel()

    def _cancel(self) -> None:
        futures = [future for future, _ in self._tasks.values()]
        self._tasks.clear()
        if futures:
            try:
                self.client.cancel(futures)
            except Exception:  # the scheduler is gone: nothing to cancel
                pass

    def close(self) -> None:
        """Cancel what is left and disconnect; a local cluster is shut down with every agent it started."""
        if self._closed:
            return
        self._closed = True
        self._cancel()
        family = self._local_family() if self.local is not None else []
        _quietly(self.client.close)
        if self.local is not None:
            _quietly(self.local.close)
            for process in family:  # an agent started by exec does not die with its worker
                try:
                    process.kill()
                except psutil.Error:
                    pass

    def _local_family(self) -> list[psutil.Process]:
        """The local cluster's worker processes and their descendants (agents)."""
        try:
            pids = self.client.run(os.getpid, on_error="ignore").values()
        except Exception:
            return []
        family = []
        for pid in pids:
            try:
                worker = psutil.Process(pid)
                family += [worker, *worker.children(recursive=True)]
            except psutil.Error:
                pass
        return family


def _quietly(action: Callable[[], object]) -> None:
    try:
        action()
    except Exception:  # closing a connection that is already gone
        pass


def connect(address: str) -> DaskPool:
    """A pool on the cluster ``address`` (``tcp://HOST:PORT``, or ``local:N`` to start N local worker
    processes), its workers' plugins checked against this process's; ClusterError if unusable.
    """
    try:  # dask loads only where a cluster is used: start-up time
        import dask
        from distributed import Client, LocalCluster
    except ImportError:
        raise ClusterError(
            "--cluster needs dask.distributed: pip install 'tlachtli[cluster]' (make setup installs it)"
        ) from None
    try:
        expected = plugin_versions(discover())
    except PluginError as error:
        raise ClusterError(str(error)) from None
    local = None
    logging.getLogger("distributed").setLevel(logging.ERROR)  # its own errors reach us as exceptions
    if address.startswith(LOCAL_PREFIX):
        workers = address.removeprefix(LOCAL_PREFIX)
        if not workers.isdigit() or int(workers) < 1:
            raise ClusterError(f"--cluster {address}: give local:N with N >= 1 worker processes, e.g. local:2")
        # the scheduler gives a task up once it has killed MAX_FAILURES workers, as the local runner does
        # and its workers spend no CPU on sampling their threads (Dask's profiler; matches are CPU-bound)
        settings = {
            "distributed.scheduler.allowed-failures": MAX_FAILURES - 1,
            "distributed.worker.profile.enabled": False,
        }
        with dask.config.set(settings):
            local = LocalCluster(
                n_workers=int(workers),
                threads_per_worker=1,
                processes=True,
                dashboard_address=":0",
                silence_logs=logging.CRITICAL,
            )
        client = Client(local)
    else:
        try:
            client = Client(address, timeout=CONNECT_TIMEOUT_S)
        except (OSError, TimeoutError, ValueError) as error:
            raise ClusterError(
                f"cannot reach the Dask scheduler at {address} ({_first_line(error)}): is `dask scheduler` "
                "running there? (see docs/cluster.md); nothing was played"
            ) from None
    pool = DaskPool(client, expected, local)
    try:
        _check_workers(client, address, expected)
    except BaseException:
        pool.close()
        raise
    return pool


def _check_workers(client: Any, address: str, expected: dict[str, str]) -> None:
    """Refuse a cluster with no worker, or with a worker whose plugins differ from ``expected``."""
    try:
        client.wait_for_workers(1, timeout=CONNECT_TIMEOUT_S)
    except (TimeoutError, OSError):
        raise ClusterError(
            f"the Dask scheduler at {address} has no worker (start some: `dask worker {address}`)"
        ) from None
    found = client.run(_local_versions, on_error="return")
    for worker, versions in sorted(found.items()):
        if isinstance(versions, BaseException):  # e.g. tlachtli is not installed there
            versions = f"cannot check its plugins: {type(versions).__name__}: {versions}"
        difference = differences(expected, versions)
        if difference:
            raise ClusterError(refusal(worker, difference))


def _first_line(error: BaseException) -> str:
    text = str(error).strip() or type(error).__name__
    return text.splitlines()[0]

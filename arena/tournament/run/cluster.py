"""Plays a ladder's matches on a Dask cluster (dask.distributed): ``arena run --cluster``.

A match is one Dask task: ``play_on_worker`` hands it to a match-playing process of the task
thread's own, which plays it with the same ``arena.tournament.run.worker`` code as a local worker
(agents are its child processes, with their limits and faults), under the local runner's
watchdog (``arena.tournament.run.runner.WatchedWorker``): a referee stopped, hung or killed by a bot
costs the match a lost worker, counted and retried as locally, never the Dask worker. The reply
is the task's result. Everything else is the local runner's: ``DaskPool`` sits behind
``arena.tournament.run.runner.Pool``, so the submitting process stays the only writer of the store and
commits each match as its task finishes; progress, resume, Ctrl-C and the summary are the same code.

Plugins: every worker must have the submitter's games and agents at the same versions. The
workers present at the start are checked before anything is submitted; a worker that joins
later is checked by each task before it plays (its refusal stops the run, naming the worker).

Faults of the cluster: a Dask worker lost mid-match is Dask's to handle: the scheduler gives the
task to another worker, which plays the match again from its seed; only the result that reaches
the submitter is stored, and each loss is counted in the match's ``failures`` (the scheduler's
events name the tasks a lost worker held). A task whose workers keep dying is given up by the
scheduler after its ``allowed-failures`` (``KilledWorker``) and counted as lost workers, like a
local match (aborted after MAX_FAILURES). Needs the ``cluster`` extra: ``pip install 'tlachtli[cluster]'``.

``--cluster local:N`` runs the scheduler and N single-thread workers as threads of the submitting
process (they only wait for their match-playing processes), with Dask's housekeeping turned down,
its HTTP servers on 127.0.0.1 serving nothing unless ``--dashboard``.

Trust (docs/cluster.md, Security): a remote cluster is reached over TLS with the certificates of
``arena cluster init`` (arena/tournament/run/cluster_security.py); plain ``tcp://`` only with
``--insecure-cluster``. A worker's reply is JSON bytes, fetched through the scheduler as msgpack
only, and a finished match is stored only once its record checks out (arena/tournament/run/verify.py).
A refused result, a task held past ``hold_seconds``, and the tasks of a worker that sends no
heartbeat for SILENCE_S while it holds them (a task playing its match sends one every
HEARTBEAT_S), are failed attempts of the match (played again, aborted after MAX_FAILURES), and
that worker gets no more tasks while others are left.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import logging
import multiprocessing
import queue
import random
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.match.spec import MatchSpec
from arena.registry.plugins import PluginError, Registry, discover
from arena.tournament.run import runner
from arena.tournament.run.audit import AUDIT_SHARE, HERE, WorkerStats, first_difference
from arena.tournament.run.replies import (
    Cancelled,
    Done,
    Failed,
    Lost,
    Recovered,
    Refused,
    Reply,
    Stop,
    Unchecked,
)
from arena.tournament.run.runner import WatchedWorker
from arena.tournament.run.verify import ResultRejected, checked_outcome, decode_reply, encode_reply
from arena.tournament.store.api import StoredMatch

LOCAL_PREFIX = "local:"  # --cluster local:N starts N local worker processes
CONNECT_TIMEOUT_S = 10.0  # to reach a scheduler, and for it to have a worker
ROOM_REFRESH_S = 2.0  # how often the cluster's size is asked again (workers join and leave)
TASKS_PER_THREAD = 2  # in flight per worker thread: one playing, one queued behind it
HEARTBEAT_TOPIC = "tlachtli-heartbeat"  # a task playing its match says so on this topic...
HEARTBEAT_S = 10.0  # ...this often
SILENCE_S = 120.0  # a worker holding our tasks and silent this long loses them (and our trust)
SILENCE_CHECK_S = 2.0  # how often the submitter looks for silent workers


class ClusterError(RuntimeError):
    """The cluster cannot be used: unreachable, no workers, or workers with other plugins."""


# -- worker side: what a Dask task runs -----------------------------------------------------------


@functools.cache
def _registry() -> Registry:
    """This worker process's plugins, discovered once (as a local worker does at its start)."""
    return discover()


def plugin_versions(registry: Registry) -> dict[str, str]:
    """What every worker must agree on: each agent and game, its version and the plugin it comes from."""
    found = {
        f"agent {name!r}": f"version {spec.version} from {spec.source}"
        for name, spec in registry.agents.items()
    }
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


_watched = threading.local()  # this thread's WatchedWorker
_all_watched: list[WatchedWorker] = []  # every one this process made: closed with an in-process cluster


def _watched_worker() -> WatchedWorker:
    """This worker thread's own match-playing process (started on first use, kept for the next tasks)."""
    worker = getattr(_watched, "worker", None)
    if worker is None:
        # Dask's nanny starts its worker as a daemonic process, which multiprocessing forbids to have
        # children; ours need no such care: each dies with the thread that started it (die_with_parent)
        # (_config is private, not in the stubs: multiprocessing has no public way to say this)
        multiprocessing.current_process()._config.pop("daemon", None)  # type: ignore[attr-defined]
        worker = _watched.worker = WatchedWorker()
        _all_watched.append(worker)
    return worker


def play_on_worker(match: StoredMatch, expected: dict[str, str]) -> bytes:
    """The Dask task of one match: plays it as a local worker would, after checking this worker's plugins.

    Its reply is plain JSON bytes (``arena.tournament.run.verify.encode_reply``), which the submitter
    decodes without unpickling anything and checks before storing. A worker whose plugins differ
    from the submitter's (``expected``) plays nothing: it answers ``refused``. Checking here
    catches workers that joined after the start. The match is played by a process of this task's
    own, under the local runner's watchdog (``arena.tournament.run.runner.WatchedWorker``): a referee
    stopped, hung or killed by a bot costs a ``lost`` reply, as locally, not the Dask worker. A
    task cancelled by the submitter (Ctrl-C) stops its match and answers ``cancelled``, which
    nobody reads.
    """
    from distributed import get_worker  # dask loads only where a cluster is used: start-up time

    worker = get_worker()
    difference = differences(expected, _local_versions())
    if difference:
        return encode_reply(Refused(refusal(worker.address, difference)))
    key = worker.get_current_task()

    def cancelled() -> bool:
        task = worker.state.tasks.get(key)
        return task is None or task.state == "cancelled" or worker.status.name in ("closing", "closed")

    with _heartbeat(worker):
        reply = _watched_worker().play(match, cancelled)
    return encode_reply(Cancelled() if reply is None else reply)


@contextlib.contextmanager
def _heartbeat(worker: Any) -> Iterator[None]:
    """Tell the submitter every HEARTBEAT_S that this worker is playing (an event on HEARTBEAT_TOPIC,
    which the scheduler stamps with the worker's address): a worker that stalls is found silent
    within SILENCE_S, not after its matches' worst case."""
    stop = threading.Event()

    def beat() -> None:
        while True:
            with contextlib.suppress(Exception):  # the worker is closing: its tasks end too
                worker.log_event(HEARTBEAT_TOPIC, {"beat": 1})
            if stop.wait(HEARTBEAT_S):
                return

    thread = threading.Thread(target=beat, name="tlachtli-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


# -- submitting side ---------------------------------------------------------------------------


HOLD_MARGIN_S = 60.0  # on top of hold_seconds' watchdog bounds: process starts, a loaded machine, transfers


def hold_seconds(spec: MatchSpec) -> float:
    """How long a Dask task may hold its match before the submitter takes it back and plays it again.

    The match's own bound (its clocks' worst case plus a margin: ``runner.watchdog_seconds``) for
    itself and for each task that may be queued ahead of it on the same worker thread, plus
    HOLD_MARGIN_S. A worker's own watchdog ends an honest match long before that.
    """
    return TASKS_PER_THREAD * runner.watchdog_seconds(spec) + HOLD_MARGIN_S


@dataclass(frozen=True)
class ClusterTarget:
    """Where ``arena run --cluster`` plays, and how it may talk to that cluster."""

    address: str  # local:N, tls://HOST:PORT, or (with insecure) tcp://HOST:PORT
    security: Path | None = None  # --cluster-security: the folder `arena cluster init` wrote
    insecure: bool = False  # --insecure-cluster: a plain tcp:// scheduler, knowingly
    audit: float = AUDIT_SHARE  # --audit: the share of each worker's matches played again here
    dashboard: bool = False  # --dashboard: the local cluster's dashboard, on 127.0.0.1

    @property
    def local(self) -> bool:
        return self.address.startswith(LOCAL_PREFIX)


def check_target(target: ClusterTarget) -> None:
    """Refuse (ClusterError, one line saying what to do) a cluster that would be used unsafely or wrongly."""
    address = target.address
    if target.local:
        workers = address.removeprefix(LOCAL_PREFIX)
        if not workers.isdigit() or int(workers) < 1:
            raise ClusterError(f"--cluster {address}: give local:N with N >= 1 workers, e.g. local:2")
        if target.security is not None:
            raise ClusterError("--cluster-security is for a tls:// scheduler; local:N needs none")
        if target.dashboard and importlib.util.find_spec("bokeh") is None:
            raise ClusterError("--dashboard needs bokeh on this machine: pip install 'bokeh>=3.1'")
        return
    if target.dashboard:
        raise ClusterError(
            "--dashboard is for --cluster local:N; a scheduler serves its own (see docs/cluster.md)"
        )
    if address.startswith("tls://"):
        if target.security is None:
            raise ClusterError(
                f"--cluster {address} needs --cluster-security DIR: the certificates "
                "`arena cluster init DIR` wrote (see docs/cluster.md)"
            )
        return
    if target.security is not None:
        raise ClusterError(f"--cluster-security needs a tls:// scheduler address, not {address}")
    if not target.insecure:
        raise ClusterError(
            f"--cluster {address} is neither encrypted nor authenticated: whoever reaches the scheduler "
            "runs code on every worker and on this machine. Secure it: `arena cluster init DIR`, start the "
            "scheduler and workers with the commands it prints, then --cluster tls://HOST:PORT "
            "--cluster-security DIR (docs/cluster.md); or pass --insecure-cluster on a network only you use"
        )


@dataclass
class _Task:
    """A match handed to the cluster: its future, and when the submitter takes it back (``hold_seconds``)."""

    future: Any
    match: StoredMatch
    deadline: float


class DaskPool:
    """``arena.tournament.run.runner.Pool`` on a Dask client: each match handed is a task, each result a reply.

    Keeps TASKS_PER_THREAD tasks per worker thread in flight, so workers never wait for the
    submitter and Ctrl-C has little to cancel. ``local`` is the LocalCluster it started, if any.

    A result is not trusted because a worker sent it: it is decoded from JSON and checked by
    replay (arena/tournament/run/verify.py) before it is stored. One that does not check out, and a
    task held past ``hold_seconds``, cost the match a lost worker (played again, aborted after
    MAX_FAILURES) and the worker its trust: later tasks go to the other workers while there are any.
    """

    def __init__(
        self,
        client: Any,
        expected: dict[str, str],
        registry: Registry,
        local: Any = None,
        audit: float = AUDIT_SHARE,
    ) -> None:
        self.client = client
        self.audit = audit
        self.stats = WorkerStats()
        self.taken_back: set[int] = set()  # ids of stored matches of a distrusted worker: to play again
        self._stored_by: dict[str, list[int]] = {}  # worker -> the ids of its matches accepted so far
        self._auditing: dict[int, StoredMatch] = {}  # matches held while played again here
        self._audited: queue.Queue = queue.Queue()  # (match, worker, reply, why it differs or None)
        self._audit_lock = threading.Lock()  # one audit at a time: they take this machine's cores
        self.expected = expected
        self.registry = registry
        self.local = local
        self.address = client.scheduler.address
        self.size = 1
        self._room_checked = -float("inf")
        self._tasks: dict[str, _Task] = {}  # by the task's key
        self._done: queue.Queue = queue.Queue()  # futures finished, from the client's thread
        self._losses: dict[str, list[str]] = {}  # task key -> the workers lost while it was theirs
        self._distrusted: set[str] = set()  # workers that forged a result or held a match too long
        self._heard: dict[str, float] = {}  # worker -> when its last heartbeat came (monotonic)
        self._holding: dict[str, float] = {}  # worker -> since when it holds tasks of ours
        self._silence_checked = time.monotonic()
        self._closed = False
        client.subscribe_topic("all", self._worker_removed)  # the scheduler's events: workers lost
        client.subscribe_topic(HEARTBEAT_TOPIC, self._heartbeat)

    def _heartbeat(self, event: tuple[float, dict]) -> None:
        """A task's heartbeat (the client's thread: only notes when, by the worker the scheduler
        stamped on it)."""
        message = event[1]
        if isinstance(message, dict) and isinstance(message.get("worker"), str):
            self._heard[message["worker"]] = time.monotonic()

    def _worker_removed(self, event: tuple[float, dict]) -> None:
        """Note the tasks a lost worker held: Dask plays them again elsewhere, each loss is counted
        in the match's ``failures`` as a local worker's. (The client's thread: only notes.)"""
        message = event[1]
        if isinstance(message, dict) and message.get("action") == "remove-worker" and not message["expected"]:
            for key in message.get("processing-tasks", ()):
                self._losses.setdefault(key, []).append(message.get("worker", "?"))

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
        # The one place a match is given to the cluster: a rule on which matches may run at once
        # (and where) belongs here.
        future = self.client.submit(
            play_on_worker,
            match,
            self.expected,
            pure=False,
            workers=self._trusted(),
            allow_other_workers=False,
        )
        self._tasks[future.key] = _Task(future, match, time.monotonic() + hold_seconds(match.spec))
        future.add_done_callback(self._done.put)

    def _trusted(self) -> list[str] | None:
        """The workers a task may go to: all (None) unless some lost our trust and others are left."""
        if not self._distrusted:
            return None
        try:
            workers = self.client.scheduler_info(n_workers=-1)["workers"]
        except Exception:  # the scheduler is gone: the futures say so (events)
            return None
        return [worker for worker in workers if worker not in self._distrusted] or None

    def in_flight(self) -> int:
        return len(self._tasks) + len(self._auditing)

    def events(self, timeout: float) -> list[tuple[StoredMatch, Reply]]:
        try:
            finished = [self._done.get(timeout=timeout)]
        except queue.Empty:
            finished = []
        while not self._done.empty():
            finished.append(self._done.get_nowait())
        found = []
        for future in finished:
            task = self._tasks.pop(future.key, None)
            if task is not None:  # else cancelled by us
                found += [(task.match, reply) for reply in self._replies(future, task.match)]
        found += self._overdue() + self._silent() + self._audits_done()
        found.sort(key=lambda event: isinstance(event[1], Stop))  # store the others first
        return found

    def _replies(self, future: Any, match: StoredMatch) -> list[Reply]:
        """A finished task's result as a runner reply (see ``arena.tournament.run.runner.Pool``), after a
        ``Recovered`` one if Dask played it again after losing a worker."""
        from distributed import KilledWorker  # dask loads only where a cluster is used: start-up time

        lost = self._losses.pop(future.key, [])
        if future.status == "error" and isinstance(error := future.exception(), KilledWorker):
            times = max(len(lost), error.allowed_failures + 1)
            return [
                Lost(f"{times} Dask workers died playing it (last: {error.last_worker.address})", True, times)
            ]
        reply = self._reply(future, match)
        found: list[Reply] = [Recovered(f"Dask worker {lost[-1]} died playing it", len(lost))] if lost else []
        if isinstance(reply, Stop):
            return [reply]
        if isinstance(reply, Done):
            worker = self._holder(future) or "?"
            if random.random() < self.audit:  # held until played again here (``_audits_done``)
                self._auditing[match.id] = match
                threading.Thread(target=self._audit, args=(match, worker, reply), daemon=True).start()
                return found
            reply = self._accepted(match, worker, reply)
        return [*found, reply]

    def _audit(self, match: StoredMatch, worker: str, reply: Done) -> None:
        """Play ``match`` again on this machine and compare it move by move (a thread of its own)."""
        with self._audit_lock:
            plays = []
            for _ in range(2):  # a second play only where the first differs: are the bots deterministic?
                # a worker process of its own each time, as a local run's match (one kept for the
                # next play ended after its first match here)
                auditor = WatchedWorker()
                try:
                    here = auditor.play(match, lambda: self._closed)
                finally:
                    auditor.close()
                if not isinstance(here, Done):
                    break  # not played here (stopped, lost): no verdict
                plays.append(here.outcome.record)
                self.stats.add(HERE, here.outcome.record)  # the baseline of ``stats.flagged``
                if first_difference(reply.outcome.record, plays[0]) is None:
                    break
        why = None
        if len(plays) == 2 and first_difference(plays[1], plays[0]) is None:  # deterministic, and it differs
            why = first_difference(reply.outcome.record, plays[0])
        self._audited.put((match, worker, reply, why))

    def _audits_done(self) -> list[tuple[StoredMatch, Reply]]:
        found: list[tuple[StoredMatch, Reply]] = []
        while not self._audited.empty():
            match, worker, reply, why = self._audited.get_nowait()
            if self._auditing.pop(match.id, None) is None:
                continue  # stopped meanwhile: put back by the runner
            if why is None:
                found.append((match, self._accepted(match, worker, reply)))
            else:
                what = f"played a match otherwise than its seats' bots do (this machine's replay: {why})"
                found.append((match, self._take_back(worker, match, what)))
        return found

    def _accepted(self, match: StoredMatch, worker: str, reply: Done) -> Reply:
        """``reply`` to store, unless its worker's results have become far better than chance."""
        self.stats.add(worker, reply.outcome.record)
        self._stored_by.setdefault(worker, []).append(match.id)
        flagged = self.stats.flagged(worker)
        if flagged is None:
            return reply
        return self._take_back(worker, match, f"is held back: {flagged}")

    def _take_back(self, worker: str, match: StoredMatch, what: str) -> Lost:
        """Distrust ``worker``: this match is played again, and so is every match it played in the
        run (``taken_back``: the caller puts them back to pending)."""
        self.taken_back.update(i for i in self._stored_by.pop(worker, []) if i != match.id)
        return self._distrust(worker, match, what)

    def _reply(self, future: Any, match: StoredMatch) -> Reply:
        """A finished task's result as a runner reply, a finished match's outcome checked by replay."""
        if future.status == "finished":
            try:
                reply = decode_reply(future.result())
                if isinstance(reply, Unchecked):
                    return Done(checked_outcome(match.spec, reply.record, self.registry), reply.seconds)
            except ResultRejected as error:
                what = f"sent a result that does not check out: {error}"
                return self._distrust(self._holder(future), match, what)
            except Exception as error:  # refused by the decoder (not plain data), or its worker just died
                what = f"sent a result that cannot be read ({_first_line(error)})"
                return self._distrust(self._holder(future), match, what)
            if isinstance(reply, Refused):
                return Stop(reply.reason)
            if isinstance(reply, Cancelled):  # a task we cancel is never read: someone else cancelled it
                return Failed("its Dask task was cancelled on the cluster")
            return reply
        if future.status == "error":
            raised = future.exception()
            return Failed(f"{type(raised).__name__}: {raised}")
        return Stop(
            f"lost the Dask scheduler at {self.address} (task {future.status}); "
            "unfinished matches stay pending: run the same command again to resume",
        )

    def _holder(self, future: Any) -> str | None:
        """The worker that holds a finished task's result, as the scheduler knows it (None: unknown)."""
        try:
            return next(iter(self.client.who_has([future]).get(future.key, ())), None)
        except Exception:  # the scheduler is gone
            return None

    def _distrust(self, worker: str | None, match: StoredMatch, what: str) -> Lost:
        """A failed attempt of ``match`` by ``worker``, which gets no more tasks while others are left."""
        who = f"Dask worker {worker}" if worker else "the Dask cluster"
        if worker:
            self._distrusted.add(worker)
        print(f"warning: {who} {what}; match {match.idx} ({match.key}) is played again", file=sys.stderr)
        return Lost(f"{who} {what}", True, 1)

    def _overdue(self) -> list[tuple[StoredMatch, Reply]]:
        """Tasks held past ``hold_seconds``: cancelled, and their matches handed back to be played again."""
        now = time.monotonic()
        late = [key for key, task in self._tasks.items() if now > task.deadline]
        if not late:
            return []
        try:
            running = {key: worker for worker, keys in self.client.processing().items() for key in keys}
        except Exception:  # the scheduler is gone: the futures say so
            running = {}
        found: list[tuple[StoredMatch, Reply]] = []
        for key in late:
            task = self._tasks.pop(key)
            _quietly(functools.partial(self.client.cancel, [task.future]))
            bound = f"its clocks' worst case ({hold_seconds(task.match.spec):.0f} s)"
            worker = running.get(key)
            what = f"held it past {bound}" if worker else f"did not play it within {bound}"
            found.append((task.match, self._distrust(worker, task.match, what)))
        return found

    def _silent(self) -> list[tuple[StoredMatch, Reply]]:
        """The tasks of every worker that holds some of ours and sent no heartbeat for SILENCE_S (a
        stalled or rogue worker): cancelled, played again elsewhere, the worker distrusted."""
        now = time.monotonic()
        if now - self._silence_checked < SILENCE_CHECK_S or not self._tasks:
            return []
        self._silence_checked = now
        try:
            processing = self.client.processing()
        except Exception:  # the scheduler is gone: the futures say so
            return []
        holding = {worker: [key for key in keys if key in self._tasks] for worker, keys in processing.items()}
        holding = {worker: keys for worker, keys in holding.items() if keys}
        self._holding = {worker: self._holding.get(worker, now) for worker in holding}
        found: list[tuple[StoredMatch, Reply]] = []
        for worker, keys in holding.items():
            quiet = now - max(self._heard.get(worker, -float("inf")), self._holding[worker])
            if quiet <= SILENCE_S:
                continue
            del self._holding[worker]
            for key in keys:
                task = self._tasks.pop(key)
                _quietly(functools.partial(self.client.cancel, [task.future]))
                what = f"sent no heartbeat for {quiet:.0f} s while it held the match"
                found.append((task.match, self._distrust(worker, task.match, what)))
        return found

    def stop(self, stop: Any, collect: Callable[[StoredMatch, Reply], None]) -> None:
        """Keep what already finished; cancel the rest: a task playing its match sees the cancellation
        and stops it as a local worker does on Ctrl-C (its referee ends its agents)."""
        for match, reply in self.events(0):
            collect(match, reply)
        self._cancel()

    def _cancel(self) -> None:
        futures = [task.future for task in self._tasks.values()]
        self._tasks.clear()
        if futures:
            try:
                self.client.cancel(futures)
            except Exception:  # the scheduler is gone: nothing to cancel
                pass

    def close(self) -> None:
        """Cancel what is left and disconnect; a local cluster is shut down with every process it started."""
        if self._closed:
            return
        self._closed = True
        self._cancel()
        # unsubscribed first: an event sent to a closing client is logged by the scheduler as critical
        _quietly(lambda: self.client.unsubscribe_topic("all"))
        _quietly(lambda: self.client.unsubscribe_topic(HEARTBEAT_TOPIC))
        _quietly(self.client.close)
        if self.local is not None:
            _quietly(self.local.close)
            for (
                worker
            ) in _all_watched:  # its workers were threads of this process: their match processes are ours
                worker.close()


def _quietly(action: Callable[[], object]) -> None:
    try:
        action()
    except Exception:  # closing a connection that is already gone
        pass


def connect(target: ClusterTarget | str) -> DaskPool:
    """A pool on the cluster ``target`` (``local:N`` starts a local cluster of N workers), its
    workers' plugins checked against this process's; ClusterError if unusable or unsafe (``check_target``).
    """
    target = ClusterTarget(target) if isinstance(target, str) else target
    check_target(target)
    try:  # dask loads only where a cluster is used: start-up time
        import dask
        from distributed import Client, LocalCluster
    except ImportError:
        raise ClusterError(
            "--cluster needs dask.distributed: pip install 'tlachtli[cluster]' (make setup installs it)"
        ) from None
    try:
        registry = discover()
        expected = plugin_versions(registry)
    except PluginError as error:
        raise ClusterError(str(error)) from None
    local = None
    address = target.address
    logging.getLogger("distributed").setLevel(logging.ERROR)  # its own errors reach us as exceptions
    # a worker's reply refused by the decoder (not msgpack) is logged as critical, with a traceback:
    # DaskPool says so in one line instead
    logging.getLogger("distributed.protocol.core").setLevel(logging.CRITICAL + 1)
    if target.local:
        local = _local_cluster(dask, LocalCluster, int(address.removeprefix(LOCAL_PREFIX)), target.dashboard)
        client = Client(local)
    else:
        security = None
        if target.security is not None:
            from arena.tournament.run.cluster_security import SecurityError, client_security

            try:
                security = client_security(target.security)
            except SecurityError as error:
                raise ClusterError(str(error)) from None
        try:
            # Results come through the scheduler (never straight from a worker), and only as msgpack:
            # a worker's reply in any other encoding (a pickle) is refused, never loaded here
            client = Client(
                address,
                timeout=CONNECT_TIMEOUT_S,
                security=security,
                deserializers=["msgpack"],
                direct_to_workers=False,
            )
        except (OSError, TimeoutError, ValueError) as error:
            same = (
                " Its certificates must come from the same `arena cluster init` as these." if security else ""
            )
            raise ClusterError(
                f"cannot reach the Dask scheduler at {address} ({_first_line(error)}): is `dask scheduler` "
                f"running there?{same} (see docs/cluster.md); nothing was played"
            ) from None
    pool = DaskPool(client, expected, registry, local, target.audit)
    try:
        _check_workers(client, address, expected)
    except BaseException:
        pool.close()
        raise
    return pool


def _local_cluster(dask: Any, local_cluster: Any, workers: int, dashboard: bool) -> Any:
    """A Dask cluster of ``workers`` one-thread workers in this process, listening on 127.0.0.1 only.

    Its scheduler and workers talk in memory (inproc); each still starts an HTTP server, bound to
    127.0.0.1 and, unless ``dashboard``, serving nothing (no dashboard, no pages of logs or stacks).
    Dask's own housekeeping is turned down, so that it takes little CPU from the matches, which run
    beside it on the same cores: no thread sampling (profiler), event-loop health checks every second
    instead of 50 times a second, the system monitor every 10 s, no work stealing (tasks wait on the
    scheduler until a worker thread is free), no memory manager (memory_limit=0 below: the ladder's
    limits bound the agents). Its workers are threads: none can die alone, so allowed-failures does
    not apply; a lost match process is the watchdog's (runner.WatchedWorker).
    """
    settings: dict[str, Any] = {
        "distributed.worker.profile.enabled": False,
        "distributed.admin.tick.interval": "1s",
        "distributed.admin.system-monitor.interval": "10s",
        "distributed.scheduler.work-stealing": False,
    }
    extra: dict[str, Any] = {}
    if not dashboard:
        settings |= {"distributed.scheduler.http.routes": [], "distributed.worker.http.routes": []}
        extra = {"worker_class": _worker_without_dashboard(), "scheduler_kwargs": {"dashboard": False}}
    with dask.config.set(settings):
        cluster = local_cluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=False,  # threads of this process: each plays its matches in a process of its own
            dashboard_address="127.0.0.1:0",  # its HTTP servers: else on every interface
            worker_dashboard_address="127.0.0.1:0",
            memory_limit=0,
            silence_logs=logging.CRITICAL,
            **extra,
        )
    if dashboard:
        print(f"Dask dashboard (this machine only): {cluster.dashboard_link}", file=sys.stderr)
    return cluster


def _worker_without_dashboard() -> type:
    """Dask's Worker, never serving a dashboard (LocalCluster turns it on with a worker's HTTP address)."""
    from distributed import Worker

    class QuietWorker(Worker):
        def __init__(self, *args: Any, dashboard: bool = False, **kwargs: Any) -> None:
            super().__init__(*args, dashboard=False, **kwargs)

    return QuietWorker


def _check_workers(client: Any, address: str, expected: dict[str, str]) -> None:
    """Refuse a cluster with no worker, or with a worker whose plugins differ from ``expected``."""
    try:
        client.wait_for_workers(1, timeout=CONNECT_TIMEOUT_S)
    except (TimeoutError, OSError):
        raise ClusterError(
            f"the Dask scheduler at {address} has no worker (start some: `dask worker {address}`)"
        ) from None
    try:
        found = client.run(_local_versions, on_error="return")
    except Exception as error:  # a worker answered with something that is not plain data
        raise ClusterError(f"cannot check the Dask workers' plugins: {_first_line(error)}") from None
    for worker, versions in sorted(found.items()):
        if isinstance(versions, BaseException):  # e.g. tlachtli is not installed there
            versions = f"cannot check its plugins: {type(versions).__name__}: {versions}"
        difference = differences(expected, versions)
        if difference:
            raise ClusterError(refusal(worker, difference))


def _first_line(error: BaseException) -> str:
    text = str(error).strip() or type(error).__name__
    return text.splitlines()[0]

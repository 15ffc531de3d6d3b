"""`arena run --cluster`: matches as Dask tasks, with the local runner's results and guarantees."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil
import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.match.spec import MatchSpec
from arena.registry.plugins import discover
from arena.tournament.plan.ladder import parse_ladder
from arena.tournament.plan.runs import open_run
from arena.tournament.run import cluster, runner
from arena.tournament.run.cluster_security import client_security, write_certificates
from arena.tournament.run.replies import Refused, Unchecked
from arena.tournament.run.verify import checked_outcome, decode_reply
from arena.tournament.store.api import StoredMatch
from arena.tournament.store.sqlite import Store
from tests.support import cli, rogue_workers
from tests.support.ladder_runs import (
    SLOW,
    attack_ladder,
    start,
    statuses,
    tagged_env,
    wait_for_done,
    wait_no_processes,
    write_ladder,
)
from tests.support.processes import TAG_ENV, end, eventually_empty, kept_for_the_session, processes_tagged

pytest.importorskip("distributed", reason="the cluster extra: pip install 'tlachtli[cluster]'")

ROOT = Path(__file__).resolve().parents[4]
LADDER = """\
name = "eq"
game = "goofspiel"
players = 2
matches_per_pairing = 1
seed = 3
[options]
cards = 6
[[agents]]
name = "r0"
agent = "random"
options = { seed = 0 }
[[agents]]
name = "bidder"
agent = "prize-bidder"
[[agents]]
name = "r2"
agent = "random"
options = { seed = 2 }
"""


def arena(*args: str) -> subprocess.CompletedProcess:
    return cli.arena(*args)  # the read commands in this process, `run` a real one: tests/support/cli.py


def stored(db: Path) -> dict:
    """Every stored match: status, seats and record (timings left out), by schedule index."""
    connection = sqlite3.connect(db)
    try:
        matches = {
            idx: {"status": status, "seats": [], "records": []}
            for idx, status in connection.execute("SELECT idx, status FROM matches")
        }
        for idx, *seat in connection.execute(
            "SELECT idx, seat, agent, plugin, score, rank, fault FROM seats JOIN matches ON id = match_id"
        ):
            matches[idx]["seats"].append(tuple(seat))
        from arena.tournament.store.sqlite import decode_record

        for idx, data in connection.execute("SELECT idx, data FROM records JOIN matches ON id = match_id"):
            matches[idx]["records"].append(_untimed(decode_record(data)))
    finally:
        connection.close()
    for match in matches.values():
        match["seats"].sort()
    return matches


TIMES = ("ms", "handshake_ms", "duration_ms", "started")  # record fields measured, not played


def _untimed(value):
    """A record without its measured times (which differ from run to run)."""
    if isinstance(value, dict):
        return {key: _untimed(item) for key, item in value.items() if key not in TIMES}
    if isinstance(value, list):
        return [_untimed(item) for item in value]
    return value


def test_a_cluster_run_stores_the_same_matches_and_leaderboard_as_a_local_run(tmp_path):
    ladder = tmp_path / "eq.toml"
    ladder.write_text(LADDER)
    local, dask = tmp_path / "local.db", tmp_path / "dask.db"
    assert arena("run", str(ladder), "--db", str(local), "--jobs", "2", "-q").returncode == 0
    run = arena("run", str(ladder), "--db", str(dask), "--cluster", "local:2", "-q")
    assert run.returncode == 0, run.stderr
    assert "eq: 6/6 matches done, 6 played now" in run.stdout and "with cluster local:2" in run.stdout
    expected = stored(local)
    assert len(expected) == 6 and all(len(m["records"]) == 1 for m in expected.values())
    assert stored(dask) == expected
    boards = [arena("leaderboard", "--db", str(db), "--format", "json").stdout for db in (local, dask)]
    assert json.loads(boards[0]) == json.loads(boards[1])
    # a rerun resumes: nothing left to play
    again = arena("run", str(ladder), "--db", str(dask), "--cluster", "local:1", "-q")
    assert again.returncode == 0 and "0 played now" in again.stdout


def test_a_cluster_writes_its_results_to_a_postgresql_store_each_match_once(tmp_path, postgres_server):
    from arena.tournament.store.copy import copy_store

    ladder = tmp_path / "eq.toml"
    ladder.write_text(LADDER)
    local, url = tmp_path / "local.db", postgres_server.fresh()
    assert arena("run", str(ladder), "--db", str(local), "--jobs", "2", "-q").returncode == 0
    run = arena("run", str(ladder), "--db", url, "--cluster", "local:2", "-q")
    assert run.returncode == 0, run.stderr
    assert "eq: 6/6 matches done, 6 played now" in run.stdout
    # the workers' results came through the submitter into PostgreSQL: each match once, as played locally
    copy_store(url, str(tmp_path / "copied.db"))  # read back through the store, not the workers
    copied = stored(tmp_path / "copied.db")
    assert all(m["status"] == "done" and len(m["records"]) == 1 for m in copied.values())
    assert copied == stored(local)


def failures(db: Path) -> list[int]:
    connection = sqlite3.connect(db)
    try:
        return [row[0] for row in connection.execute("SELECT failures FROM matches ORDER BY idx")]
    finally:
        connection.close()


def test_a_referee_killed_mid_match_is_replaced_and_the_match_played_again(tmp_path):
    """The attacker kills its referee once: as locally, the task's watchdog reports the lost worker,
    the match is played again from its seed, stored once, and the loss counted in ``failures``."""
    ladder = tmp_path / "attack.toml"
    ladder.write_text(
        attack_ladder(attacker="referee-killer", options=f"{{ once_in = {json.dumps(str(tmp_path))} }}")
    )
    db = tmp_path / "t.db"
    run = arena("run", str(ladder), "--db", str(db), "--cluster", "local:2", "-q")
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "attacked").exists()  # a referee was killed
    assert "attack: 2/2 matches done, 2 played now" in run.stdout
    matches = stored(db)
    assert [m["status"] for m in matches.values()] == ["done", "done"]
    assert all(len(m["records"]) == 1 and len(m["seats"]) == 2 for m in matches.values())
    assert sorted(failures(db)) == [0, 1]


@pytest.mark.parametrize(
    ("attacker", "how"),
    # slow: a stopped referee is found by the same watchdog as locally (test_runner's SIGSTOP case)
    [("referee-killer", "SIGKILL"), pytest.param("referee-stopper", "SIGSTOP", marks=pytest.mark.slow)],
)
def test_a_bot_that_kills_or_stops_its_referee_is_aborted_as_by_the_local_watchdog(tmp_path, attacker, how):
    ladder = tmp_path / "attack.toml"
    ladder.write_text(attack_ladder(attacker=attacker, options="{}"))
    db = tmp_path / "t.db"
    run = arena("run", str(ladder), "--db", str(db), "--cluster", "local:2", "-q")
    assert run.returncode == 0, run.stderr
    assert "attack: 0/2 matches done, 2 aborted, 0 played now" in run.stdout
    listed = arena("matches", "--db", str(db), "--status", "aborted").stdout
    assert listed.count(f"aborted: its worker process was lost {runner.MAX_FAILURES} times") == 2
    assert how in listed
    assert failures(db) == [runner.MAX_FAILURES] * 2
    assert eventually_empty(lambda: processes_tagged(os.environ[TAG_ENV])) == []  # a stopped referee included


def test_a_match_past_its_wall_clock_bound_is_ended_by_the_task_and_finally_aborted(tmp_path, monkeypatch):
    monkeypatch.setattr(runner, "watchdog_seconds", lambda spec: 1.0)  # a match takes ~4 s
    ladder = parse_ladder(SLOW, discover(), source="slow.toml")
    with Store(tmp_path / "t.db") as store:
        run = open_run(store, ladder)
        pool = cluster.connect("local:2")  # its workers are threads of this process: the patch holds there
        report = runner.run_pending(store, store.pending(run.id), 2, pool=pool, show_progress=False)
        found = store.matches(run.id)
    assert report.aborted == 2 and report.played == 0
    assert report.lost_workers == 2 * runner.MAX_FAILURES
    assert all(
        m.status == "aborted" and "no result within the watchdog's 1 s" in (m.reason or "") for m in found
    )


@pytest.mark.parametrize(
    ("signum", "code"),
    # slow: Ctrl-C and SIGTERM share one handler (runner._Stop.press); test_tournament sends Ctrl-C to a local run
    [pytest.param(signal.SIGINT, 130, marks=pytest.mark.slow), (signal.SIGTERM, 143)],
)
def test_ctrl_c_or_sigterm_stops_a_cluster_run_cleanly_and_the_rerun_completes(tmp_path, popen, signum, code):
    ladder = write_ladder(tmp_path, repeats=2, pace_ms=200)  # 12 matches (8 of 2 s): running when interrupted
    tag = uuid.uuid4().hex
    db = tmp_path / "t.db"
    process = start(
        popen, "run", str(ladder), "--db", str(db), "--cluster", "local:2", "-q", env=tagged_env(tag)
    )
    wait_for_done(db, 3, process)
    process.send_signal(signum)
    out, err = process.communicate(timeout=60)
    assert process.returncode == code, err
    assert "Traceback" not in err
    assert (
        err.strip().splitlines()[-1]
        == "interrupted: finished matches are stored; run the same command again to resume"
    )
    assert wait_no_processes(tag) == []  # the local cluster, its match processes and their agents
    counts = statuses(db)
    assert "running" not in counts and counts["done"] >= 3
    before = stored(db)
    resumed = arena("run", str(ladder), "--db", str(db), "--cluster", "local:2", "-q")
    assert resumed.returncode == 0 and "12/12 matches done" in resumed.stdout
    after = stored(db)
    assert {idx: after[idx] for idx in before if before[idx]["status"] == "done"} == {
        idx: match for idx, match in before.items() if match["status"] == "done"
    }  # finished matches were kept, not played again


def tls_flags(certificates: Path, role: str) -> list[str]:
    """The `dask scheduler` / `dask worker` flags that use ``role``'s certificate (as `arena cluster init` prints)."""
    return [
        "--tls-ca-file", str(certificates / "ca.pem"),
        "--tls-cert", str(certificates / f"{role}.pem"),
        "--tls-key", str(certificates / f"{role}-key.pem"),
    ]  # fmt: skip


@dataclass
class DaskCluster:
    """A `dask scheduler` over TLS on this machine, the certificates `arena cluster init` wrote for it,
    and ``add_worker(env, nanny, rogue)``, which starts a `dask worker` (one thread) for it, hostile
    if ``rogue`` names a mode of tests/support/rogue_workers.py."""

    address: str
    certificates: Path
    add_worker: Callable[..., subprocess.Popen]

    def arena_flags(self) -> list[str]:
        return ["--cluster", self.address, "--cluster-security", str(self.certificates)]

    def client(self) -> Any:
        from distributed import Client

        return Client(self.address, timeout=30, security=client_security(self.certificates))


@pytest.fixture(scope="module")
def tls_scheduler(tmp_path_factory) -> Iterator[tuple[str, Path]]:
    """A real `dask scheduler` over TLS with mutual authentication, on 127.0.0.1 (ports chosen by the
    system), and the certificates `arena cluster init` wrote for it: one for the module's tests
    (starting one costs ~2 s of CPU), each of which brings its own workers (``dask_scheduler``)."""
    folder = tmp_path_factory.mktemp("scheduler")
    certificates = folder / "certs"
    write_certificates(certificates)
    info = folder / "scheduler.json"
    scheduler = subprocess.Popen(
        [Path(sys.executable).parent / "dask", "scheduler", "--protocol", "tls", "--host", "127.0.0.1",
         "--port", "0", "--no-dashboard", "--dashboard-address", "127.0.0.1:0", "--scheduler-file", str(info),
         *tls_flags(certificates, "scheduler")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        with kept_for_the_session([scheduler.pid]):  # the module's, not the first test's leak
            deadline = time.monotonic() + 60
            while not info.exists():
                assert scheduler.poll() is None, "the dask scheduler exited"
                assert time.monotonic() < deadline, "the dask scheduler did not start"
                time.sleep(0.1)
            time.sleep(0.2)  # the file is written in one go, but give it a moment
            address = json.loads(info.read_text())["address"]
            assert address.startswith("tls://127.0.0.1:")
            yield address, certificates
    finally:
        end(scheduler)


@pytest.fixture
def dask_scheduler(tls_scheduler, popen):
    """The module's TLS scheduler (``tls_scheduler``) as a DaskCluster, for a test that starts the
    workers it needs; at its end they are stopped, gracefully, and the scheduler has none left."""
    address, certificates = tls_scheduler
    bin_dir = Path(sys.executable).parent
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    workers = []

    def add_worker(
        env: dict | None = None, nanny: bool = False, rogue: str | None = None
    ) -> subprocess.Popen:
        flags = [] if nanny else ["--no-nanny"]
        if rogue is not None:
            flags += ["--preload", "tests.support.rogue_workers"]
            env = dict(env or os.environ, **{rogue_workers.MODE_ENV: rogue})
        worker = popen([bin_dir / "dask", "worker", address, *flags, "--nthreads", "1", "--host", "127.0.0.1",
                        "--no-dashboard", "--dashboard-address", "127.0.0.1:0", *tls_flags(certificates, "worker")],
                       env=env, **quiet)  # fmt: skip
        workers.append(worker)
        return worker

    dask = DaskCluster(address, certificates, add_worker)
    yield dask
    for worker in workers:  # a nanny killed outright would leave its worker process behind
        worker.terminate()
    for worker in workers:
        try:
            worker.wait(30)
        except subprocess.TimeoutExpired:
            worker.kill()  # the popen fixture reaps it
    if workers:  # the next test counts its own workers only
        with dask.client() as client:
            deadline = time.monotonic() + 60
            while client.scheduler_info()["workers"]:
                assert time.monotonic() < deadline, "the scheduler still lists this test's workers"
                time.sleep(0.1)


@pytest.fixture
def dask_cluster(dask_scheduler):
    """A real `dask scheduler` and one `dask worker` (no nanny) without the test plugin
    `goofspiel_agents`; yields the DaskCluster."""
    dask_scheduler.add_worker(
        dict(os.environ, TLACHTLI_PLUGINS="examples.games.goofspiel.game,tests.support.faulty_agents")
    )
    yield dask_scheduler


def test_a_worker_with_other_plugins_is_refused_naming_it_and_the_difference(tmp_path, dask_cluster):
    ladder = tmp_path / "eq.toml"
    ladder.write_text(LADDER)
    db = tmp_path / "t.db"
    run = arena("run", str(ladder), "--db", str(db), *dask_cluster.arena_flags(), "-q")
    assert run.returncode == 2, run.stderr
    line = run.stderr.strip()
    assert "\n" not in line
    assert line.startswith("error: Dask worker tls://127.0.0.1:")
    assert "has other plugins than this machine: agent 'prize-bidder' is missing there" in line
    # a worker that joins later is refused by the task itself, before it plays anything
    with dask_cluster.client() as client:
        spec = MatchSpec(game="goofspiel", agents=("random", "random"), seed=1, options={"cards": 3})
        match = StoredMatch(1, 1, 0, "k", 1, "running", 1, None, spec, ("a", "b"), ())
        here = cluster.plugin_versions(cluster._registry())
        reply = decode_reply(
            client.submit(cluster.play_on_worker, match, here, pure=False).result(timeout=60)
        )
        assert isinstance(reply, Refused) and "agent 'prize-bidder' is missing there" in reply.reason
        there = next(iter(client.run(cluster._local_versions).values()))
        done = decode_reply(
            client.submit(cluster.play_on_worker, match, there, pure=False).result(timeout=60)
        )
        assert isinstance(done, Unchecked)
        assert checked_outcome(spec, done.record, discover()).seats[0].agent == "random"


def match_processes(worker_pid: int) -> list[psutil.Process]:
    """The processes a Dask worker plays matches with (its match process, their agents)."""
    try:
        family = psutil.Process(worker_pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []
    found = []
    for process in family:
        try:
            if "resource_tracker" not in " ".join(process.cmdline()):  # multiprocessing's, idle
                found.append(process)
        except psutil.Error:
            pass
    return found


def worker_pid(dask: DaskCluster) -> int:
    with dask.client() as client:
        client.wait_for_workers(1, timeout=60)
        return next(iter(client.run(os.getpid).values()))


STAGE_S = 120  # the most one stage of wait_for_a_match may take without progress


def wait_for_a_match(pid: int, process: subprocess.Popen, db: Path) -> None:
    """Until the Dask worker ``pid`` plays a match: its match process and both agents are there.

    It waits on progress, a stage at a time, not on one fixed time for all: the way to a match
    starting is a chain of Python start-ups (`arena run` with Dask, connecting over TLS and
    checking the workers' plugins; the worker's match process; two sandboxed agents), CPU work
    that a loaded machine stretches from seconds to more than a minute. (One 60 s limit over the
    whole chain was this test's flakiness under load.) A run that exits fails at once.
    """
    stages = [
        ("`arena run` handed out no match", lambda: statuses(db).get("running", 0) > 0),
        ("no match started on the Dask worker", lambda: len(match_processes(pid)) >= 3),
    ]
    for failure, reached in stages:
        deadline = time.monotonic() + STAGE_S
        while not reached():
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, failure
            time.sleep(0.05)


def test_ctrl_c_cancels_the_matches_running_on_remote_workers(tmp_path, popen, dask_scheduler):
    worker = dask_scheduler.add_worker()
    pid = worker_pid(dask_scheduler)
    ladder = tmp_path / "slow.toml"
    ladder.write_text(SLOW.replace("pace_ms = 400", "pace_ms = 3000"))  # a match takes 30 s
    db = tmp_path / "t.db"
    run = start(
        popen, "run", str(ladder), "--db", str(db), *dask_scheduler.arena_flags(), "-q", env=dict(os.environ)
    )
    wait_for_a_match(pid, run, db)
    run.send_signal(signal.SIGINT)
    out, err = run.communicate(timeout=60)
    assert run.returncode == 130 and "Traceback" not in err, err
    # the task saw its cancellation and stopped its match, long before the match could end
    assert eventually_empty(lambda: match_processes(pid), seconds=15) == []
    assert worker.poll() is None  # the Dask worker itself goes on
    counts = statuses(db)
    assert counts == {"pending": 2}


def test_a_dask_worker_lost_mid_match_is_counted_in_failures_and_the_match_stored_once(
    tmp_path, popen, dask_scheduler
):
    dask_scheduler.add_worker(nanny=True)  # the nanny starts a new worker process when this one dies
    pid = worker_pid(dask_scheduler)
    ladder = tmp_path / "slow.toml"
    ladder.write_text(SLOW)
    db = tmp_path / "t.db"
    run = start(
        popen, "run", str(ladder), "--db", str(db), *dask_scheduler.arena_flags(), "-q", env=dict(os.environ)
    )
    wait_for_a_match(pid, run, db)
    os.kill(pid, signal.SIGKILL)
    out, err = run.communicate(timeout=180)
    assert run.returncode == 0, err
    assert "slow: 2/2 matches done, 2 played now" in out
    matches = stored(db)
    assert all(m["status"] == "done" and len(m["records"]) == 1 for m in matches.values())
    # the match it was playing counts one lost worker (Dask counts it against the task queued behind, too)
    assert sorted(failures(db)) in ([0, 1], [1, 1])


def test_an_unreachable_scheduler_is_one_clear_line_and_loses_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT_S", 1.0)
    ladder = tmp_path / "eq.toml"
    ladder.write_text(LADDER)
    db = tmp_path / "t.db"
    result = CliRunner().invoke(
        app,
        ["run", str(ladder), "--db", str(db), "--cluster", "tcp://127.0.0.1:9", "--insecure-cluster", "-q"],
    )
    assert result.exit_code == 2
    assert result.output.startswith("error: cannot reach the Dask scheduler at tcp://127.0.0.1:9")
    assert "is `dask scheduler` running there?" in result.output
    assert result.output.count("\n") == 1
    # the ladder waits, whole, for a rerun
    connection = sqlite3.connect(db)
    assert connection.execute("SELECT status, COUNT(*) FROM matches GROUP BY status").fetchall() == [
        ("pending", 6)
    ]
    connection.close()


# -- safe by default ---------------------------------------------------------------------------


def listening() -> set[tuple[str, int]]:
    """The addresses this process listens on (TCP)."""
    return {
        (c.laddr.ip, c.laddr.port)
        for c in psutil.Process().net_connections("tcp")
        if c.status == psutil.CONN_LISTEN
    }


def serves_http(ip: str, port: int, path: str) -> int | None:
    """The HTTP status of ``path`` there (None: no HTTP answer)."""
    import http.client

    connection = http.client.HTTPConnection(ip, port, timeout=10)
    try:
        connection.request("GET", path)
        return connection.getresponse().status
    except OSError:
        return None
    finally:
        connection.close()


@pytest.mark.parametrize("dashboard", [False, True])
def test_a_local_cluster_listens_on_loopback_only_and_serves_no_pages_unless_asked(dashboard):
    if dashboard:
        pytest.importorskip("bokeh", reason="--dashboard needs bokeh")
    before = listening()
    pool = cluster.connect(cluster.ClusterTarget("local:2", dashboard=dashboard))
    try:
        opened = listening() - before
        assert opened, "Dask starts HTTP servers: they must be found here"
        assert {ip for ip, _ in opened} == {"127.0.0.1"}  # never 0.0.0.0 or ::
        pages = ["/", "/status", "/info/main/workers.html", "/health", "/metrics", "/json/identity.json"]
        answers = {(port, path): serves_http(ip, port, path) for ip, port in opened for path in pages}
        if dashboard:
            assert any(status == 200 for status in answers.values())
        else:
            assert not [where for where, status in answers.items() if status == 200], answers
    finally:
        pool.close()


def test_a_plain_tcp_cluster_is_refused_unless_insecure_and_tls_needs_certificates(tmp_path):
    ladder = tmp_path / "eq.toml"
    ladder.write_text(LADDER)
    db = tmp_path / "t.db"
    refused = CliRunner().invoke(
        app, ["run", str(ladder), "--db", str(db), "--cluster", "tcp://10.0.0.7:8786"]
    )
    assert refused.exit_code == 2 and refused.output.count("\n") == 1
    assert "is neither encrypted nor authenticated" in refused.output
    assert "`arena cluster init DIR`" in refused.output and "--insecure-cluster" in refused.output
    assert not db.exists()  # refused before anything was opened
    bare = CliRunner().invoke(app, ["run", str(ladder), "--db", str(db), "--cluster", "10.0.0.7:8786"])
    assert bare.exit_code == 2 and "is neither encrypted nor authenticated" in bare.output
    no_certs = CliRunner().invoke(
        app, ["run", str(ladder), "--db", str(db), "--cluster", "tls://10.0.0.7:8786"]
    )
    assert no_certs.exit_code == 2 and "needs --cluster-security DIR" in no_certs.output
    missing = CliRunner().invoke(
        app,
        [
            "run",
            str(ladder),
            "--db",
            str(db),
            "--cluster",
            "tls://127.0.0.1:9",
            "--cluster-security",
            str(tmp_path),
        ],
    )
    assert (
        missing.exit_code == 2 and "arena cluster init" in missing.output and missing.output.count("\n") == 1
    )


def test_cluster_init_writes_private_keys_and_prints_the_commands_that_use_them(tmp_path):
    folder = tmp_path / "certs"
    result = CliRunner().invoke(app, ["cluster", "init", str(folder)])
    assert result.exit_code == 0, result.output
    for role in ("scheduler", "worker", "client"):
        assert (folder / f"{role}-key.pem").stat().st_mode & 0o777 == 0o600
        assert (folder / f"{role}.pem").is_file()
    assert (folder / "ca.pem").is_file() and not list(folder.glob("ca-key*"))  # the CA's key is not kept
    lines = result.output.splitlines()
    scheduler = next(line.strip() for line in lines if line.strip().startswith("dask scheduler"))
    worker = next(line.strip() for line in lines if line.strip().startswith("dask worker"))
    assert f"--tls-cert {folder / 'scheduler.pem'} --tls-key {folder / 'scheduler-key.pem'}" in scheduler
    assert f"--tls-cert {folder / 'worker.pem'} --tls-key {folder / 'worker-key.pem'}" in worker
    assert "--protocol tls" in scheduler and "--protocol tls" in worker
    assert f"--cluster-security {folder}" in result.output
    again = CliRunner().invoke(app, ["cluster", "init", str(folder)])
    assert again.exit_code == 2 and "already holds cluster certificates" in again.output


SMALL = """\
name = "small"
game = "goofspiel"
players = 2
matches_per_pairing = 2
seed = 9
[options]
cards = 4
[[agents]]
name = "r0"
agent = "random"
options = { seed = 0 }
[[agents]]
name = "bidder"
agent = "prize-bidder"
"""


@pytest.fixture(scope="module")
def small_local(tmp_path_factory) -> tuple[Path, dict, list]:
    """The SMALL ladder played locally, once for the module: its file, its stored matches and its
    leaderboard (the tests read them only)."""
    folder = tmp_path_factory.mktemp("small")
    ladder, db = folder / "small.toml", folder / "local.db"
    ladder.write_text(SMALL)
    with pytest.MonkeyPatch.context() as patch:  # conftest's plugin setting is per test
        patch.setenv("TLACHTLI_PLUGINS", "examples.games.goofspiel.game,examples.games.goofspiel.agents")
        patch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
        assert arena("run", str(ladder), "--db", str(db), "--jobs", "2", "-q").returncode == 0
        board = json.loads(arena("leaderboard", "--db", str(db), "--format", "json").stdout)
    return ladder, stored(db), board


def test_a_tls_cluster_of_two_workers_plays_a_ladder_to_the_same_table_as_a_local_run(
    tmp_path, dask_scheduler, small_local
):
    ladder, expected, board = small_local
    dask_scheduler.add_worker()
    dask_scheduler.add_worker()
    db = tmp_path / "tls.db"
    run = arena("run", str(ladder), "--db", str(db), *dask_scheduler.arena_flags(), "-q")
    assert run.returncode == 0, run.stderr
    assert "small: 4/4 matches done, 4 played now" in run.stdout
    assert stored(db) == expected
    assert json.loads(arena("leaderboard", "--db", str(db), "--format", "json").stdout) == board
    with dask_scheduler.client() as client:  # both workers took part in it
        assert len(client.scheduler_info()["workers"]) == 2
    # without the cluster's certificates, no way in: no certificate, or one of another CA
    strangers = tmp_path / "strangers"
    write_certificates(strangers)
    assert refused_by_tls(dask_scheduler.address, ca=dask_scheduler.certificates / "ca.pem")
    assert refused_by_tls(dask_scheduler.address, ca=dask_scheduler.certificates / "ca.pem", client=strangers)


TLS_TIMEOUT_S = 60.0


def refused_by_tls(address: str, ca: Path, client: Path | None = None) -> bool:
    """Whether the TLS server at ``address`` refuses a client without a certificate (or with
    ``client``'s, from `arena cluster init`): it ends the connection before any of Dask's data."""
    import socket
    import ssl

    host, port = address.removeprefix("tls://").rsplit(":", 1)
    context = ssl.create_default_context(cafile=str(ca))
    context.check_hostname = False
    if client is not None:
        context.load_cert_chain(str(client / "client.pem"), str(client / "client-key.pem"))
    with socket.create_connection((host, int(port)), timeout=TLS_TIMEOUT_S) as raw:
        try:
            with context.wrap_socket(raw) as tls:
                return tls.recv(1) == b""  # TLS 1.3: the server's refusal comes with the first read
        except (ssl.SSLError, ConnectionResetError):
            return True


def test_forged_results_are_not_stored_and_their_matches_are_played_again_elsewhere(
    tmp_path, dask_scheduler, small_local
):
    """Two rogue workers (a forged winner, another deal's true record) beside an honest one: their
    results are refused, logged, and their matches played again by the honest worker."""
    ladder, expected, _ = small_local
    for rogue in ("forge", "other-deal"):
        dask_scheduler.add_worker(rogue=rogue)
    dask_scheduler.add_worker()
    with dask_scheduler.client() as client:
        client.wait_for_workers(3, timeout=120)
    db = tmp_path / "t.db"
    run = arena("run", str(ladder), "--db", str(db), *dask_scheduler.arena_flags(), "-q")
    assert run.returncode == 0, run.stderr
    assert stored(db) == expected  # the same records and seats as the local run: nothing forged
    warnings = [line for line in run.stderr.splitlines() if line.startswith("warning: Dask worker tls://")]
    assert any("does not check out: its record does not replay" in line for line in warnings), run.stderr
    assert any("does not check out: its record's seed is" in line for line in warnings), run.stderr
    assert all(line.endswith("is played again") for line in warnings)
    assert sum(failures(db)) == len(warnings) >= 2  # each refusal is a failed attempt of its match


def test_a_pickled_result_is_never_loaded_and_a_worker_that_only_forges_gets_its_matches_aborted(
    tmp_path, dask_scheduler
):
    mark = tmp_path / "pickle-ran"
    dask_scheduler.add_worker(env=dict(os.environ, **{rogue_workers.MARK_ENV: str(mark)}), rogue="pickle")
    ladder = tmp_path / "small.toml"
    ladder.write_text(SMALL.replace("matches_per_pairing = 2", "matches_per_pairing = 1"))
    db = tmp_path / "t.db"
    run = arena("run", str(ladder), "--db", str(db), *dask_scheduler.arena_flags(), "-q")
    assert not mark.exists()  # the pickle's code never ran here
    assert run.returncode == 0, run.stderr
    assert "small: 0/2 matches done, 2 aborted, 0 played now" in run.stdout
    assert run.stderr.count("sent a result that cannot be read") == 2 * runner.MAX_FAILURES
    assert "Traceback" not in run.stderr
    listed = arena("matches", "--db", str(db), "--status", "aborted").stdout
    assert listed.count("sent a result that cannot be read") == 2
    assert failures(db) == [runner.MAX_FAILURES] * 2


def test_a_worker_that_never_answers_loses_its_matches_and_the_run_finishes(
    tmp_path, dask_scheduler, monkeypatch
):
    """Short clocks make a short bound: a hung worker holds a match past it, the match is played elsewhere."""
    # The bound: (3 + 2 x 0.5) s a match, for it and the one queued ahead of it, + 2 s. Here only: the
    # workers' own watchdogs keep their defaults. An honest match held past it under load is lost and
    # played again too (up to MAX_FAILURES): the run still finishes, which is what is checked.
    monkeypatch.setattr(runner, "WATCHDOG_DECISIONS", 0)
    monkeypatch.setattr(runner, "WATCHDOG_MARGIN_S", 0.0)
    monkeypatch.setattr(cluster, "HOLD_MARGIN_S", 2.0)
    dask_scheduler.add_worker(rogue="hang")
    dask_scheduler.add_worker()
    text = SMALL.replace("matches_per_pairing = 2", "matches_per_pairing = 1")
    text += "[clock]\nmove_ms = 250\nbank_ms = 500\nhandshake_ms = 3000\n"
    ladder = parse_ladder(text, discover(), source="short.toml")
    with dask_scheduler.client() as client:
        client.wait_for_workers(2, timeout=120)
    with Store(tmp_path / "t.db") as store:
        run = open_run(store, ladder)
        pool = cluster.connect(cluster.ClusterTarget(dask_scheduler.address, dask_scheduler.certificates))
        report = runner.run_pending(store, store.pending(run.id), 1, pool=pool, show_progress=False)
        found = store.matches(run.id)
    assert not report.errors and report.played + report.aborted == 2  # it finished
    assert report.lost_workers >= 1 and sum(m.failures for m in found) == report.lost_workers


def test_a_silent_worker_loses_its_match_within_the_silence_bound_not_the_clocks_worst_case(
    tmp_path, dask_scheduler, monkeypatch, capsys
):
    """A worker that stalls holding a match (here: never answers, never beats) once kept it for the
    worst case of its clocks (minutes; over an hour with long clocks): it now loses it once silent
    for SILENCE_S (here 20 s), and the honest worker, which beats while it plays, plays it."""
    monkeypatch.setattr(cluster, "SILENCE_S", 20.0)
    dask_scheduler.add_worker(rogue="hang")
    dask_scheduler.add_worker()
    ladder = parse_ladder(
        SMALL.replace("matches_per_pairing = 2", "matches_per_pairing = 1"), discover(), source="s.toml"
    )
    with dask_scheduler.client() as client:
        client.wait_for_workers(2, timeout=120)
    with Store(tmp_path / "t.db") as store:
        run = open_run(store, ladder)
        bound = cluster.hold_seconds(store.pending(run.id)[0].spec)
        assert bound > 120  # the old bound: what the test would wait without heartbeats
        pool = cluster.connect(cluster.ClusterTarget(dask_scheduler.address, dask_scheduler.certificates))
        started = time.monotonic()
        report = runner.run_pending(store, store.pending(run.id), 1, pool=pool, show_progress=False)
        took = time.monotonic() - started
        found = store.matches(run.id)
    assert report.played == 2 and not report.errors, report.errors
    assert took < bound / 2, f"{took:.0f} s"
    assert report.lost_workers >= 1 and sum(m.failures for m in found) == report.lost_workers
    assert "sent no heartbeat for 2" in capsys.readouterr().err


def test_a_worker_playing_a_seat_with_another_bot_is_caught_by_an_audit_and_its_matches_replayed(
    tmp_path, dask_scheduler, small_local
):
    """A rogue worker plays seat 0 with another bot and answers with a consistent record naming the
    scheduled one (the replay check proves the moves legal, not who chose them). Audited here move
    by move (the SMALL ladder's bots are deterministic), it is distrusted and every match it
    played is played again: the table is the local run's."""
    ladder, expected, _ = small_local
    dask_scheduler.add_worker(rogue="seat-swap")
    dask_scheduler.add_worker()
    with dask_scheduler.client() as client:
        client.wait_for_workers(2, timeout=120)
    db = tmp_path / "t.db"
    run = arena("run", str(ladder), "--db", str(db), *dask_scheduler.arena_flags(), "--audit", "1", "-q")
    assert run.returncode == 0, run.stderr
    assert stored(db) == expected, run.stderr
    warnings = [line for line in run.stderr.splitlines() if "otherwise than its seats' bots" in line]
    assert warnings and all(line.startswith("warning: Dask worker tls://") for line in warnings), run.stderr
    assert "this machine's replay: move " in warnings[0]

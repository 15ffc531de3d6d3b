"""A real PostgreSQL server for the tests: ``initdb`` and ``pg_ctl`` in a temporary folder.

One server per pytest process (each xdist worker has its own), listening only on a unix socket
in its folder; one fresh database per test, created from a template that is already migrated.
As root (CI), the server runs as the ``postgres`` user (it refuses to run as root) and its folder
is made theirs. It is stopped on every path: by the session fixture's finalizer, and at exit.
No mock: every test that names the "postgresql" backend talks to this server.
"""

from __future__ import annotations

import atexit
import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

# Debian keeps the server's binaries off PATH, under its major version: the newest found is used
BINS = sorted(
    Path("/usr/lib/postgresql").glob("*/bin"),
    key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0,
)
TEMPLATE = "tlachtli_template"


def _tool(name: str) -> str | None:
    for folder in reversed(BINS):
        if (folder / name).exists():
            return str(folder / name)
    return shutil.which(name)


def available() -> str | None:
    """Why no server can be started here, or None when one can."""
    if _tool("initdb") is None or _tool("pg_ctl") is None:
        return "no PostgreSQL server binaries (initdb, pg_ctl): `make setup` installs them as root"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root without a postgres user to run the server as"
    return None


@dataclass
class Server:
    """A running server; ``url(name)`` is a database on it."""

    folder: Path
    user: str
    _counter: Iterator[int] = field(default_factory=itertools.count)
    stopped: bool = False

    def url(self, database: str) -> str:
        return f"postgresql://{self.user}@/{database}?host={self.folder}"

    def admin(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(sql)  # type: ignore[arg-type]

    def fresh(self, migrated: bool = True) -> str:
        """The URL of a new, empty database of its own (``migrated``: at the latest schema)."""
        name = f"t{os.getpid()}_{next(self._counter)}"
        self.admin(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE if migrated else 'template0'}")
        return self.url(name)

    def pid(self) -> int:
        return int((self.folder / "data" / "postmaster.pid").read_text().split()[0])

    def stop(self) -> None:
        """Stop it at once (``-m immediate``: its databases are thrown away) and remove its folder."""
        if self.stopped:
            return
        self.stopped = True
        _as_owner(
            self.user,
            [_tool("pg_ctl") or "pg_ctl", "stop", "-m", "immediate", "-w", "-D", str(self.folder / "data")],
        )
        shutil.rmtree(self.folder, ignore_errors=True)


def _as_owner(user: str, argv: list[str]) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TLACHTLI_")}  # not a test's leak
    if os.geteuid() == 0:
        argv = ["runuser", "-u", user, "--", *argv]
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60, check=False)


def start() -> Server:
    """Start a server in a new temporary folder, with a migrated template database."""
    root = os.geteuid() == 0
    user = "postgres" if root else pwd.getpwuid(os.geteuid()).pw_name
    folder = Path(tempfile.mkdtemp(prefix="tlachtli-pg-"))
    if root:
        owner = pwd.getpwnam(user)
        os.chown(folder, owner.pw_uid, owner.pw_gid)
    data = folder / "data"
    done = _as_owner(
        user,
        [
            _tool("initdb") or "initdb",
            "-D",
            str(data),
            "-U",
            user,
            "-A",
            "trust",
            "-E",
            "UTF8",
            "--no-sync",
            "--no-instructions",
        ],
    )
    if done.returncode:
        shutil.rmtree(folder, ignore_errors=True)
        raise RuntimeError(f"initdb failed: {done.stderr or done.stdout}")
    server = Server(folder, user)
    atexit.register(server.stop)  # a crashed session still stops it
    options = (
        f"-k {folder} -c listen_addresses='' -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        " -c max_connections=200 -c shared_buffers=32MB"
    )
    done = _as_owner(
        user,
        [
            _tool("pg_ctl") or "pg_ctl",
            "start",
            "-w",
            "-t",
            "60",
            "-D",
            str(data),
            "-l",
            str(folder / "log"),
            "-o",
            options,
        ],
    )
    if done.returncode:
        log = (folder / "log").read_text() if (folder / "log").exists() else ""
        server.stop()
        raise RuntimeError(f"pg_ctl start failed: {done.stderr or done.stdout}\n{log}")
    server.admin(f"CREATE DATABASE {TEMPLATE}")
    from arena.tournament.store.postgres import PostgresStore

    PostgresStore(server.url(TEMPLATE)).close()  # migrated once: each test's copy starts ready
    return server

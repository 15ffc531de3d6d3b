"""Where a competition's accounts are kept: one SQLite file in a private folder beside the
tournament's database (``accounts/accounts.db``, the folder 0700 like ``submissions/``).

One job: keep users, their password hashes (argon2), sessions, API tokens, one-time sign-in
links, the operator's switches (suspended bots, locked submissions) and download counts. It
decides nothing about HTTP. Every secret handed out (session, token, link) is 256 random bits
kept only as its SHA-256, so a copy of the file signs nobody in. The SQL is plain with ``?``
placeholders and no SQLite-only types, so another backend can follow the same ``Accounts``
interface.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from arena.tournament.store.opening import data_folder

FOLDER = "accounts"
FILE = "accounts.db"
SESSION_S = 30 * 24 * 3600  # a session lasts 30 days unless signed out
LINK_S = 24 * 3600  # a one-time sign-in link is good for a day
ROLES = ("player", "operator")
NAME = re.compile(r"[a-z][a-z0-9_-]{1,31}")
MIN_PASSWORD = 10
MAX_PASSWORD = 1024  # argon2 hashes anything, but a megabyte of password is an attack

SCHEMA = """
CREATE TABLE IF NOT EXISTS users (
    name TEXT PRIMARY KEY,
    password TEXT,
    role TEXT NOT NULL,
    suspended INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL,
    token TEXT UNIQUE,
    link TEXT UNIQUE,
    link_expires REAL
);
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL REFERENCES users(name),
    csrf TEXT NOT NULL,
    expires REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS suspended_bots (bot TEXT PRIMARY KEY, since REAL NOT NULL);
CREATE TABLE IF NOT EXISTS downloads (name TEXT NOT NULL, day TEXT NOT NULL, count INTEGER NOT NULL,
    PRIMARY KEY (name, day));
"""


class AccountError(ValueError):
    """A request the accounts refuse (a taken name, a short password): one line for the user."""


@dataclass(frozen=True)
class User:
    """An account as the web sees it (never its password hash or token)."""

    name: str
    role: str
    suspended: bool
    has_password: bool

    @property
    def operator(self) -> bool:
        return self.role == "operator"


@dataclass(frozen=True)
class Session:
    """A signed-in browser: its user and the CSRF token its forms carry."""

    user: User
    csrf: str


class Accounts(Protocol):
    """What the web and the CLI ask of the accounts (``SqliteAccounts`` is the one kept today)."""

    def add_user(self, name: str, password: str | None = None, role: str = "player") -> User: ...
    def user(self, name: str) -> User | None: ...
    def users(self) -> list[User]: ...
    def check_password(self, name: str, password: str) -> User | None: ...
    def set_password(self, name: str, password: str) -> None: ...
    def sign_in_link(self, name: str) -> str: ...
    def redeem_link(self, link: str) -> User | None: ...
    def open_session(self, name: str) -> tuple[str, str]: ...
    def session(self, token: str) -> Session | None: ...
    def close_session(self, token: str) -> None: ...
    def new_api_token(self, name: str) -> str: ...
    def user_by_api_token(self, token: str) -> User | None: ...
    def set_suspended(self, name: str, suspended: bool) -> None: ...
    def set_role(self, name: str, role: str) -> None: ...
    def submissions_locked(self) -> bool: ...
    def lock_submissions(self, locked: bool) -> None: ...
    def bot_suspended(self, bot: str) -> bool: ...
    def suspend_bot(self, bot: str, suspended: bool) -> None: ...
    def count_download(self, name: str) -> int: ...


def accounts_folder(db: str | os.PathLike[str]) -> Path:
    """The accounts folder of the tournament whose database is ``db``: beside a SQLite file, in
    TLACHTLI_DATA for a PostgreSQL store (StoreError when that is not set)."""
    return data_folder(os.fspath(db)) / FOLDER


def digest(secret: str) -> str:
    """How a handed-out secret is kept: its SHA-256 (256 random bits need no slow hash)."""
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def check_name(name: str) -> str:
    """``name`` if it is a valid account name, else AccountError saying what one is."""
    if not NAME.fullmatch(name):
        raise AccountError(
            "a user name is 2-32 characters: lower-case letters, digits, '-' or '_', a letter first"
        )
    return name


def check_password_text(password: str) -> str:
    if len(password) < MIN_PASSWORD:
        raise AccountError(f"a password has at least {MIN_PASSWORD} characters")
    if len(password) > MAX_PASSWORD:
        raise AccountError(f"a password has at most {MAX_PASSWORD} characters")
    return password


class SqliteAccounts:
    """The accounts of one competition in ``folder/accounts.db``."""

    def __init__(self, folder: Path, hasher: PasswordHasher | None = None) -> None:
        self.folder = folder
        self.path = folder / FILE
        self.hasher = hasher or PasswordHasher()
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        db = self._connect()
        try:
            db.execute("PRAGMA journal_mode=WAL")  # readers beside a writer (threads of the server)
            db.executescript(SCHEMA)
        finally:
            db.close()
        os.chmod(self.path, 0o600)
        # a known hash to verify against when the name is unknown: the answer takes as long
        self._dummy = self.hasher.hash(secrets.token_urlsafe(16))

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        db.row_factory = sqlite3.Row
        return db

    @contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        """One connection and transaction per operation (requests are served from several threads)."""
        db = self._connect()
        try:
            db.execute("BEGIN IMMEDIATE")
            yield db
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        finally:
            db.close()

    @staticmethod
    def _user(row: sqlite3.Row) -> User:
        return User(row["name"], row["role"], bool(row["suspended"]), row["password"] is not None)

    # -- users ---------------------------------------------------------------------------------

    def add_user(self, name: str, password: str | None = None, role: str = "player") -> User:
        """A new account; without a password it signs in first by a link (``sign_in_link``)."""
        check_name(name)
        if role not in ROLES:
            raise AccountError(f"unknown role {role!r}; roles: {', '.join(ROLES)}")
        hashed = self.hasher.hash(check_password_text(password)) if password is not None else None
        with self._db() as db:
            if db.execute("SELECT 1 FROM users WHERE name = ?", (name,)).fetchone():
                raise AccountError(f"the name {name!r} is taken; choose another")
            db.execute(
                "INSERT INTO users (name, password, role, created) VALUES (?, ?, ?, ?)",
                (name, hashed, role, time.time()),
            )
        return User(name, role, False, hashed is not None)

    def user(self, name: str) -> User | None:
        with self._db() as db:
            row = db.execute("SELECT * FROM users WHERE name = ?", (name,)).fetchone()
        return self._user(row) if row else None

    def users(self) -> list[User]:
        with self._db() as db:
            return [self._user(row) for row in db.execute("SELECT * FROM users ORDER BY name")]

    def check_password(self, name: str, password: str) -> User | None:
        """The user if ``password`` is theirs and they are not suspended; None otherwise (as slow
        either way, so the time tells no name)."""
        with self._db() as db:
            row = db.execute("SELECT * FROM users WHERE name = ?", (name,)).fetchone()
        stored = row["password"] if row is not None and row["password"] else self._dummy
        try:
            self.hasher.verify(stored, password[:MAX_PASSWORD])
        except (VerificationError, InvalidHashError):
            return None
        if row is None or row["password"] is None or row["suspended"]:
            return None
        if self.hasher.check_needs_rehash(stored):
            self.set_password(name, password)
        return self._user(row)

    def set_password(self, name: str, password: str) -> None:
        hashed = self.hasher.hash(check_password_text(password))
        with self._db() as db:
            db.execute("UPDATE users SET password = ? WHERE name = ?", (hashed, name))

    def set_suspended(self, name: str, suspended: bool) -> None:
        """Suspend (or restore) an account; a suspension also ends its sessions and token."""
        with self._db() as db:
            if (
                db.execute("UPDATE users SET suspended = ? WHERE name = ?", (int(suspended), name)).rowcount
                == 0
            ):
                raise AccountError(f"no user named {name!r}")
            if suspended:
                db.execute("DELETE FROM sessions WHERE name = ?", (name,))
                db.execute("UPDATE users SET token = NULL WHERE name = ?", (name,))

    def set_role(self, name: str, role: str) -> None:
        if role not in ROLES:
            raise AccountError(f"unknown role {role!r}; roles: {', '.join(ROLES)}")
        with self._db() as db:
            if db.execute("UPDATE users SET role = ? WHERE name = ?", (role, name)).rowcount == 0:
                raise AccountError(f"no user named {name!r}")

    # -- one-time links, sessions, API tokens -------------------------------------------------------

    def sign_in_link(self, name: str) -> str:
        """A fresh one-time sign-in secret for ``name`` (good for a day; replaces an older one)."""
        link = secrets.token_urlsafe(32)
        with self._db() as db:
            changed = db.execute(
                "UPDATE users SET link = ?, link_expires = ? WHERE name = ?",
                (digest(link), time.time() + LINK_S, name),
            ).rowcount
        if not changed:
            raise AccountError(f"no user named {name!r}")
        return link

    def redeem_link(self, link: str) -> User | None:
        """The user of a sign-in link, used up now; None if unknown, used or expired."""
        with self._db() as db:
            row = db.execute("SELECT * FROM users WHERE link = ?", (digest(link),)).fetchone()
            if row is None:
                return None
            db.execute("UPDATE users SET link = NULL, link_expires = NULL WHERE name = ?", (row["name"],))
        if row["link_expires"] < time.time() or row["suspended"]:
            return None
        return self._user(row)

    def open_session(self, name: str) -> tuple[str, str]:
        """A new session for ``name``: (the cookie's secret, the session's CSRF token)."""
        token, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        now = time.time()
        with self._db() as db:
            db.execute("DELETE FROM sessions WHERE expires < ?", (now,))
            db.execute(
                "INSERT INTO sessions (id, name, csrf, expires) VALUES (?, ?, ?, ?)",
                (digest(token), name, csrf, now + SESSION_S),
            )
        return token, csrf

    def session(self, token: str) -> Session | None:
        """The live session of a cookie's secret, or None (unknown, expired, or user suspended)."""
        with self._db() as db:
            row = db.execute(
                "SELECT u.*, s.csrf, s.expires FROM sessions s JOIN users u ON u.name = s.name WHERE s.id = ?",
                (digest(token),),
            ).fetchone()
        if row is None or row["expires"] < time.time() or row["suspended"]:
            return None
        return Session(self._user(row), row["csrf"])

    def close_session(self, token: str) -> None:
        with self._db() as db:
            db.execute("DELETE FROM sessions WHERE id = ?", (digest(token),))

    def new_api_token(self, name: str) -> str:
        """A new API token for ``name``, shown once; the previous one stops working."""
        token = "tl_" + secrets.token_urlsafe(32)
        with self._db() as db:
            db.execute("UPDATE users SET token = ? WHERE name = ?", (digest(token), name))
        return token

    def user_by_api_token(self, token: str) -> User | None:
        with self._db() as db:
            row = db.execute("SELECT * FROM users WHERE token = ?", (digest(token),)).fetchone()
        return self._user(row) if row is not None and not row["suspended"] else None

    # -- the operator's switches -------------------------------------------------------------------

    def submissions_locked(self) -> bool:
        with self._db() as db:
            row = db.execute("SELECT value FROM settings WHERE key = 'submissions_locked'").fetchone()
        return row is not None and row["value"] == "1"

    def lock_submissions(self, locked: bool) -> None:
        with self._db() as db:
            db.execute("DELETE FROM settings WHERE key = 'submissions_locked'")
            db.execute(
                "INSERT INTO settings (key, value) VALUES ('submissions_locked', ?)",
                ("1" if locked else "0",),
            )

    def bot_suspended(self, bot: str) -> bool:
        with self._db() as db:
            return db.execute("SELECT 1 FROM suspended_bots WHERE bot = ?", (bot,)).fetchone() is not None

    def suspend_bot(self, bot: str, suspended: bool) -> None:
        with self._db() as db:
            db.execute("DELETE FROM suspended_bots WHERE bot = ?", (bot,))
            if suspended:
                db.execute("INSERT INTO suspended_bots (bot, since) VALUES (?, ?)", (bot, time.time()))

    def count_download(self, name: str) -> int:
        """Count one download for ``name`` today (UTC) and say how many it has made today."""
        day = time.strftime("%Y-%m-%d", time.gmtime())
        with self._db() as db:
            row = db.execute("SELECT count FROM downloads WHERE name = ? AND day = ?", (name, day)).fetchone()
            count = (row["count"] if row else 0) + 1
            db.execute("DELETE FROM downloads WHERE name = ? AND day = ?", (name, day))
            db.execute("INSERT INTO downloads (name, day, count) VALUES (?, ?, ?)", (name, day, count))
        return count

"""The accounts store: what it keeps (hashes and digests only), what it refuses, and how a
session, a token, a one-time link and a suspension behave."""

from __future__ import annotations

import os
import sqlite3
import stat
import time

import pytest

pytest.importorskip("argon2", reason="the web extra is not installed (pip install -e '.[web]')")

from argon2 import PasswordHasher  # noqa: E402

from arena.accounts import store as accounts_store  # noqa: E402
from arena.accounts.store import AccountError, SqliteAccounts, accounts_folder  # noqa: E402

PASSWORD = "correct horse battery"


@pytest.fixture
def accounts(tmp_path):
    # the cheapest argon2id settings: these tests are about the store, not the hash's cost
    return SqliteAccounts(
        accounts_folder(tmp_path / "t.db"), PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
    )


def test_the_file_is_private_and_holds_no_secret_in_the_clear(accounts, tmp_path):
    accounts.add_user("ana", PASSWORD)
    session, csrf = accounts.open_session("ana")
    token = accounts.new_api_token("ana")
    link = accounts.sign_in_link("ana")
    assert stat.S_IMODE(os.stat(accounts.folder).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(accounts.path).st_mode) == 0o600
    dump = "\n".join(sqlite3.connect(accounts.path).iterdump())
    for secret in (PASSWORD, session, token, link):
        assert secret not in dump
    assert "$argon2id$" in dump
    assert accounts.session(session).csrf == csrf  # type: ignore[union-attr]


def test_names_passwords_and_roles_are_checked(accounts):
    for name in ("A", "ana!", "1ana", "a" * 33, "<script>"):
        with pytest.raises(AccountError, match="a user name is 2-32 characters"):
            accounts.add_user(name, PASSWORD)
    with pytest.raises(AccountError, match="at least 10 characters"):
        accounts.add_user("ana", "short")
    with pytest.raises(AccountError, match="at most 1024"):
        accounts.add_user("ana", "x" * 2000)
    with pytest.raises(AccountError, match="unknown role"):
        accounts.add_user("ana", PASSWORD, role="king")
    accounts.add_user("ana", PASSWORD)
    with pytest.raises(AccountError, match="taken"):
        accounts.add_user("ana", PASSWORD)


def test_a_password_signs_in_and_nothing_else_does(accounts):
    accounts.add_user("ana", PASSWORD)
    assert accounts.check_password("ana", PASSWORD).name == "ana"  # type: ignore[union-attr]
    assert accounts.check_password("ana", PASSWORD + "x") is None
    assert accounts.check_password("nobody", PASSWORD) is None
    accounts.add_user("link-only")  # no password until its link is used
    assert accounts.check_password("link-only", "") is None


def test_a_sign_in_link_works_once_and_not_after_a_day(accounts, monkeypatch):
    accounts.add_user("ana")
    link = accounts.sign_in_link("ana")
    assert accounts.redeem_link(link).name == "ana"  # type: ignore[union-attr]
    assert accounts.redeem_link(link) is None
    late = accounts.sign_in_link("ana")
    later = time.time() + accounts_store.LINK_S + 10
    monkeypatch.setattr(time, "time", lambda: later)
    assert accounts.redeem_link(late) is None
    with pytest.raises(AccountError, match="no user"):
        accounts.sign_in_link("nobody")


def test_sessions_end_by_sign_out_expiry_or_suspension_and_tokens_by_replacement(accounts, monkeypatch):
    accounts.add_user("ana", PASSWORD)
    first, _ = accounts.open_session("ana")
    second, _ = accounts.open_session("ana")
    accounts.close_session(first)
    assert accounts.session(first) is None and accounts.session(second) is not None
    old = accounts.new_api_token("ana")
    new = accounts.new_api_token("ana")
    assert accounts.user_by_api_token(old) is None and accounts.user_by_api_token(new).name == "ana"  # type: ignore[union-attr]
    accounts.set_suspended("ana", True)
    assert accounts.session(second) is None and accounts.user_by_api_token(new) is None
    assert accounts.check_password("ana", PASSWORD) is None
    accounts.set_suspended("ana", False)
    third, _ = accounts.open_session("ana")
    later = time.time() + accounts_store.SESSION_S + 10
    monkeypatch.setattr(time, "time", lambda: later)
    assert accounts.session(third) is None


def test_the_operators_switches_and_the_download_count(accounts):
    assert not accounts.submissions_locked()
    accounts.lock_submissions(True)
    assert accounts.submissions_locked()
    accounts.lock_submissions(False)
    assert not accounts.submissions_locked()
    accounts.suspend_bot("bot", True)
    assert accounts.bot_suspended("bot") and not accounts.bot_suspended("other")
    accounts.suspend_bot("bot", False)
    assert not accounts.bot_suspended("bot")
    accounts.add_user("ana", PASSWORD)
    assert [accounts.count_download("ana") for _ in range(3)] == [1, 2, 3]
    accounts.set_role("ana", "operator")
    assert accounts.user("ana").operator  # type: ignore[union-attr]

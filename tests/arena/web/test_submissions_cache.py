"""The competition's cached listing of submissions is never stale: a change made right after a
listing (within the same clock tick) is seen by the next one."""

from __future__ import annotations

import os
import time
from dataclasses import replace

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")

from arena.web.competition.uploads import CachedSubmissions  # noqa: E402


def test_every_change_is_seen_by_the_next_listing(tmp_path):
    store = CachedSubmissions(tmp_path / "submissions")
    record = store.new("open", "ana")
    for state in ("checked", "built", "validated", "active", "withdrawn"):
        assert store.all()[0].state == record.state  # listed (and perhaps kept) just before the change
        record = store.move(record, state)
    assert store.all()[0].state == "withdrawn"


def test_a_still_folder_is_listed_from_memory(tmp_path):
    store = CachedSubmissions(tmp_path / "submissions")
    store.save(replace(store.new("open", "ana"), name="anabot"))
    old = time.time_ns() - 10 * CachedSubmissions.QUIET_NS
    os.utime(store.records, ns=(old, old))  # still for a while
    assert store.all()[0].name == "anabot"
    # a record changed behind the folder's back (its time put back) is not read again: the listing
    # came from memory; any real save moves the folder's time
    path = store.records / "1.json"
    path.write_text(path.read_text().replace("anabot", "other"))
    os.utime(store.records, ns=(old, old))
    assert store.all()[0].name == "anabot"
    store.save(store.get(1))  # type: ignore[arg-type]
    assert store.all()[0].name == "other"

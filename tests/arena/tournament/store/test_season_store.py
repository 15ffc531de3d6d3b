"""The store's season methods: the log in order, per run; the live state replaced, not added to."""

from __future__ import annotations

from arena.tournament.store.api import NewRun
from arena.tournament.store.base import SqlStore
from arena.tournament.store.opening import open_store


def new_run(store: SqlStore, name: str) -> int:
    run = NewRun(name, "d", "goofspiel", "season", "s.toml", "{}", base_seed=1, secret=False)
    return store.create_run(run, ()).id


def test_the_season_log_keeps_its_order_per_run_and_the_state_is_replaced(store_db):
    with open_store(store_db) as store:
        first, second = new_run(store, "a"), new_run(store, "b")
        assert store.season_events(first) == [] and store.season_state(first) is None
        store.add_season_event(first, 0, "start", {"seed": 1, "policy": {"seats": [2, 3]}})
        store.add_season_event(second, 0, "start", {"seed": 2})
        store.add_season_event(first, 4, "record", {"idx": 2})
        events = store.season_events(first)
        assert [(event.at, event.kind, event.data) for event in events] == [
            (0, "start", {"seed": 1, "policy": {"seats": [2, 3]}}),
            (4, "record", {"idx": 2}),
        ]
        assert events[0].seq < events[1].seq
        assert [event.data for event in store.season_events(second)] == [{"seed": 2}]
        store.save_season_state(first, {"status": "running", "counts": {"done": 3}})
        store.save_season_state(first, {"status": "stopped"})
        state = store.season_state(first)
        assert state is not None and state["status"] == "stopped" and "counts" not in state
        assert state["updated"].startswith("20") and store.season_state(second) is None

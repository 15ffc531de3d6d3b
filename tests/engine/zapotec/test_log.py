"""The log reads as a story: every choice a seat makes that changes its holdings is in it."""

from __future__ import annotations

from tests.engine.zapotec.util import begin_turn, card, choose, new, set_res


def _texts(state, kind: str) -> list[str]:
    return [e["text"] for e in state.log() if e.get("kind") == kind]


def test_track_resource_choice_and_grid_placement_are_logged():
    state = new(2)
    begin_turn(state, card("wood", "mitla"))
    choose(state, action="income", line="row")
    set_res(state, 0, priest=1, corn=2, brick=1, wood=1)
    choose(state, action="sacrifice", corn=2)  # step 2: a free basic resource
    choose(state, action="take", resource="stone")
    assert _texts(state, "track-resource") == ["Seat 0 takes 1 stone from the Sacrifice track"]
    choose(state, action="done")
    choose(state, action="build", space="mitla-hills-village")
    choose(state, action="house")
    choose(state, action="grid", cell=5)  # wood row / stone column: covers the printed Gold
    assert _texts(state, "grid") == [
        "Seat 0 puts the village tile (wood row / stone column) on its grid and gains 1 gold"
    ]

"""The season page's data: the service's live state, the published table, each bot's games over time.

Read through the store's methods only (the season's state, its done matches); the table is the
one `arena season status` prints (arena/tournament/plan/season_table.py).
"""

from __future__ import annotations

from typing import Any

from arena.tournament.plan.season_table import season_table
from arena.tournament.store.api import TournamentStore
from arena.web import charts
from arena.web.views import NotFound

CHART_BOTS = 10  # the chart draws the table's first bots only: more lines than colours read as noise
CHART_POINTS = 200  # points per line at most (a long season is sampled)


def season_view(store: TournamentStore, run_id: int) -> dict[str, Any]:
    """The season of run ``run_id``: its state, table and games chart; NotFound if it is none."""
    run = next((run for run in store.runs() if run.id == run_id), None)
    if run is None or run.format != "season":
        raise NotFound(f"no season with id {run_id}")
    state = store.season_state(run_id) or {}
    matches = store.matches(run_id, ("done",))
    rows = [row.as_dict() for row in season_table(matches, state)]
    shown = [row["agent"] for row in rows[:CHART_BOTS]]
    return {
        "run": {"id": run.id, "name": run.name, "game": run.game, "created": run.created},
        "state": {key: value for key, value in state.items() if key not in ("fingerprint", "pid")},
        "table": rows,
        "games": games_over_time(matches, shown),
    }


def games_over_time(matches: list[Any], names: list[str]) -> dict[str, list[tuple[int, int]]]:
    """Each named bot's games played (voided ones included) after each match of the season's
    clock (its schedule index), sampled to CHART_POINTS points a line."""
    step = max(1, len(matches) // CHART_POINTS)
    series: dict[str, list[tuple[int, int]]] = {name: [(0, 0)] for name in names}
    played = dict.fromkeys(names, 0)
    for position, match in enumerate(sorted(matches, key=lambda match: match.idx)):
        for name in match.entrants:
            if name in played:
                played[name] += 1
        if position % step == 0 or position == len(matches) - 1:
            for name in names:
                series[name].append((match.idx + 1, played[name]))
    return series


def games_chart(series: dict[str, list[tuple[int, int]]]) -> str:
    """The SVG of ``games_over_time``."""
    history = {name: [(x, float(y)) for x, y in points] for name, points in series.items()}
    return charts.rating_chart(history, "games played by each bot over the season", "matches scheduled")

"""Read-side views of a stored tournament: leaderboard, match list, head-to-head, export rows."""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.match.spec import table_seats
from arena.text.files import TextFileError, read_utf8
from arena.tournament.formats import FORMATS
from arena.tournament.stats.elo import wilson_interval
from arena.tournament.stats.ladder_tally import seat_lines as done_seat_lines
from arena.tournament.stats.ratings import SeatLine, Standing, effective_ranks, inherited, leaderboard
from arena.tournament.stats.solo import solo_rows
from arena.tournament.store.api import LadderRun, StoredMatch, TournamentStore

if TYPE_CHECKING:
    from arena.tournament.stats.ratings_mle import MleRating


class ReportError(ValueError):
    """A question the database cannot answer (no such ladder, no such agent)."""


def resolve_run(store: TournamentStore, ladder: str | None) -> LadderRun:
    """The latest run of ``ladder`` (a ladder name or the path of its TOML file), or of any ladder."""
    name = ladder
    if ladder is not None and ladder.endswith(".toml") and Path(ladder).is_file():
        try:
            name = tomllib.loads(read_utf8(ladder, "ladder file")).get("name")
        except (TextFileError, tomllib.TOMLDecodeError) as error:
            raise ReportError(f"cannot read ladder name from {ladder}: {error}") from None
        except RecursionError:
            raise ReportError(f"cannot read ladder name from {ladder}: nested too deeply") from None
        if not isinstance(name, str):
            raise ReportError(f"{ladder} has no string 'name', so it names no stored ladder")
    run = store.latest_run(name)
    if run is None:
        known = ", ".join(sorted({r.name for r in store.runs()}))
        if name is None or not known:
            raise ReportError(
                f"no ladder has been run in {store.path} yet (start one with `arena run LADDER`)"
            )
        raise ReportError(f"no ladder named {name!r} in {store.path}; stored ladders: {known}")
    return run


def seat_lines(match: StoredMatch) -> list[SeatLine]:
    """A done match's seats as the ratings see them."""
    return [SeatLine(seat.agent, seat.score, seat.rank, seat.fault) for seat in match.seats]


def done_lines(store: TournamentStore, run: LadderRun) -> Iterator[tuple[int, list[SeatLine]]]:
    """Each done match of ``run`` as (its seed, its seats as the ratings see them), in schedule order."""
    for match in store.done_matches(run.id):
        yield match.seed, done_seat_lines(match)


def standings(store: TournamentStore, run: LadderRun) -> list[Standing]:
    """The leaderboard of ``run``, recomputed from its done matches in schedule order."""
    # the seats as read: a season is millions of them, copied into nothing on the way
    return leaderboard(
        (match.seats for match in store.done_matches(run.id)), inherits=inherited(store.config(run.id))
    )


def mle_standings(store: TournamentStore, run: LadderRun) -> dict[str, MleRating]:
    """The order-free ratings of ``run``'s done matches; the matches of one seed form a deal."""
    from arena.tournament.stats.ratings_mle import (
        mle_ratings,  # numpy and scipy load only when a table is asked for
    )

    return mle_ratings(done_lines(store, run))


METHODS = ("trueskill", "mle")


def ranked_by_score(run: LadderRun) -> bool:
    """Whether ``run`` is a solo ladder: ranked by the mean margin against the automaton
    (arena/tournament/stats/solo.py), not by TrueSkill or MLE."""
    fmt = FORMATS.get(run.format)
    return fmt is not None and fmt.automaton


def run_title(run: LadderRun) -> str:
    """A run's name with its game and format, the game not repeated when the name ends with it
    (`arena compare` names its runs "compare NEW vs OLD (GAME)")."""
    suffix = f" ({run.game})"
    if run.name.endswith(suffix):
        return f"{run.name.removesuffix(suffix)} ({run.game}, {run.format})"
    return f"{run.name} ({run.game}, {run.format})"


def leaderboard_rows(
    store: TournamentStore, run: LadderRun, method: str = "trueskill"
) -> list[dict[str, Any]]:
    """The leaderboard with both ratings per agent, ranked by ``method`` (a name in METHODS);
    a solo ladder's table ranks by score instead (``solo.solo_rows``; ``method`` does not apply)."""
    if ranked_by_score(run):
        return solo_rows(done_lines(store, run))
    return rows_with_mle(standings(store, run), mle_standings(store, run), method)


def rows_with_mle(
    rows: Iterable[Standing], fits: Mapping[str, MleRating], method: str = "trueskill"
) -> list[dict[str, Any]]:
    """TrueSkill standings joined with the order-free fits, ranked by ``method``: the document
    of `arena leaderboard --format json` (and of the web arena's leaderboard).

    Keys: those of ``Standing.as_dict`` and of ``MleRating.as_dict`` (None where an agent has
    no rated match); ``rank`` is the place in the chosen order.
    """
    empty = {"mle": None, "mle_low": None, "mle_high": None}
    joined: list[dict[str, Any]] = [
        {**row.as_dict(), **(fits[row.agent].as_dict() if row.agent in fits else empty)} for row in rows
    ]
    if method == "mle":
        joined.sort(key=lambda row: (row["mle"] is None, -float(row["mle"] or 0.0), row["agent"]))
    for place, row in enumerate(joined, start=1):
        row["rank"] = place
    return joined


@dataclass(frozen=True)
class HeadToHead:
    """How two agents fared in the matches where both sat (forfeits count as last place)."""

    a: str
    b: str
    matches: int
    a_ahead: int
    b_ahead: int
    level: int
    a_mean_score: float
    b_mean_score: float

    def score_rate(self, agent: str) -> tuple[float, float, float]:
        """``agent``'s share of the points (ahead 1, level 1/2) against the other, with its 95%
        Wilson interval; (0, 0, 1) when they never met."""
        ahead = self.a_ahead if agent == self.a else self.b_ahead
        points = ahead + self.level / 2
        low, high = wilson_interval(points, self.matches)
        return (points / self.matches if self.matches else 0.0), low, high


def head_to_head(store: TournamentStore, run: LadderRun, a: str, b: str) -> HeadToHead:
    """Compare agents ``a`` and ``b`` over the done matches of ``run`` they both played."""
    if a == b:
        raise ReportError(f"compare two different agents, not {a!r} with itself")
    known = _finished_agents(store, run)
    for name in (a, b):
        if name not in known:
            raise ReportError(
                f"agent {name!r} has no finished match in ladder {run.name!r}; agents: {', '.join(sorted(known))}"
            )
    return _compare(store, run, a, b)


def head_to_heads(
    store: TournamentStore, a: str, b: str, ladder: str | None = None
) -> list[tuple[LadderRun, HeadToHead]]:
    """``a`` against ``b`` in each ladder where they met (the latest run of each ladder name), or
    in ``ladder`` alone; a ReportError when they never met there."""
    if ladder is not None:
        run = resolve_run(store, ladder)
        met = head_to_head(store, run, a, b)
        if not met.matches:
            raise ReportError(
                f"{a!r} and {b!r} never sat in the same finished match of ladder {run.name!r}"
                f"{_elsewhere(store, a, b, run)}"
            )
        return [(run, met)]
    if a == b:
        raise ReportError(f"compare two different agents, not {a!r} with itself")
    latest = _latest_runs(store)
    if not latest:
        raise ReportError(f"no ladder has been run in {store.path} yet (start one with `arena run LADDER`)")
    known = set().union(*(_finished_agents(store, run) for run in latest))
    for name in (a, b):
        if name not in known:
            raise ReportError(
                f"agent {name!r} has no finished match in any ladder in {store.path}; "
                f"agents: {', '.join(sorted(known)) or 'none'}"
            )
    found = [(run, _compare(store, run, a, b)) for run in latest]
    met_anywhere = [(run, h2h) for run, h2h in found if h2h.matches]
    if not met_anywhere:
        raise ReportError(
            f"{a!r} and {b!r} never sat in the same finished match in any ladder in {store.path}"
        )
    return met_anywhere


def _elsewhere(store: TournamentStore, a: str, b: str, skip: LadderRun) -> str:
    """'; they met in ladder(s) X, Y' when they did, for the error of a ladder where they did not."""
    met = [
        run.name
        for run in _latest_runs(store)
        if run.name != skip.name and _compare(store, run, a, b).matches
    ]
    return f"; they met in: {', '.join(met)}" if met else ""


def _latest_runs(store: TournamentStore) -> list[LadderRun]:
    """The latest run of each ladder name (what the other commands show by default)."""
    return list({run.name: run for run in store.runs()}.values())  # oldest first: the last run wins


def _finished_agents(store: TournamentStore, run: LadderRun) -> set[str]:
    return {seat.agent for match in store.matches(run.id, statuses=("done",)) for seat in match.seats}


def _compare(store: TournamentStore, run: LadderRun, a: str, b: str) -> HeadToHead:
    count = a_ahead = b_ahead = level = 0
    a_total = b_total = 0
    for match in store.matches(run.id, statuses=("done",), agent=a):
        lines = seat_lines(match)
        names = [line.agent for line in lines]
        if b not in names:
            continue
        ranks = effective_ranks(lines)
        ia, ib = names.index(a), names.index(b)
        count += 1
        a_total += lines[ia].score
        b_total += lines[ib].score
        a_ahead += ranks[ia] < ranks[ib]
        b_ahead += ranks[ib] < ranks[ia]
        level += ranks[ia] == ranks[ib]
    return HeadToHead(
        a,
        b,
        count,
        a_ahead,
        b_ahead,
        level,
        a_total / count if count else 0.0,
        b_total / count if count else 0.0,
    )


EXPORT_FIELDS = (
    "ladder",
    "run",
    "match",
    "key",
    "game",
    "seed",
    "seat",
    "agent",
    "plugin",
    "score",
    "rank",
    "fault",
    "seconds",
)


def export_rows(store: TournamentStore, run: LadderRun) -> list[dict[str, Any]]:
    """One row per seat of every done match of ``run``, in schedule and seat order."""
    rows = []
    for match in store.matches(run.id, statuses=("done",)):
        for seat in match.seats:
            rows.append(
                {
                    "ladder": run.name,
                    "run": run.id,
                    "match": match.idx,
                    "key": match.key,
                    "game": match.spec.game,
                    "seed": match.seed,
                    "seat": seat.seat,
                    "agent": seat.agent,
                    "plugin": seat.plugin,
                    "score": seat.score,
                    "rank": seat.rank,
                    "fault": seat.fault,
                    "seconds": None if match.seconds is None else round(match.seconds, 3),
                }
            )
    return rows


def describe_seats(match: StoredMatch) -> str:
    """One line naming who sat where and how it ended, e.g. ``a 12 (1st) | b 8 (2nd, timeout)``."""
    if not match.seats:
        names = table_seats(match.entrants, match.spec.automaton)
        return " | ".join(names)
    parts = []
    for seat in match.seats:
        note = f"#{seat.rank}" + (f", {seat.fault}" if seat.fault else "")
        parts.append(f"{seat.agent} {seat.score} ({note})")
    return " | ".join(parts)

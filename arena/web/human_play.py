"""`arena play` with a person at the table: the referee and the seat pages in one trio loop.

The referee plays the match as always (arena/match/referee.py); each ``human`` seat is a ``HumanSeat``
(arena/match/human.py) it talks to in process, and a small web server (arena/web/seat_app.py, on
Hypercorn's trio worker, loopback only) serves that seat's page. Bot seats are started exactly
as without a person (own process, sandbox, limits; a child closes every descriptor it did not
ask for, the server's socket included). When the match is over, each page gets the final table;
the server stays up until every open page has seen it (at most ``LINGER_S``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict
from functools import partial
from typing import Any

import trio
from hypercorn.config import Config
from hypercorn.trio import serve as hypercorn_serve

from arena.match.human import HUMAN, HumanSeat
from arena.match.referee import play_unless_terminated, run_trio
from arena.match.spec import MatchOutcome, MatchSpec, table_seats
from arena.registry.plugins import Registry
from arena.web.app import served_hosts
from arena.web.seat_app import create_seat_app

LINGER_S = 5.0  # how long the server waits, after the match, for open pages to fetch the result


def human_seats(spec: MatchSpec, move_ms: int) -> list[HumanSeat]:
    """One HumanSeat per ``human`` agent of ``spec``, with the person's clock ``move_ms``."""
    return [HumanSeat(seat, move_ms) for seat, name in enumerate(spec.agents) if name == HUMAN]


def play_with_humans(
    spec: MatchSpec,
    registry: Registry,
    seats: Sequence[HumanSeat],
    port: int,
    announce: Callable[[list[str]], None],
) -> MatchOutcome:
    """Play ``spec`` with ``seats`` played through pages served on 127.0.0.1:``port`` (0: any free
    port); ``announce`` gets each seat's page address, in seat order, once the server listens.

    OSError if the port cannot be bound; KeyboardInterrupt / Terminated as ``run_match``.
    """
    game = registry.game(spec.game)
    names = table_seats(spec.agents, spec.automaton)
    # Any: Hypercorn's ASGI type does not spell Starlette's call signature (the same app, typed apart).
    app: Any = create_seat_app(seats, game, names, served_hosts("127.0.0.1"))
    config = Config()
    config.bind = [f"127.0.0.1:{port}"]
    config.accesslog = None
    config.loglevel = "WARNING"  # the page's address is printed by `arena play`, not "Running on"
    config.graceful_timeout = 1.0  # a page's open long poll must not hold the exit up

    async def main() -> MatchOutcome:
        async with trio.open_nursery() as nursery:
            stop = trio.Event()
            binds = await nursery.start(partial(hypercorn_serve, app, config, shutdown_trigger=stop.wait))
            address = binds[0]  # e.g. http://127.0.0.1:41234
            announce([f"{address}/play/{seat.token}" for seat in seats])
            try:
                outcome = await play_unless_terminated(spec, registry, {seat.seat: seat for seat in seats})
                # the record too: the page saves it for `arena replay` (this server stops soon after)
                final = {"seats": [asdict(result) for result in outcome.seats], "record": outcome.record}
                for seat in seats:
                    seat.conclude(final)
                with trio.move_on_after(LINGER_S):
                    while any(seat.tab is not None and seat.seen < seat.version for seat in seats):
                        await trio.sleep(0.05)  # until each open page has fetched the final table
            finally:
                stop.set()
        return outcome

    return run_trio(main)

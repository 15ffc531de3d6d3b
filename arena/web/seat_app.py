"""The page where a person plays a seat (`arena play --agent human`): a small Starlette app.

Each human seat has its own secret address ``/play/TOKEN`` (printed by `arena play`). The page
long-polls ``/play/TOKEN/state`` and posts its clicks to ``/play/TOKEN/choose``. Everything it
shows comes from the seat's ``HumanSeat`` (arena/match/human.py), which holds only what the referee
sent that seat: its own observation and options, drawn by the game's ``picture`` from a state
rebuilt with ``Game.from_observation`` (where the game declares both capabilities) and seen as that seat (``viewer``), so whatever that
rebuild samples for hidden parts is never drawn. The same Host check and security headers as
`arena serve` (arena/web/app.py).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from random import Random
from typing import Any

import trio
from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.applications import Starlette
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from arena.match.human import ChoiceRefused, HumanSeat
from arena.web.app import STATIC, SecurityHeaders
from arena.web.replay import draw
from arena.web.scoresheet import score_sheet
from engine.api import Game, capabilities

POLL_S = 10.0  # how long a state request waits for a change before answering the same again
BODY_LIMIT = 4096  # bytes of a posted choice


class SeatPages:
    """The handlers, bound to the match's human seats (by token) and its game."""

    def __init__(self, seats: Sequence[HumanSeat], game: Game, names: Sequence[str]) -> None:
        self.seats = {seat.token: seat for seat in seats}
        self.game = game
        self.names = tuple(names)
        self.templates = Environment(
            loader=PackageLoader("arena.web", "templates"), autoescape=select_autoescape(default=True)
        )
        self._boards: dict[int, tuple[int, str | None]] = {}  # seat -> (decision id, drawing)

    def seat(self, request: Request) -> HumanSeat:
        found = self.seats.get(request.path_params["token"])
        if found is None:
            raise _NoSeat()
        return found

    async def page(self, request: Request) -> Response:
        seat = self.seat(request)
        tab = seat.claim()
        html = self.templates.get_template("play.html").render(
            token=seat.token, tab=tab, seat=seat.seat, game=self.game.id, names=self.names
        )
        return HTMLResponse(html, headers={"cache-control": "no-store"})

    async def state(self, request: Request) -> Response:
        seat = self.seat(request)
        try:
            since = int(request.query_params.get("since", "-1"))
            log_from = max(0, int(request.query_params.get("log", "0")))
        except ValueError:
            since, log_from = -1, 0
        await seat.changed_since(since, POLL_S)
        tab = request.query_params.get("tab")
        view = self.view(seat, tab, log_from)
        if tab == seat.tab:
            seat.seen = view["version"]
        return JSONResponse(view, headers={"cache-control": "no-store"})

    async def choose(self, request: Request) -> Response:
        seat = self.seat(request)
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            # Another site's page can send text/plain here without asking; JSON needs a CORS
            # preflight, which this server never grants.
            return JSONResponse({"error": "post the choice as application/json"}, status_code=415)
        body = await request.body()
        try:
            if len(body) > BODY_LIMIT:
                raise ValueError("too long")
            posted = json.loads(body)
            if not isinstance(posted, dict):
                raise ValueError("not an object")
        except (ValueError, UnicodeDecodeError):
            return JSONResponse({"error": 'send one JSON object {"tab", "id", "choice"}'}, status_code=400)
        try:
            seat.choose(posted.get("tab"), posted.get("id"), posted.get("choice"))
        except ChoiceRefused as refused:
            return JSONResponse({"error": refused.message}, status_code=refused.status)
        return JSONResponse({"ok": True})

    def view(self, seat: HumanSeat, tab: str | None, log_from: int = 0) -> dict[str, Any]:
        """What the page shows now: its status, the pending decision, the board, the game's log from
        line ``log_from`` on (``log_new``: the first line the person has not seen decide on), and
        at the end the final table, the score sheet and the record."""
        view: dict[str, Any] = {"version": seat.version, "seat": seat.seat}
        if tab != seat.tab:
            return view | {
                "status": "taken",
                "message": "this seat is now played in another tab (the one opened last)",
            }
        asked = seat.question
        view["board"] = self.board(seat)
        view |= {"log": seat.log[log_from:], "log_from": log_from, "log_new": seat.answered_at}
        if seat.outcome is not None:
            sheet = score_sheet(self.game, seat.final, self.names) if seat.final is not None else None
            return view | {
                "status": "over",
                "outcome": seat.outcome,
                "forfeit": seat.forfeit_note,
                "score_sheet": sheet,
            }
        if seat.goodbye is not None:  # the final table follows as soon as the record is made
            return view | {"status": "waiting", "message": "the match is over: the final table follows"}
        if seat.stopped:
            note = (
                f"your seat forfeited: {seat.forfeit_note}" if seat.forfeit_note else "the match was stopped"
            )
            return view | {"status": "stopped", "message": note}
        if asked is None:
            return view | {"status": "waiting"}
        return view | {
            "status": "deciding",
            "id": asked["id"],
            "kind": asked["kind"],
            "prompt": asked["prompt"],
            "options": [
                {
                    "index": i,
                    "label": str(option.get("label", i)) if isinstance(option, Mapping) else str(option),
                }
                for i, option in enumerate(asked["options"])
            ],
            "ms_left": max(0, int((seat.deadline - trio.current_time()) * 1000)),
            "clock": asked["clock"],
        }

    def board(self, seat: HumanSeat) -> str | None:
        """The seat's latest observation drawn as that seat sees it (kept per move witnessed); the
        final position once the game is over, never the board of the last decision."""
        observation = seat.observation or (seat.last_decide or {}).get("obs")
        if observation is None and seat.final is None:
            return None
        key = -1 if seat.final is not None else seat.observed
        cached = self._boards.get(seat.seat)
        if cached is not None and cached[0] == key:
            return cached[1]
        drawing = cached[1] if cached is not None else None  # the board drawn last, if any
        offered = capabilities(self.game)
        if offered.picture is not None and (seat.final is not None or offered.from_observation):
            try:  # the hidden parts sampled here are exactly what the viewer's drawing leaves out
                state = (
                    seat.final
                    if seat.final is not None
                    else self.game.from_observation(observation or {}, Random(0))
                )
                drawing = draw(self.game, state, seat.seat, self.names)
            except (NotImplementedError, AttributeError, KeyError, ValueError, TypeError):
                pass  # an observation the engine cannot rebuild: the board drawn last, or the options alone
        self._boards[seat.seat] = (key, drawing)
        return drawing


class _NoSeat(Exception):
    """A token that names no seat of this match."""


async def _no_seat(request: Request, exc: Exception) -> Response:
    return Response(
        "no such seat: open the address `arena play` printed\n", status_code=404, media_type="text/plain"
    )


def create_seat_app(
    seats: Sequence[HumanSeat], game: Game, names: Sequence[str], hosts: Sequence[str]
) -> Starlette:
    """The seat pages of one match: ``seats`` (the human ones), the table's ``names`` in seat
    order, answering only requests whose Host is one of ``hosts``."""
    pages = SeatPages(seats, game, names)
    app = Starlette(
        routes=[
            Route("/play/{token}", pages.page),
            Route("/play/{token}/state", pages.state),
            Route("/play/{token}/choose", pages.choose, methods=["POST"]),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        exception_handlers={_NoSeat: _no_seat},
    )
    app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(hosts))
    app.add_middleware(SecurityHeaders)
    return app

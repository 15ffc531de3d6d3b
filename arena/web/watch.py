"""`arena play --watch`: a page following the one match `arena play` is playing, served on this
machine only (127.0.0.1) while it is played and after, until Ctrl-C.

The match page is the web arena's own (templates/match.html, static/live.js): the referee writes
each step to a live file in a private temporary folder (arena/match/live.py), the page follows it, and
once the match is over it shows the finished record, as for a ladder's match.
"""

from __future__ import annotations

import shutil
import signal
import socket
import tempfile
import threading
from functools import partial
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from arena.match.live import read_live
from arena.match.spec import MatchOutcome, MatchSpec, table_seats
from arena.registry.plugins import Registry
from arena.web import views
from arena.web.app import STATIC, Arena, build_app, match_routes, served_hosts

WATCHED = 1  # the match's id in the page's addresses
HOST = "127.0.0.1"  # loopback only: nobody else may watch (the referee's view shows every hand)


class WatchArena(Arena):
    """The web arena's match handlers over one match played in this process, with no store."""

    def __init__(self, spec: MatchSpec, live: Path, registry: Registry) -> None:
        super().__init__(live.parent / "no-store.db", registry)
        self.spec = spec
        self.live = live
        self.outcome: MatchOutcome | None = None  # set once the match is over

    def source(self, match_id: int) -> tuple[dict[str, Any], dict[str, Any] | None, dict[str, Any] | None]:
        if match_id != WATCHED:
            raise views.NotFound(f"no match {match_id}: this page shows match {WATCHED} only")
        outcome = self.outcome
        summary: dict[str, Any] = {
            "id": WATCHED,
            "ladder_id": None,
            "index": 0,
            "key": "arena play",
            "game": self.spec.game,
            "seed": self.spec.seed,
            "hidden": False,
            "status": "running" if outcome is None else "done",
            "seconds": None,
            "entrants": list(table_seats(self.spec.agents, self.spec.automaton)),
            "seats": [] if outcome is None else [seat_line(seat) for seat in outcome.seats],
            "live": outcome is None,
        }
        if outcome is None:
            return summary, None, read_live(self.live)
        return summary, outcome.record, None


def seat_line(seat: Any) -> dict[str, Any]:
    """A finished seat as the match page's table shows it."""
    return {"seat": seat.seat, "agent": seat.agent, "plugin": seat.agent, "score": seat.score,
            "rank": seat.rank, "fault": seat.fault}  # fmt: skip


class Watch:
    """The page of one match, served from a thread of this process (``start``, ``close``)."""

    def __init__(self, spec: MatchSpec, registry: Registry, port: int = 0) -> None:
        self.listener = socket.create_server((HOST, port))
        self.folder = Path(tempfile.mkdtemp(prefix="tlachtli-watch-"))  # 0700: private
        self.live = self.folder / "match.jsonl"
        self.arena = WatchArena(spec, self.live, registry)
        self.url = f"http://{HOST}:{self.listener.getsockname()[1]}/matches/{WATCHED}"
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Serve the page (in a daemon thread running Hypercorn on trio)."""
        import trio  # here: only --watch needs the web stack
        from hypercorn.config import Config
        from hypercorn.trio import serve

        async def home(request: Request) -> Response:
            return RedirectResponse(f"/matches/{WATCHED}")

        routes: list[Route | Mount] = [
            Route("/", home),
            *match_routes(self.arena),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ]
        app = build_app(self.arena, routes, served_hosts(HOST))
        config = Config()
        config.bind = [f"fd://{self.listener.detach()}"]  # Hypercorn's from now on: it closes it
        config.accesslog = None
        config.loglevel = "WARNING"  # the address is printed by `arena play`

        async def stopped() -> None:
            while not self._stop.is_set():
                await trio.sleep(0.1)

        run = partial(trio.run, partial(serve, app, config, shutdown_trigger=stopped))  # type: ignore[arg-type]
        self._thread = threading.Thread(target=run, name="watch-server", daemon=True)
        self._thread.start()

    def finish(self, outcome: MatchOutcome) -> None:
        """The match is over: the page shows its record from now on."""
        self.arena.outcome = outcome

    def wait(self) -> None:
        """Keep serving until Ctrl-C or SIGTERM."""
        previous = signal.signal(signal.SIGTERM, lambda signum, frame: self._stop.set())
        try:
            while not self._stop.wait(0.2):
                pass
        except KeyboardInterrupt:
            pass
        finally:
            signal.signal(signal.SIGTERM, previous)

    def close(self) -> None:
        """Stop serving and delete the live file."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
        else:
            self.listener.close()
        shutil.rmtree(self.folder, ignore_errors=True)

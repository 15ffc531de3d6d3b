"""The web arena's ASGI application (Starlette): read-only pages and their JSON twins over a store.

``create_app(db)`` opens the store read-only per request (SQLite ``mode=ro``), so it can run
beside a writing `arena run`. Only GET/HEAD routes exist; every response carries a strict
Content-Security-Policy (scripts and styles only from /static, no inline code).
"""

from __future__ import annotations

import ipaddress
import json
import logging
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from html import escape
from pathlib import Path
from typing import Any, cast

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from arena.match.live import live_file, read_live, tournament_live_folder
from arena.registry.plugins import PluginError, Registry, discover
from arena.text.safe import printable
from arena.tournament.stats import table_format
from arena.tournament.stats.ladder_tally import RunTables
from arena.tournament.stats.ratings import RateMemo
from arena.tournament.store.api import DEFAULT_DB, DatabaseError, StoreError
from arena.tournament.store.opening import is_url, open_store, shown
from arena.tournament.store.sqlite import Store
from arena.web import charts, views
from arena.web.competition.config import CompetitionConfig
from arena.web.replay import Frame, draw, extend_frames, replay_frames
from arena.web.scoresheet import score_sheet, sheet_chart
from arena.web.season_view import games_chart, season_view
from arena.web.threads import Threads, threaded_routes

LOG = logging.getLogger("arena.web")

STATIC = Path(__file__).parent / "static"
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
]
REPLAYS_KEPT = 16  # replayed matches kept in memory for the viewer's next steps
BOARD_ROWS = 100  # leaderboard rows on a page of the ladder page (its JSON has them all)
SLOW_VIEW_S = 0.1  # a ladder view slower than this is refreshed in the background, served stale meanwhile
_ID = re.compile(r"\d{1,15}")  # ids are SQLite rowids; anything else (or absurdly long) is a 404


def parse_id(text: str) -> int:
    """A path id as an int; NotFound (404) for anything that is not a plain small number."""
    if not _ID.fullmatch(text):
        raise views.NotFound(f"no such id {text[:40]!r}")
    return int(text)


# A competition's forms need their Origin: under no-referrer a browser sends "Origin: null"
# with a form's POST, so its pages name their origin to themselves only (never to another site).
COMPETITION_HEADERS = [
    (name, b"same-origin" if name == b"referrer-policy" else value) for name, value in SECURITY_HEADERS
]


class SecurityHeaders:
    """ASGI middleware adding the CSP and friends to every response."""

    def __init__(self, app: Any, headers: list[tuple[bytes, bytes]] = SECURITY_HEADERS) -> None:
        self.app = app
        self.headers = headers

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: dict) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", [])) + self.headers
            await send(message)

        await self.app(scope, receive, with_headers)


class _Kept:
    """A shared store lent to one request: leaving its ``with`` gives it back, still open."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def __enter__(self) -> Store:
        return self._store

    def __exit__(self, *exc: object) -> None:
        pass

    def close(self) -> None:
        pass


class Arena:
    """The handlers, bound to one database and one plugin registry."""

    def __init__(self, db: str | Path, registry: Registry | None, competition: bool = False) -> None:
        self.url = str(db) if is_url(db) else None
        self.db = Path(db) if self.url is None else Path(DEFAULT_DB)  # a URL names no file: unused
        self.label = self.db.name if self.url is None else shown(self.url)  # the store, as pages name it
        self.live_files = tournament_live_folder(str(db))  # a PostgreSQL store's runners keep no live files
        self._shared: Store | None = None
        self._registry = registry
        self.competition = competition  # a competition server: no bot's stderr on public pages
        self.templates = Environment(
            loader=PackageLoader("arena.web", "templates"), autoescape=select_autoescape(default=True)
        )
        self.templates.globals["competition"] = competition
        self.templates.filters["num"] = _number
        self.templates.filters["elo"] = _elo
        self._ladder_cache: dict[int, tuple[tuple, dict]] = {}
        self._ladder_locks: dict[int, threading.Lock] = {}
        self._lock = threading.Lock()
        self.memo = RateMemo()  # TrueSkill updates seen: a table after new results replays the rest
        self.tables: dict[int, RunTables] = {}  # per run: ratings of the matches settled, the last MLE fit
        self._replays: OrderedDict[int, tuple] = OrderedDict()  # match id -> _frames(), latest last
        # running match -> (its live record's start, its frames so far, the replay's problem)
        self._live: dict[int, tuple[Any, list[Frame], str | None]] = {}
        self._live_locks: dict[int, threading.Lock] = {}  # one per running match: one replay extends it

    # -- plumbing ----------------------------------------------------------------------------

    def store(self) -> Store:
        """The store for one request: a SQLite file opened read-only for it; a PostgreSQL store's
        one pool, shared by every request (a connection per request, not a pool)."""
        if self.url is None:
            return cast(Store, open_store(self.db, read_only=True))
        with self._lock:
            if self._shared is None:
                self._shared = cast(Store, open_store(self.url, read_only=True))
            return cast(Store, _Kept(self._shared))

    def registry(self) -> Registry:
        if self._registry is None:
            self._registry = discover()
        return self._registry

    def page(self, template: str, **context: Any) -> HTMLResponse:
        return HTMLResponse(self.templates.get_template(template).render(**context))

    # -- data with caches ----------------------------------------------------------------------

    def ladder_view(self, store: Store, run_id: int) -> dict[str, Any]:
        """The ladder page's data, recomputed only when the run's progress changed.

        A ladder whose last computation was slow (thousands of matches) answers at once with its
        previous view, the live progress laid over it and ``fresh`` false, while one background
        thread recomputes it for the next poll; a small one is recomputed before answering.
        """
        live = views.progress(store, run_id)
        with self._lock:
            run_lock = self._ladder_locks.setdefault(run_id, threading.Lock())
            cached = self._ladder_cache.get(run_id)
        if cached is not None and cached[0] == _progress_key(live):
            return cached[1]
        if cached is not None and cached[1]["seconds"] > SLOW_VIEW_S:
            if run_lock.acquire(blocking=False):
                threading.Thread(target=self._refresh, args=(run_id, run_lock), daemon=True).start()
            return cached[1] | {"ladder": live, "fresh": False}
        with run_lock:
            return self._compute(store, run_id)

    def _compute(self, store: Store, run_id: int) -> dict[str, Any]:
        """Compute and cache a ladder's view (the caller holds that run's lock)."""
        cached = self._ladder_cache.get(run_id)
        live = views.progress(store, run_id)
        if cached is not None and cached[0] == _progress_key(live):
            return cached[1]  # another request computed it while this one waited
        start = time.perf_counter()
        view = views.ladder(store, run_id, self.memo, self.tables)
        view["chart"] = (
            charts.margin_chart(view["leaderboard"]) if view["solo"] else charts.rating_chart(view["history"])
        )
        if view["compare"]:
            test = view["compare"]
            view["compare_chart"] = charts.llr_chart(test["path"], test["lower"], test["upper"])
        view["fresh"] = True
        view["seconds"] = time.perf_counter() - start
        with self._lock:
            self._ladder_cache[run_id] = (_progress_key(view["ladder"]), view)
        return view

    def _refresh(self, run_id: int, run_lock: threading.Lock) -> None:
        try:
            with self.store() as store:
                self._compute(store, run_id)
        except StoreError:
            pass  # the next request tries again
        finally:
            run_lock.release()

    def warm_up(self) -> None:
        """Compute every ladder's view once (at server start, in a thread), so that the first
        visitor of a big ladder does not wait for its ratings."""
        try:
            with self.store() as store:
                for run in store.runs():
                    self.ladder_view(store, run.id)
        except StoreError:
            pass  # e.g. the database is being replaced: pages compute on demand instead

    def frames(self, match_id: int) -> tuple[dict[str, Any], dict[str, Any] | None, list[Frame], str | None]:
        """``_frames`` of a match, kept for the latest REPLAYS_KEPT played matches (a stored
        record never changes; a match not played yet is read again next time)."""
        with self._lock:
            if match_id in self._replays:
                self._replays.move_to_end(match_id)
                return self._replays[match_id]
        found = self._frames(match_id)
        if found[1] is not None:
            with self._lock:
                self._live.pop(match_id, None)
                self._live_locks.pop(match_id, None)
                self._replays[match_id] = found
                while len(self._replays) > REPLAYS_KEPT:
                    self._replays.popitem(last=False)
        return found

    def source(self, match_id: int) -> tuple[dict[str, Any], dict[str, Any] | None, dict[str, Any] | None]:
        """A match's summary, its record (None until it is done, or while its ladder's deals are
        hidden) and, while it is played and may be shown, its live record (arena/match/live.py)."""
        with self.store() as store:
            match, record = views.stored_match(store, match_id)
            hidden = views.deals_hidden(store, match.ladder_id)
            summary = views.match_summary(match, hidden)
        # A running match shows what its finished page would: nothing while the deals are secret.
        summary["live"] = record is None and match.status == "running" and not hidden
        live = (
            read_live(live_file(self.live_files, match_id)) if summary["live"] and self.live_files else None
        )
        return summary, record, live

    def _frames(self, match_id: int) -> tuple[dict[str, Any], dict[str, Any] | None, list[Frame], str | None]:
        """A match, its record and its replayed frames (a running match's: those played so far)."""
        summary, record, live = self.source(match_id)
        if record is None:
            if not summary.get("live"):
                with self._lock:  # not played (any more): its next attempt starts afresh
                    self._live.pop(match_id, None)
                return summary, None, [], None
            frames, problem = self._follow(match_id, summary, live)
            return summary, None, frames, problem
        try:
            game = self.registry().game(record["game"])
        except PluginError as error:
            return summary, record, [], str(error)
        steps, failure = replay_frames(record, game, summary["entrants"])
        return summary, record, steps, failure

    def _follow(
        self, match_id: int, summary: dict[str, Any], live: dict[str, Any] | None
    ) -> tuple[list[Frame], str | None]:
        """The frames of a running match so far, extended by the moves of ``live`` (its live
        record: None before its first step is written, and after its file is gone)."""
        with self._lock:
            match_lock = self._live_locks.setdefault(match_id, threading.Lock())
        with match_lock:  # (not the arena's lock: other pages are served meanwhile)
            started, frames, error = self._live.get(match_id, (None, [], None))
            if live is not None and (live.get("started") != started or len(live["moves"]) + 1 < len(frames)):
                started, frames, error = live.get("started"), [], None  # played again since (a new attempt)
            if live is not None and error is None and len(live["moves"]) >= len(frames):
                frames = list(frames)  # a request in flight keeps the list it was given
                try:
                    error = extend_frames(
                        frames, live, self.registry().game(live["game"]), summary["entrants"]
                    )
                except PluginError as problem:
                    error = str(problem)
                with self._lock:
                    self._live[match_id] = (started, frames, error)
            return frames, error

    # -- pages -----------------------------------------------------------------------------------

    def ladders(self, request: Request) -> Response:
        with self.store() as store:
            data = views.ladders(store)
        if _api(request):
            return JSONResponse(data)
        return self.page("ladders.html", ladders=data, db=self.label)

    def ladder(self, request: Request) -> Response:
        run_id = parse_id(request.path_params["run_id"])
        with self.store() as store:
            view = self.ladder_view(store, run_id)
        if _api(request):
            return JSONResponse(
                {
                    key: value
                    for key, value in view.items()
                    if key not in ("chart", "compare_chart", "seconds")
                }
            )
        template = "ladder_board.html" if request.url.path.endswith("/board") else "ladder.html"
        rows = view["leaderboard"]
        pages = max(1, -(-len(rows) // BOARD_ROWS))
        page = min(max(_page(request), 1), pages)
        return self.page(
            template,
            view=view,
            rows=rows[(page - 1) * BOARD_ROWS : page * BOARD_ROWS],
            limit=BOARD_ROWS,  # rows of the retired and the faults tables (the JSON has them all)
            page=page,
            pages=pages,
            chart=Markup(view["chart"]),
            compare_chart=Markup(view.get("compare_chart", "")),
            columns=table_format.columns(view["solo"]),
        )

    def leaderboard(self, request: Request) -> Response:
        run_id = parse_id(request.path_params["run_id"])
        with self.store() as store:
            view = self.ladder_view(store, run_id)
        # The document of `arena leaderboard --format json`; a header says when it lags the store.
        return JSONResponse(view["leaderboard"], headers={"x-tlachtli-fresh": "1" if view["fresh"] else "0"})

    def progress(self, request: Request) -> Response:
        run_id = parse_id(request.path_params["run_id"])
        with self.store() as store:
            return JSONResponse(views.progress(store, run_id))

    def matches(self, request: Request) -> Response:
        run_id = parse_id(request.path_params["run_id"])
        query = request.query_params
        seed_text = query.get("seed", "").strip()
        seed = int(seed_text) if re.fullmatch(r"-?\d{1,18}", seed_text) else None
        page = _page(request)
        with self.store() as store:
            data = views.match_list(
                store, run_id, query.get("agent") or None, query.get("fault") or None, seed, page
            )
        if _api(request):
            return JSONResponse(data)
        return self.page("matches.html", data=data, seed_text=seed_text)

    def match(self, request: Request) -> Response:
        match_id = parse_id(request.path_params["match_id"])
        summary, record, steps, error = self.frames(match_id)
        meta = _record_meta(record, without_stderr=self.competition)  # a bot's stderr is its owner's
        data = {"match": summary, "steps": len(steps), "replay_error": error, "record": meta}
        sheet = None
        if steps and error is None:  # replayed, so its game is installed
            sheet = score_sheet(self.registry().game(summary["game"]), steps[-1].state, summary["entrants"])
        data["score_sheet"] = sheet
        data["live"] = bool(summary.get("live"))  # played now: the page follows it (static/live.js)
        if _api(request):
            return JSONResponse(data)
        return self.page("match.html", **data, score_chart=Markup(sheet_chart(sheet)) if sheet else None)

    def step(self, request: Request) -> Response:
        match_id = parse_id(request.path_params["match_id"])
        index = parse_id(request.path_params["step"])
        summary, _, steps, _ = self.frames(match_id)
        if index >= len(steps):
            raise views.NotFound(f"match {match_id} has {len(steps)} steps")
        seat_text = request.query_params.get("seat", "")
        frame = steps[index]
        viewer = parse_id(seat_text) if seat_text else None
        game = self.registry().game(summary["game"])  # installed: the frames were played on it
        picture = draw(game, frame.state, viewer, summary["entrants"])
        body: dict[str, Any] = {
            "step": index,
            "steps": len(steps),
            "viewer": viewer,
            "info": frame.info | {"bot_info": _bot_info(frame.info, viewer)},
            "svg": picture,
        }
        if picture is None:
            body["text"] = frame.state.render()
        if viewer is not None:
            try:
                body["observation"] = frame.state.observation(viewer)
            except (IndexError, ValueError, KeyError):
                raise views.NotFound(f"no seat {viewer} in match {match_id}") from None
        return Json(body)

    def moves(self, request: Request) -> Response:
        """The move list from step ``after`` on (each step's seat, label, phase and the bot's info
        text), and whether the match is still played (``live``): what static/live.js polls."""
        match_id = parse_id(request.path_params["match_id"])
        after_text = request.query_params.get("after", "0")
        after = parse_id(after_text) if after_text else 0
        seat_text = request.query_params.get("seat", "")
        viewer = parse_id(seat_text) if seat_text else None
        summary, _, frames, error = self.frames(match_id)
        return Json(
            {
                "status": summary["status"],
                "live": bool(summary.get("live")),
                "steps": len(frames),
                "error": error,
                "moves": [_move_line(frame.info, viewer) for frame in frames[after:]],
            }
        )

    def season(self, request: Request) -> Response:
        run_id = parse_id(request.path_params["run_id"])
        with self.store() as store:
            view = season_view(store, run_id)
        if _api(request):
            return JSONResponse(view)
        return self.page("season.html", **view, chart=Markup(games_chart(view["games"])))

    def agent(self, request: Request) -> Response:
        name = request.path_params["name"]
        with self.store() as store:
            data = views.agent(store, name, _page(request))
        try:
            data["options"] = views.declared_options(self.registry(), data["plays"])
        except PluginError:  # a plugin clash: the results still show, without the options
            data["options"] = []
        if _api(request):
            return JSONResponse(data)
        return self.page("agent.html", data=data)


def _bot_info(info: dict[str, Any], viewer: int | None) -> str:
    """A step's bot info text as ``viewer`` may see it: a seat's view shows its own seat's only
    (another bot's info may tell its hidden holdings); everything to the referee's view."""
    if viewer is not None and info.get("seat") != viewer:
        return ""
    return str(info.get("bot_info") or "")


def _move_line(info: dict[str, Any], viewer: int | None) -> dict[str, Any]:
    """One entry of the move list (``moves``)."""
    line = {key: info.get(key) for key in ("step", "seat", "agent", "label", "phase", "by")}
    return line | {"info": _bot_info(info, viewer)}


def _progress_key(progress: dict[str, Any]) -> tuple:
    """What identifies a ladder's results: counts per status and the last activity."""
    return (tuple(sorted(progress["counts"].items())), progress["last_activity"])


def _page(request: Request) -> int:
    """The ``page`` query parameter (1 when absent or not a plain number)."""
    text = request.query_params.get("page", "1").strip()
    return int(text) if re.fullmatch(r"\d{1,9}", text) else 1


def _api(request: Request) -> bool:
    return request.url.path.startswith("/api/")


def _number(value: Any) -> str:
    """Table cells: floats with 2 decimals, None as a dash, the rest as is."""
    if isinstance(value, float) or value is None:
        return table_format.fixed(value, ".2f")  # as the CLI: no "-0.00", a dash for None
    return str(value)


def _elo(value: float | str) -> str:
    """An Elo difference with its sign; "inf" and "-inf" (as the JSON has them) as infinities."""
    if isinstance(value, str):
        return "-∞" if value.startswith("-") else "+∞"
    return f"{value:+.1f}"


class Json(JSONResponse):
    """JSON whose odd values (tuples are lists already; sets, objects) are written as text."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, default=str, separators=(",", ":")).encode()


def _record_meta(record: dict[str, Any] | None, without_stderr: bool = False) -> dict[str, Any] | None:
    """The parts of a record the page shows besides the steps (the moves stay on the server);
    ``without_stderr``: the agents' stderr left out."""
    if record is None:
        return None
    if without_stderr:
        record = record | {
            "agents": [{k: v for k, v in a.items() if k != "stderr"} for a in record["agents"]]
        }
    return {
        key: record.get(key)
        for key in (
            "game",
            "game_version",
            "seed",
            "players",
            "automaton",
            "options",
            "clock",
            "agents",
            "faults",
            "result",
            "started",
            "duration_ms",
        )
    }


async def not_found(request: Request, exc: Exception) -> Response:
    message = str(exc) if isinstance(exc, views.NotFound) else "not found"
    if isinstance(exc, HTTPException) and exc.status_code != 404:
        message = exc.detail
        status = exc.status_code
    else:
        status = 404
    if _api(request):
        return JSONResponse({"error": message}, status_code=status)
    return HTMLResponse(
        f'<!doctype html><title>{status}</title><p>{escape(message)}</p><p><a href="/">ladders</a></p>',
        status_code=status,
    )


async def server_error(request: Request, exc: Exception) -> Response:
    # The visitor gets no traceback; the server's log does, so the fault can be found.
    LOG.error("%s %s failed", request.method, printable(request.url.path, newlines=False), exc_info=exc)
    return (
        JSONResponse({"error": "internal error"}, status_code=500)
        if _api(request)
        else HTMLResponse(
            "<!doctype html><title>500</title><p>internal error (see the server's log)</p>", status_code=500
        )
    )


async def store_unavailable(request: Request, exc: Exception) -> Response:
    # The database is down or refused a read (a PostgreSQL server restarting, a damaged file): the visitor
    # may try again; what failed goes to the server's log only (it names the database).
    LOG.error("%s %s: %s", request.method, printable(request.url.path, newlines=False), exc)
    message = "the tournament store cannot be read now (the server's log says why); try again later"
    return (
        JSONResponse({"error": message}, status_code=503)
        if _api(request)
        else HTMLResponse(
            f'<!doctype html><title>503</title><p>{message}</p><p><a href="/">ladders</a></p>',
            status_code=503,
        )
    )


LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")


def served_hosts(host: str, extra: Sequence[str] = ()) -> list[str]:
    """The Host headers a server listening on ``host`` answers: that address (a loopback one under
    its usual aliases too) and the ``extra`` names; ``["*"]`` for a wildcard bind (0.0.0.0, ::),
    which is reached under names it cannot know. Any other Host (DNS rebinding: a page of
    evil.example whose name now points at 127.0.0.1) gets 400."""
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        names = [host.lower()] + (list(LOOPBACK_NAMES) if host.lower() == "localhost" else [])
    else:
        if address.is_unspecified:
            return ["*"]
        names = [f"[{address}]" if address.version == 6 else str(address)]
        names += list(LOOPBACK_NAMES) if address.is_loopback else []
    return list(dict.fromkeys([*names, *(name.lower() for name in extra)]))


def create_app(
    db: str | Path,
    registry: Registry | None = None,
    hosts: Sequence[str] | None = None,
    competition: CompetitionConfig | None = None,
) -> Starlette:
    """The web arena over database ``db`` (opened read-only for every request); with ``hosts``
    (``served_hosts``), a request with any other Host header is refused (400); with
    ``competition``, the accounts, uploads and bot pages of a public competition too."""
    arena = Arena(db, registry, competition is not None)
    site = None
    if competition is not None:
        # imported here: a read-only server (and `arena play --watch`) needs none of it (argon2 ...)
        from arena.web.competition.site import load_competition

        site = load_competition(arena, db, competition)
    routes = [
        *(site.routes() if site is not None else []),
        Route("/", arena.ladders),
        Route("/api/ladders", arena.ladders),
        Route("/ladders/{run_id}", arena.ladder),
        Route("/ladders/{run_id}/board", arena.ladder),
        Route("/api/ladders/{run_id}", arena.ladder),
        Route("/api/ladders/{run_id}/leaderboard", arena.leaderboard),
        Route("/api/ladders/{run_id}/progress", arena.progress),
        Route("/ladders/{run_id}/matches", arena.matches),
        Route("/api/ladders/{run_id}/matches", arena.matches),
        *match_routes(arena),
        Route("/seasons/{run_id}", arena.season),
        Route("/api/seasons/{run_id}", arena.season),
        Route("/agents/{name:path}", arena.agent),
        Route("/api/agents/{name:path}", arena.agent),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = build_app(arena, routes, hosts)
    app.state.competition = site
    return app


def match_routes(arena: Arena) -> list[Route]:
    """The routes of one match's page and its JSON (the viewer's steps, the move list)."""
    return [
        Route("/matches/{match_id}", arena.match),
        Route("/api/matches/{match_id}", arena.match),
        Route("/api/matches/{match_id}/steps/{step}", arena.step),
        Route("/api/matches/{match_id}/moves", arena.moves),
    ]


def build_app(arena: Arena, routes: Sequence[BaseRoute], hosts: Sequence[str] | None) -> Starlette:
    """The ASGI app serving ``routes`` of ``arena``: its error pages, security headers and, with
    ``hosts``, the Host check (see ``create_app``)."""
    app = Starlette(
        routes=threaded_routes(routes, Threads()),
        exception_handlers={
            views.NotFound: not_found,
            HTTPException: not_found,
            DatabaseError: store_unavailable,
            Exception: server_error,
        },
    )
    if hosts is not None:
        app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(hosts), www_redirect=False)
    app.add_middleware(SecurityHeaders, COMPETITION_HEADERS if arena.competition else SECURITY_HEADERS)
    app.state.arena = arena
    return app

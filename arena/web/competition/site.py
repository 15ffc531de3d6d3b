"""The competition's handlers: sign-up, sign-in, the account page, uploads, a bot's page, its
game logs, downloads and the operator's page (docs/web.md, *A public competition*).

Each handler is wrapped by ``answers``: a ``Refused`` becomes its status with one line (JSON
under /api/, a small page otherwise), never a traceback.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Iterator
from functools import wraps
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from markupsafe import Markup
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route

from arena.accounts.store import (
    AccountError,
    Accounts,
    Session,
    SqliteAccounts,
    User,
    accounts_folder,
    check_name,
)
from arena.submissions.environment import installed_packages, python_version
from arena.submissions.store import Submission
from arena.tournament.plan.ladder import load_ladder
from arena.web import charts, views
from arena.web.competition import bots
from arena.web.competition.config import CompetitionConfig
from arena.web.competition.guard import Guard, RateLimit, Refused
from arena.web.competition.operator import set_bot_suspended
from arena.web.competition.uploads import Uploads, read_body, read_form

Handler = Callable[[Request], Awaitable[Response]]
FORM_CAP = 16 * 1024  # a sign-in or operator form: a few short fields
DOWNLOAD_PAGE = 100  # games a download page holds
DOWNLOADS_PER_DAY = 1000  # download pages a user may fetch a day
FINAL = ("active", "rejected", "retired", "withdrawn")


class Competition:
    """The competition's state shared by its handlers: accounts, uploads and the checks."""

    def __init__(
        self,
        arena: Any,
        accounts: Accounts,
        uploads: Uploads,
        secure: bool = False,
        open_sign_up: bool = True,
        proxied: bool = False,
    ) -> None:
        self.arena = arena  # arena.web.app.Arena: its store, templates and ladder views
        self.accounts = accounts
        self.uploads = uploads
        self.guard = Guard(accounts, secure)
        self.open_sign_up = open_sign_up
        self.proxied = proxied
        self.sign_ins = RateLimit(10, 60, "sign-in attempts")
        self.sign_ups = RateLimit(20, 3600, "new accounts from this address")
        self.upload_rate = RateLimit(10, 3600, "uploads")

    # -- plumbing -------------------------------------------------------------------------------

    def page(self, template: str, status: int = 200, **context: Any) -> HTMLResponse:
        return HTMLResponse(
            self.arena.templates.get_template(f"competition/{template}").render(**context), status
        )

    def refusal(self, request: Request, refused: Refused) -> Response:
        headers = {"retry-after": str(refused.retry_after)} if refused.retry_after else None
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": refused.line}, refused.status, headers=headers)
        response = self.page(
            "refused.html", refused.status, line=refused.line, session=self._quiet_session(request)
        )
        if headers:
            response.headers.update(headers)
        return response

    def _quiet_session(self, request: Request) -> Session | None:
        try:
            return self.guard.session(request)
        except Exception:  # the refusal page must not fail in turn
            return None

    async def form(self, request: Request) -> dict[str, str]:
        """A small url-encoded form (sign-in, operator actions), parsed without a temporary file."""
        body = await read_body(request, FORM_CAP, "the form")
        fields = parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True, max_num_fields=16)
        return {key: values[0] for key, values in fields.items()}

    def routes(self) -> list[Route]:
        def answers(handler: Handler) -> Handler:
            @wraps(handler)
            async def answered(request: Request) -> Response:
                try:
                    return await handler(request)
                except Refused as refused:
                    return self.refusal(request, refused)

            return answered

        return [
            Route("/signup", answers(self.sign_up), methods=["GET", "POST"]),
            Route("/signin", answers(self.sign_in), methods=["GET", "POST"]),
            Route("/signout", answers(self.sign_out), methods=["POST"]),
            Route("/welcome/{link}", answers(self.welcome), methods=["GET", "POST"]),
            Route("/me", answers(self.me)),
            Route("/me/token", answers(self.new_token), methods=["POST"]),
            Route("/me/upload", answers(self.upload_form), methods=["POST"]),
            Route("/submissions/{number}", answers(self.submission)),
            Route("/api/submissions", answers(self.upload_api), methods=["POST"]),
            Route("/api/submissions/{number}", answers(self.submission)),
            Route("/bots/{name}", answers(self.bot)),
            Route("/api/bots/{name}", answers(self.bot)),
            Route("/bots/{name}/games/{match_id}", answers(self.game_log)),
            Route("/api/bots/{name}/games", answers(self.download_games)),
            Route("/api/ladders/{run_id}/results.jsonl", answers(self.results)),
            Route("/operator", answers(self.operator), methods=["GET", "POST"]),
        ]

    def client_address(self, request: Request) -> str:
        """Whom a rate limit counts: the peer's address, or behind a proxy the address the proxy
        added last to X-Forwarded-For (what a client wrote before it is not trusted)."""
        if self.proxied:
            forwarded = request.headers.get("x-forwarded-for", "").split(",")[-1].strip()
            if forwarded:
                return forwarded
        return request.client.host if request.client else "unknown"

    # -- accounts ----------------------------------------------------------------------------------

    async def sign_up(self, request: Request) -> Response:
        if not self.open_sign_up:
            raise Refused(403, "accounts are made by the operator here (ask them for a sign-in link)")
        if request.method == "GET":
            return self._anonymous_form(request, "signup.html")
        fields = await self.form(request)
        self.guard.check_form(request, fields.get("csrf"), None)
        name, password = fields.get("name", "").strip(), fields.get("password", "")
        try:
            check_name(name)
        except AccountError as error:
            return self._anonymous_form(request, "signup.html", 400, error=str(error), name="")
        self.sign_ups.hit(f"ip:{self.client_address(request)}")
        try:
            await run_in_threadpool(self.accounts.add_user, name, password)
        except AccountError as error:
            return self._anonymous_form(request, "signup.html", 400, error=str(error), name=name)
        response = RedirectResponse("/me", 303)
        await run_in_threadpool(self.guard.start_session, response, name)
        return response

    async def sign_in(self, request: Request) -> Response:
        if request.method == "GET":
            return self._anonymous_form(request, "signin.html")
        fields = await self.form(request)
        self.guard.check_form(request, fields.get("csrf"), None)
        name, password = fields.get("name", "").strip()[:64], fields.get("password", "")
        # before the password is hashed: a flood costs no argon2 work
        self.sign_ins.hit(f"ip:{self.client_address(request)}", f"name:{name}")
        user = await run_in_threadpool(self.accounts.check_password, name, password)
        if user is None:
            return self._anonymous_form(
                request, "signin.html", 401, error="wrong name or password", name=name
            )
        response = RedirectResponse("/me", 303)
        await run_in_threadpool(self.guard.start_session, response, user.name)
        return response

    async def sign_out(self, request: Request) -> Response:
        session = self.guard.signed_in(request)
        fields = await self.form(request)
        self.guard.check_form(request, fields.get("csrf"), session)
        response = RedirectResponse("/", 303)
        await run_in_threadpool(self.guard.end_session, request, response)
        return response

    async def welcome(self, request: Request) -> Response:
        """An operator-made account's one-time link: choose a password, then signed in."""
        link = request.path_params["link"]
        if request.method == "GET":
            return self._anonymous_form(request, "welcome.html", link=link)
        fields = await self.form(request)
        self.guard.check_form(request, fields.get("csrf"), None)
        self.sign_ins.hit(f"ip:{self.client_address(request)}")
        password = fields.get("password", "")
        if len(password) < 10:
            return self._anonymous_form(
                request, "welcome.html", 400, link=link, error="a password has at least 10 characters"
            )
        user = await run_in_threadpool(self.accounts.redeem_link, link)
        if user is None:
            raise Refused(
                404, "this sign-in link is unknown, used or expired; ask the operator for a new one"
            )
        await run_in_threadpool(self.accounts.set_password, user.name, password)
        response = RedirectResponse("/me", 303)
        await run_in_threadpool(self.guard.start_session, response, user.name)
        return response

    def _anonymous_form(self, request: Request, template: str, status: int = 200, **context: Any) -> Response:
        """A signed-out form, carrying the double-submit token of its ``tl_csrf`` cookie."""
        token = self.guard.anonymous_token(request)
        response = self.page(template, status, session=None, csrf=token, **context)
        self.guard.keep_anonymous_token(response, token)
        return response

    async def me(self, request: Request) -> Response:
        session = self.guard.signed_in(request)
        data = await run_in_threadpool(self._my_data, session.user)
        return self.page("me.html", session=session, **data)

    def _my_data(self, user: User) -> dict[str, Any]:
        mine = [r for r in self.uploads.store.all() if r.submitter == user.name]
        return {
            "submissions": list(reversed(mine)),
            "bots": sorted({r.name for r in mine if r.name and r.state != "rejected"}),
            "ladder": self.uploads.ladder,
            "limits": self.uploads.limits,
            "locked": self.accounts.submissions_locked(),
            "python": python_version(),
            "packages": installed_packages(),
            "token": None,
        }

    async def new_token(self, request: Request) -> Response:
        session = self.guard.signed_in(request)
        fields = await self.form(request)
        self.guard.check_form(request, fields.get("csrf"), session)
        token = await run_in_threadpool(self.accounts.new_api_token, session.user.name)
        data = await run_in_threadpool(self._my_data, session.user)
        return self.page("me.html", session=session, **(data | {"token": token}))

    # -- uploads --------------------------------------------------------------------------------------

    async def upload_form(self, request: Request) -> Response:
        session = self.guard.signed_in(request)
        self.guard.same_origin(request)  # before the body is read
        body = await read_body(request, self.uploads.cap, "the upload")
        fields, data = await read_form(request, body)
        self.guard.check_form(request, fields.get("csrf"), session)
        self.upload_rate.hit(f"user:{session.user.name}")
        record = await run_in_threadpool(self.uploads.start, data or b"", session.user.name)
        return RedirectResponse(f"/submissions/{record.id}", 303)

    async def upload_api(self, request: Request) -> Response:
        """``POST /api/submissions`` with the archive as the body and an API token."""
        user = self.guard.token_user(request)
        if user is None:
            raise Refused(
                401, "send your API token as 'Authorization: Bearer TOKEN' (your account page makes one)"
            )
        self.upload_rate.hit(f"user:{user.name}")
        body = await read_body(request, self.uploads.limits.archive_bytes, "the upload")
        record = await run_in_threadpool(self.uploads.start, body, user.name)
        return JSONResponse(
            _submission(record, ""), 202, headers={"location": f"/api/submissions/{record.id}"}
        )

    async def submission(self, request: Request) -> Response:
        """One submission's state, line and log: its owner's only."""
        user, session = self.guard.user(request)
        number = _number(request.path_params["number"])
        record = await run_in_threadpool(self.uploads.store.get, number)
        if record is None or (record.submitter != user.name and not user.operator):
            raise Refused(404, f"no submission {number} of yours")
        log = await run_in_threadpool(self.uploads.store.read_log, number)
        data = _submission(record, log)
        if request.url.path.startswith("/api/"):
            return JSONResponse(data)
        return self.page("submission.html", session=session, data=data)

    # -- a bot's page, its logs, downloads -------------------------------------------------------------------

    async def bot(self, request: Request) -> Response:
        name = request.path_params["name"]
        session = self.guard.session(request)
        page = _number(request.query_params.get("page", "1") or "1")
        data = await run_in_threadpool(self._bot_data, name, session.user if session else None, page)
        if request.url.path.startswith("/api/"):
            return JSONResponse({key: value for key, value in data.items() if key != "chart"})
        return self.page("bot.html", session=session, data=data, chart=Markup(data["chart"]))

    def _bot_data(self, name: str, user: User | None, page: int) -> dict[str, Any]:
        store = self.uploads.store
        who = bots.owner(store, name)
        if who is None:
            raise Refused(404, f"no submitted bot named {name[:64]!r}")
        mine = user is not None and user.name == who
        history: dict[str, list[tuple[int, float]]] = {}
        with self.arena.store() as tournament:
            run = tournament.latest_run(self.uploads.ladder.name)
            if run is not None:
                view = self.arena.ladder_view(tournament, run.id)
                history = bots.rating_history(view.get("history") or {}, name)
            games = bots.games(tournament, name, page, mine)
        return {
            "bot": name,
            "owner": who,
            "description": bots.description(store, name),
            "mine": mine,
            "suspended": self.accounts.bot_suspended(name),
            "versions": bots.versions(store, name, mine),
            "history": history,
            "chart": charts.rating_chart(history),
            "games": games,
        }

    async def game_log(self, request: Request) -> Response:
        session = self.guard.signed_in(request)
        name = request.path_params["name"]
        match_id = _number(request.path_params["match_id"])
        data = await run_in_threadpool(self._game_log, name, session.user, match_id)
        return self.page("game_log.html", session=session, data=data)

    def _game_log(self, name: str, user: User, match_id: int) -> dict[str, Any]:
        if bots.owner(self.uploads.store, name) != user.name:
            raise Refused(403, "a game's log is shown to the bot's owner only")
        with self.arena.store() as store:
            try:
                return bots.game_log(store, name, match_id)
            except views.NotFound as error:
                raise Refused(404, str(error)) from None

    async def download_games(self, request: Request) -> Response:
        """A page of a bot's games with their records, as JSON lines (a quota a day per user)."""
        user, _ = self.guard.user(request)
        name = request.path_params["name"]
        page = _number(request.query_params.get("page", "1") or "1")
        used = await run_in_threadpool(self.accounts.count_download, user.name)
        if used > DOWNLOADS_PER_DAY:
            raise Refused(429, f"{DOWNLOADS_PER_DAY} download pages a day at most; more tomorrow (UTC)")
        lines, pages = await run_in_threadpool(self._game_lines, name, user, page)
        return Response(
            "".join(lines),
            media_type="application/x-ndjson",
            headers={"x-tlachtli-page": str(page), "x-tlachtli-pages": str(pages)},
        )

    def _game_lines(self, name: str, user: User, page: int) -> tuple[list[str], int]:
        mine = bots.owner(self.uploads.store, name) == user.name
        with self.arena.store() as store:
            count = store.bot_match_count(name)
            pages = max(1, -(-count // DOWNLOAD_PAGE))
            hidden: dict[int, bool] = {}
            lines = []
            for match in bots.bot_games(store, name, DOWNLOAD_PAGE, (min(page, pages) - 1) * DOWNLOAD_PAGE):
                if match.ladder_id not in hidden:
                    hidden[match.ladder_id] = views.deals_hidden(store, match.ladder_id)
                record = None if hidden[match.ladder_id] else store.record(match.id)
                if record is not None:
                    own = {s.seat for s in match.seats if mine and bots.is_bot_entrant(name, s.agent)}
                    record = bots.public_record(record, own)
                entry = {"match": views.match_summary(match, hidden[match.ladder_id]), "record": record}
                lines.append(json.dumps(entry, default=str, separators=(",", ":")) + "\n")
        return lines, pages

    async def results(self, request: Request) -> Response:
        """The ladder's results as a dataset: one JSON line per finished match (no records)."""
        run_id = _number(request.path_params["run_id"])

        def rows() -> list[str]:
            with self.arena.store() as store:
                hidden = views.deals_hidden(store, run_id)
                return [
                    json.dumps(views.match_summary(m, hidden), separators=(",", ":")) + "\n"
                    for m in store.matches(run_id, ("done",))
                ]

        try:
            lines = await run_in_threadpool(rows)
        except views.NotFound as error:
            raise Refused(404, str(error)) from None

        def chunks() -> Iterator[str]:
            yield from lines

        return StreamingResponse(chunks(), media_type="application/x-ndjson")

    # -- the operator --------------------------------------------------------------------------------------

    async def operator(self, request: Request) -> Response:
        session = self.guard.signed_in(request)
        if not session.user.operator:
            raise Refused(403, "the operator's page is for operators")
        note = ""
        if request.method == "POST":
            fields = await self.form(request)
            self.guard.check_form(request, fields.get("csrf"), session)
            note = await run_in_threadpool(self._operate, fields.get("action", ""), fields.get("name", ""))
        data = await run_in_threadpool(self._operator_data)
        return self.page("operator.html", session=session, note=note, **data)

    def _operate(self, action: str, name: str) -> str:
        try:
            if action in ("suspend-user", "restore-user"):
                self.accounts.set_suspended(name, action == "suspend-user")
            elif action in ("suspend-bot", "restore-bot"):
                set_bot_suspended(self.accounts, self.uploads.store, name, action == "suspend-bot")
            elif action in ("lock", "unlock"):
                self.accounts.lock_submissions(action == "lock")
            else:
                raise Refused(400, f"unknown action {action[:40]!r}")
        except AccountError as error:
            raise Refused(400, str(error)) from None
        return f"done: {action} {name}".strip()

    def _operator_data(self) -> dict[str, Any]:
        records = self.uploads.store.all()
        names = sorted({r.name for r in records if r.name and r.state != "rejected"})
        return {
            "users": self.accounts.users(),
            "bots": [
                {
                    "name": n,
                    "suspended": self.accounts.bot_suspended(n),
                    "owner": bots.owner(self.uploads.store, n),
                }
                for n in names
            ],
            "locked": self.accounts.submissions_locked(),
        }


def _submission(record: Submission, log: str) -> dict[str, Any]:
    """A submission as its owner sees it; ``states``: each state it reached, in order (from its
    log), so that a poll that missed one still shows it."""
    reached = re.findall(r"^\S+ \S+  state: ([a-z]+)", log, re.MULTILINE)
    return {
        "states": ["received", *reached] if log else [record.state],
        "id": record.id,
        "ladder": record.ladder,
        "name": record.name,
        "version": record.version,
        "state": record.state,
        "reason": record.reason,
        "final": record.state in FINAL,
        "received_at": record.received_at,
        "updated_at": record.updated_at,
        "log": log,
    }


def _number(text: str) -> int:
    if not re.fullmatch(r"\d{1,12}", text):
        raise Refused(404, f"no such number {text[:20]!r}")
    return int(text)


def load_competition(arena: Any, db: str | Path, config: CompetitionConfig) -> Competition:
    """The competition of ``config`` over tournament database ``db`` (LadderError for a bad ladder)."""
    registry = arena.registry()
    ladder = load_ladder(config.ladder_file, registry)
    accounts = SqliteAccounts(accounts_folder(db))
    uploads = Uploads(db, ladder, registry, accounts)
    return Competition(arena, accounts, uploads, config.secure, config.open_sign_up, config.proxied)

"""Who is asking, and may they: the session cookie, CSRF, API tokens and rate limits.

- The session cookie holds 256 random bits (``tl_session``; the accounts keep only its hash):
  HttpOnly, SameSite=Lax, Secure when the site is served over TLS. Signing out deletes the
  session, so a copied cookie dies with it.
- Every state-changing request (POST) from a browser must come from this site: its ``Origin``
  (or, lacking one, its ``Referer``) must name the Host it was sent to, and its form must carry
  the session's CSRF token (before sign-in, the token of a ``tl_csrf`` cookie: double submit).
- Scripts authenticate with ``Authorization: Bearer TOKEN`` only; a token in the query string
  or a form (where logs and referrers keep it) is refused, not ignored.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections import deque
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import Response

from arena.accounts.store import Accounts, Session, User

SESSION_COOKIE = "tl_session"
CSRF_COOKIE = "tl_csrf"
TOKEN_PARAMS = ("token", "api_token", "access_token")


class Refused(Exception):
    """A request refused: its HTTP status and one line saying why (and what to do)."""

    def __init__(self, status: int, line: str, retry_after: int | None = None) -> None:
        super().__init__(line)
        self.status = status
        self.line = line
        self.retry_after = retry_after


class RateLimit:
    """At most ``count`` events per ``seconds`` for each key (a sliding window, in memory: one
    server process). ``hit`` records one or raises Refused(429) saying when to come back."""

    def __init__(self, count: int, seconds: float, what: str) -> None:
        self.count = count
        self.seconds = seconds
        self.what = what
        self._events: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def hit(self, *keys: str) -> None:
        now = time.monotonic()
        with self._lock:
            for key in keys:
                events = self._events.setdefault(key, deque())
                while events and events[0] <= now - self.seconds:
                    events.popleft()
                if len(events) >= self.count:
                    wait = int(events[0] + self.seconds - now) + 1
                    raise Refused(429, f"too many {self.what}; try again in {wait} s", retry_after=wait)
            for key in keys:
                self._events[key].append(now)
            if len(self._events) > 100_000:  # forget idle keys (a flood of made-up names)
                for key in [k for k, e in self._events.items() if not e or e[-1] <= now - self.seconds]:
                    del self._events[key]


class Guard:
    """The checks every competition handler asks for, over one ``Accounts``."""

    def __init__(self, accounts: Accounts, secure: bool = False) -> None:
        self.accounts = accounts
        self.secure = secure  # served over TLS (itself or behind a proxy): Secure cookies

    # -- who is asking ---------------------------------------------------------------------------

    def session(self, request: Request) -> Session | None:
        token = request.cookies.get(SESSION_COOKIE)
        return self.accounts.session(token) if token else None

    def signed_in(self, request: Request) -> Session:
        found = self.session(request)
        if found is None:
            raise Refused(401, "sign in first (/signin)")
        return found

    def token_user(self, request: Request) -> User | None:
        """The user of a request's API token (``Authorization: Bearer``), None without one."""
        if any(name in request.query_params for name in TOKEN_PARAMS):
            raise Refused(400, "an API token goes in the Authorization header (Bearer), never in the address")
        header = request.headers.get("authorization", "")
        if not header:
            return None
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Refused(401, "the Authorization header must be 'Bearer TOKEN'")
        user = self.accounts.user_by_api_token(token.strip())
        if user is None:
            raise Refused(401, "unknown or revoked API token (make a new one on your account page)")
        return user

    def user(self, request: Request) -> tuple[User, Session | None]:
        """The user of an API token, else of the session cookie; Refused(401) if neither."""
        by_token = self.token_user(request)
        if by_token is not None:
            return by_token, None
        found = self.signed_in(request)
        return found.user, found

    # -- CSRF --------------------------------------------------------------------------------------

    def same_origin(self, request: Request) -> None:
        """Refused(403) unless the request's Origin (or Referer) names the host it was sent to."""
        origin = request.headers.get("origin") or request.headers.get("referer")
        if not origin or origin == "null":
            raise Refused(403, "a form must be sent from this site's own pages (no Origin header)")
        sent_to = request.headers.get("host", "").lower()
        if urlsplit(origin).netloc.lower() != sent_to:
            raise Refused(403, "a form must be sent from this site's own pages (another origin)")

    def check_form(self, request: Request, form_token: str | None, session: Session | None) -> None:
        """A browser's POST: from this site, carrying the session's token (or, signed out, the
        ``tl_csrf`` cookie's)."""
        self.same_origin(request)
        expected = session.csrf if session is not None else request.cookies.get(CSRF_COOKIE)
        if not expected or not form_token or not hmac.compare_digest(expected, form_token):
            raise Refused(403, "this form has expired or came from elsewhere; reload the page and try again")

    def anonymous_token(self, request: Request) -> str:
        """The double-submit token of a signed-out form: its cookie's, or a new one."""
        return request.cookies.get(CSRF_COOKIE) or secrets.token_urlsafe(32)

    def keep_anonymous_token(self, response: Response, token: str) -> None:
        self._cookie(response, CSRF_COOKIE, token, max_age=3600)

    # -- cookies ---------------------------------------------------------------------------------

    def start_session(self, response: Response, name: str) -> None:
        token, _ = self.accounts.open_session(name)
        self._cookie(response, SESSION_COOKIE, token, max_age=30 * 24 * 3600)
        response.delete_cookie(CSRF_COOKIE)

    def end_session(self, request: Request, response: Response) -> None:
        token = request.cookies.get(SESSION_COOKIE)
        if token:
            self.accounts.close_session(token)
        response.delete_cookie(SESSION_COOKIE)

    def _cookie(self, response: Response, name: str, value: str, max_age: int) -> None:
        response.set_cookie(
            name, value, max_age=max_age, httponly=True, samesite="lax", secure=self.secure, path="/"
        )

"""The web arena's handlers run in worker threads, at most as many at once as the store has
connections: psycopg's pool is synchronous (its async API is asyncio's, the server runs on trio),
so a handler that reads the store is called through ``anyio.to_thread.run_sync`` (under Hypercorn's
trio worker, ``trio.to_thread.run_sync``) with a ``CapacityLimiter`` the size of the pool; SQLite
is called the same way.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import anyio
import anyio.lowlevel
import anyio.to_thread
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from arena.tournament.store.base import POOL_SIZE


class Threads:
    """One CapacityLimiter of ``size`` per event loop (a test client may start several loops)."""

    def __init__(self, size: int = POOL_SIZE) -> None:
        self.size = size
        self._limiters: dict[Any, anyio.CapacityLimiter] = {}

    def limiter(self) -> anyio.CapacityLimiter:
        token = anyio.lowlevel.current_token()
        found = self._limiters.get(token)
        if found is None:
            found = self._limiters[token] = anyio.CapacityLimiter(self.size)
        return found

    def endpoint(self, handler: Callable[[Request], Response]) -> Callable[[Request], Awaitable[Response]]:
        """``handler`` as an async endpoint run in a worker thread under the limiter."""

        async def threaded(request: Request) -> Response:
            return await anyio.to_thread.run_sync(handler, request, limiter=self.limiter())

        return threaded


def threaded_routes(routes: Sequence[BaseRoute], threads: Threads) -> list[BaseRoute]:
    """``routes`` with each synchronous handler run through ``threads`` (async ones, mounts: as they are)."""
    result: list[BaseRoute] = []
    for route in routes:
        if isinstance(route, Route) and not _is_async(route.endpoint):
            route = Route(
                route.path, threads.endpoint(route.endpoint), methods=route.methods, name=route.name
            )
        result.append(route)
    return result


def _is_async(endpoint: Callable[..., Any]) -> bool:
    return inspect.iscoroutinefunction(endpoint)

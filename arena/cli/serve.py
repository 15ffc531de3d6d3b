"""`arena serve`: the web arena on Hypercorn's trio worker (the project's concurrency is trio)."""

from __future__ import annotations

import signal
import threading
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, cast

import typer

from arena.cli.common import fail, load_registry
from arena.cli.stores import DEFAULT_DB, DbOption
from arena.tournament.store.api import StoreError
from arena.tournament.store.opening import is_url, open_store, shown

if TYPE_CHECKING:
    from hypercorn.typing import ASGIFramework


def serve(
    db: DbOption = DEFAULT_DB,
    host: Annotated[
        str, typer.Option("--host", help="Address to listen on; 127.0.0.1 keeps it on this machine.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", "-p", min=0, max=65535, help="TCP port.")] = 8000,
    allow_host: Annotated[
        list[str] | None,
        typer.Option(
            "--allow-host",
            metavar="NAME",
            help="Another name the server is reached by (repeatable); any other Host header gets 400.",
        ),
    ] = None,
    competition: Annotated[
        Path | None,
        typer.Option(
            "--competition",
            metavar="LADDER",
            help="Serve a public competition on this ladder file: accounts, uploads, bot pages (docs/web.md).",
        ),
    ] = None,
    certfile: Annotated[
        Path | None, typer.Option("--certfile", help="TLS certificate (PEM): serve https itself.")
    ] = None,
    keyfile: Annotated[
        Path | None, typer.Option("--keyfile", help="TLS private key (PEM) of --certfile.")
    ] = None,
    behind_https: Annotated[
        bool,
        typer.Option(
            "--behind-https",
            help="A proxy serves it over https: cookies are marked Secure, its X-Forwarded-For names the player.",
        ),
    ] = False,
    sign_up: Annotated[
        bool,
        typer.Option("--sign-up/--no-sign-up", help="Anyone may make an account (else `arena users add`)."),
    ] = True,
) -> None:
    """Serve the web arena: ladders, live leaderboards, match lists and a replay viewer.

    The database is opened read-only, so this runs beside a writing `arena run`; no page can
    change a result. With --competition, players sign up, upload bots to that ladder and read
    their bots' logs. Open the printed address in a browser; Ctrl-C stops the server.
    """
    try:  # the web stack loads only for `arena serve`: every other command starts faster without it
        import trio
        from hypercorn.config import Config
        from hypercorn.trio import serve as hypercorn_serve

        from arena.tournament.plan.ladder import LadderError
        from arena.web.app import create_app, served_hosts
        from arena.web.competition.config import CompetitionConfig
    except ImportError as error:
        raise fail(
            f"the web arena needs its extra: pip install -e '.[web]' ({error.name} is missing)"
        ) from None
    if not is_url(db) and not Path(db).is_file():
        raise fail(f"no database at {db} (run a ladder first: `arena run LADDER --db {db}`)")
    try:
        open_store(db, read_only=True).close()
    except (StoreError, OSError) as error:  # e.g. a file that is no database, a server that is down
        raise fail(f"cannot open {shown(db)}: {error}") from None
    if (certfile is None) != (keyfile is None):
        raise fail("give both --certfile and --keyfile (or neither)")
    for path in (certfile, keyfile):
        if path is not None and not path.is_file():
            raise fail(f"no file at {path}")
    config = Config()
    config.bind = [f"[{host}]:{port}" if ":" in host else f"{host}:{port}"]
    config.accesslog = None
    if certfile is not None and keyfile is not None:
        config.certfile, config.keyfile = str(certfile), str(keyfile)
    setup = None
    if competition is not None:
        setup = CompetitionConfig(competition, certfile is not None or behind_https, sign_up, behind_https)
    try:
        app = create_app(db, load_registry(), served_hosts(host, allow_host or ()), setup)
    except (LadderError, StoreError) as error:  # StoreError: a PostgreSQL store without TLACHTLI_DATA
        raise fail(str(error)) from None
    # Ratings of big ladders take seconds to compute from scratch: do it before anyone asks.
    threading.Thread(target=app.state.arena.warm_up, name="warm-up", daemon=True).start()
    address = f"[{host}]" if ":" in host else host
    scheme = "https" if certfile is not None else "http"
    what = f"the competition on {competition}" if competition is not None else "read-only"
    typer.echo(f"serving {shown(db)} at {scheme}://{address}:{port}/ ({what}; Ctrl-C stops)", err=True)

    async def stop_on_signal() -> None:
        # Ctrl-C or SIGTERM ends the server gracefully (a KeyboardInterrupt raised inside
        # trio's nurseries would come out wrapped in exception groups, as a traceback).
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async for _ in signals:
                return

    try:
        # Starlette's and hypercorn's hints spell the same ASGI callable differently: the cast says so.
        asgi = cast("ASGIFramework", app)
        trio.run(partial(hypercorn_serve, asgi, config, shutdown_trigger=stop_on_signal))
    except KeyboardInterrupt:
        pass  # Ctrl-C before the signal receiver was in place
    except (OSError, ExceptionGroup) as error:  # trio's nursery wraps a failed bind in a group
        cause = _os_error(error)
        if cause is None:
            raise
        raise fail(f"cannot listen on {host}:{port}: {cause.strerror or cause}") from None


def _os_error(error: BaseException) -> OSError | None:
    """The OSError inside ``error`` (itself, or nested in exception groups), if any."""
    if isinstance(error, OSError):
        return error
    for inner in getattr(error, "exceptions", ()):
        found = _os_error(inner)
        if found is not None:
            return found
    return None

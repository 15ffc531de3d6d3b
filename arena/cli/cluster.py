"""``arena cluster``: what a Dask cluster needs to be used safely (``arena cluster init DIR``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import fail

cluster_app = typer.Typer(
    help="Set up a Dask cluster for `arena run --cluster` (see docs/cluster.md).", no_args_is_help=True
)


@cluster_app.command("init")
def init(
    folder: Annotated[
        Path, typer.Argument(metavar="DIR", help="Folder to write the certificates into (created if needed).")
    ],
) -> None:
    """Write TLS certificates for a Dask cluster and print the commands that use them.

    A certificate authority of the cluster's own signs one certificate per role: scheduler,
    worker and client (the machine that runs `arena run`). Every connection is then encrypted and
    both ends must show a certificate of this CA: nobody else can join, submit work or read
    results. Private keys are written readable by you only; the CA's key is not kept. Then:
    `arena run LADDER --cluster tls://HOST:PORT --cluster-security DIR`.
    """
    from arena.tournament.run.cluster_security import SecurityError, dask_commands, write_certificates

    try:
        written = write_certificates(folder)
    except SecurityError as error:
        raise fail(str(error)) from None
    except ImportError:
        raise fail("arena cluster init needs the cluster extra: pip install 'tlachtli[cluster]'") from None
    typer.echo(f"wrote {', '.join(path.name for path in written)} to {folder}")
    typer.echo(dask_commands(folder))

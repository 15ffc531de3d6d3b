"""What `arena serve --competition` was given (apart from the handlers, so that a read-only
server imports none of the competition's code or dependencies)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class CompetitionConfig:
    """A competition server's settings."""

    ladder_file: Path  # the ladder that uploads enter
    secure: bool = False  # served over TLS (by Hypercorn or a proxy): Secure cookies
    open_sign_up: bool = True  # anyone may make an account (else only `arena users add`)
    # behind a proxy (--behind-https): every request comes from it, and the player's address is
    # the last one its X-Forwarded-For names (never trusted otherwise: a client could forge it)
    proxied: bool = False

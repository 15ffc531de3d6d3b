"""A competition server for the tests: a goofspiel ladder with a [submissions] table, its store
made by `arena run`, and the app of `arena serve --competition` over it; and the steps a player
takes through it (sign up, upload) with Starlette's TestClient."""

from __future__ import annotations

import io
import json
import re
import tarfile
import time
from pathlib import Path
from typing import Any

from tests.support.bot_packages import AGENT, write_ladder, write_package
from tests.support.cli import arena_in_process

HOST = "http://127.0.0.1"
PASSWORD = "correct horse battery"
HOSTILE = "<script>alert(1)</script>"  # what no page may run


def build_competition(folder: Path) -> tuple[Path, Path]:
    """A ladder (goofspiel, two randoms) and its store; (ladder file, database)."""
    ladder = write_ladder(folder, "open")
    done = arena_in_process("run", str(ladder), "-q", cwd=folder)
    assert done.returncode == 0, done.stderr
    return ladder, folder / "tlachtli.db"


def competition_app(db: Path, ladder: Path, **config: Any) -> Any:
    """The app `arena serve --competition LADDER --db DB` serves (Host checked as on 127.0.0.1)."""
    from arena.web.app import create_app, served_hosts
    from arena.web.competition.config import CompetitionConfig

    return create_app(db, None, served_hosts("127.0.0.1"), CompetitionConfig(ladder, **config))


def client(app: Any) -> Any:
    from starlette.testclient import TestClient

    return TestClient(app, base_url=HOST, follow_redirects=False)


def csrf(html: str) -> str:
    """The CSRF token a page's forms carry."""
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found, "no CSRF token on the page"
    return found.group(1)


def sign_up(browser: Any, name: str, password: str = PASSWORD) -> Any:
    """Sign ``name`` up through the form (as a browser: same Origin, the form's token)."""
    token = csrf(browser.get("/signup").text)
    answer = browser.post(
        "/signup", data={"name": name, "password": password, "csrf": token}, headers={"origin": HOST}
    )
    assert answer.status_code == 303, answer.text
    return browser


def archive(folder: Path) -> bytes:
    """``folder`` as a .tar.gz (its one top folder named after it)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        tar.add(folder, arcname=folder.name)
    return buffer.getvalue()


def bot_archive(
    folder: Path, name: str, version: str = "1.0", body: str = "", agent: str = AGENT, description: str = ""
) -> bytes:
    """A bot package (tests/support/bot_packages.py) as a .tar.gz; ``description`` in its manifest."""
    package = write_package(folder / f"{name}-{version}", name=name, version=version, body=body, agent=agent)
    if description:
        manifest = package / "tlachtli.toml"
        manifest.write_text(f"description = {json.dumps(description)}\n" + manifest.read_text())
    return archive(package)


def upload(browser: Any, data: bytes, filename: str = "bot.tar.gz") -> Any:
    """Upload ``data`` through the account page's form; the answer (303 to the submission)."""
    token = csrf(browser.get("/me").text)
    return browser.post(
        "/me/upload",
        data={"csrf": token},
        files={"package": (filename, data, "application/gzip")},
        headers={"origin": HOST},
    )


def wait_final(browser: Any, number: int, timeout: float = 120) -> dict[str, Any]:
    """Poll a submission until it is final; its JSON."""
    deadline = time.monotonic() + timeout
    while True:
        data = browser.get(f"/api/submissions/{number}").json()
        if data.get("final") or time.monotonic() > deadline:
            return data
        time.sleep(0.2)

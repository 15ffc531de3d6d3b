"""A competition served by Hypercorn (as `arena serve --competition` serves it, in a thread of
this process): a 1 GiB upload is refused early and nothing of it is written, whether it declares
its size or streams without one; `arena submit --server --token` uploads through the API."""

from __future__ import annotations

import re
import select
import socket
import ssl
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")
pytest.importorskip("argon2", reason="the web extra is not installed (pip install -e '.[web]')")

from arena.process.sandbox import bwrap_works  # noqa: E402
from tests.support.bot_packages import write_package  # noqa: E402
from tests.support.cli import arena_in_process  # noqa: E402
from tests.support.competition import HOST, build_competition, client, competition_app, csrf, sign_up  # noqa: E402
from tests.support.web_store import free_port, served, stop_server  # noqa: E402

pytestmark = pytest.mark.skipif(not bwrap_works(), reason="submitted bots run only under bubblewrap")

TEST_PLUGINS = "examples.games.goofspiel.game,examples.games.goofspiel.agents"
GIB = 1 << 30
CHUNK = 1 << 20


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    folder = tmp_path_factory.mktemp("served-competition")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TLACHTLI_PLUGINS", TEST_PLUGINS)
        patch.setenv("TLACHTLI_ENTRY_POINTS_ONLY", "tlachtli")
        ladder, db = build_competition(folder)
        app = competition_app(db, ladder)
        ana = sign_up(client(app), "ana")
        page = ana.post("/me/token", data={"csrf": csrf(ana.get("/me").text)}, headers={"origin": HOST}).text
        token = re.search(r'<code id="token">([^<]+)</code>', page).group(1)  # type: ignore[union-attr]
        with served(db, app) as url:
            yield {"folder": folder, "url": url, "app": app, "ana": ana, "token": token}
        app.state.competition.uploads.wait()


def _tree(folder: Path) -> dict[str, int]:
    """Every file under ``folder`` but the accounts' (sessions change) with its size."""
    return {
        str(path.relative_to(folder)): path.stat().st_size
        for path in folder.rglob("*")
        if path.is_file() and "accounts" not in path.parts
    }


def _send_until_refused(url: str, head: bytes, chunked: bool) -> tuple[int, bytes]:
    """Send ``head`` then up to 1 GiB of body (chunked, or as declared) until the server answers;
    (bytes of body sent, the answer's first bytes)."""
    host, port = url.removeprefix("http://").split(":")
    sent = 0
    answer = b""
    with socket.create_connection((host, int(port)), timeout=30) as connection:
        connection.sendall(head)
        block = b"x" * CHUNK
        frame = f"{CHUNK:x}\r\n".encode() + block + b"\r\n" if chunked else block
        while sent < GIB:
            readable, _, _ = select.select([connection], [], [], 0)
            if readable:
                break
            try:
                connection.sendall(frame)
            except OSError:  # closed by the server (or no longer read: the timeout)
                break
            sent += CHUNK
        try:
            answer = connection.recv(4096)
        except ConnectionResetError:
            pass
    return sent, answer


def test_a_gigabyte_upload_with_its_size_declared_is_refused_before_its_body(server):
    before = _tree(server["folder"])
    head = (
        f"POST /api/submissions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {server['token']}\r\n"
        f"Content-Type: application/octet-stream\r\nContent-Length: {GIB}\r\n\r\n"
    ).encode()
    sent, answer = _send_until_refused(server["url"], head, chunked=False)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert b"nothing was kept" in answer
    assert sent < 64 * CHUNK  # refused from its header: what was sent meanwhile is the socket's buffers
    assert _tree(server["folder"]) == before


def test_a_gigabyte_form_streamed_without_a_size_is_refused_at_the_cap(server):
    ana = server["ana"]
    token = csrf(ana.get("/me").text)
    cookie = ana.cookies.get("tl_session")
    before = _tree(server["folder"])
    boundary = "b0undary"
    head = (
        f"POST /me/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: {HOST}\r\nCookie: tl_session={cookie}\r\n"
        f"Content-Type: multipart/form-data; boundary={boundary}\r\nTransfer-Encoding: chunked\r\n\r\n"
    ).encode()
    preamble = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="csrf"\r\n\r\n{token}\r\n'
        f'--{boundary}\r\nContent-Disposition: form-data; name="package"; filename="big.tar.gz"\r\n\r\n'
    ).encode()
    head += f"{len(preamble):x}\r\n".encode() + preamble + b"\r\n"
    sent, answer = _send_until_refused(server["url"], head, chunked=True)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert sent < 64 * CHUNK  # the cap is 20 MiB (archive_mb) and a form's overhead
    assert _tree(server["folder"]) == before


def test_arena_submit_uploads_to_the_server_with_a_token(server, tmp_path):
    package = write_package(tmp_path / "remote", name="remotebot")
    done = arena_in_process("submit", str(package), "--server", server["url"], "--token", server["token"])
    assert done.returncode == 0, done.stderr
    assert "remotebot 1.0 is active on 'open'" in done.stdout
    for state in ("received", "checked", "built", "validated", "active"):
        assert f": {state}" in done.stderr
    again = arena_in_process("submit", str(package), "--server", server["url"], "--token", server["token"])
    assert (
        again.returncode == 1 and "rejected: version 1.0 of remotebot was submitted already" in again.stderr
    )
    wrong = arena_in_process("submit", str(package), "--server", server["url"], "--token", "tl_nope")
    assert wrong.returncode == 2 and "401" in wrong.stderr and "Traceback" not in wrong.stderr
    missing = arena_in_process("submit", str(package), "--server", server["url"])
    assert missing.returncode == 2 and "--token" in missing.stderr


def test_arena_serve_competition_serves_tls_itself_with_secure_cookies(server, tmp_path):
    pytest.importorskip(
        "cryptography", reason="`arena cluster init` (the certificates) needs the cluster extra"
    )
    made = arena_in_process("cluster", "init", str(tmp_path / "tls"))
    assert made.returncode == 0, made.stderr
    cert, key = tmp_path / "tls" / "scheduler.pem", tmp_path / "tls" / "scheduler-key.pem"
    db, ladder = server["folder"] / "tlachtli.db", server["folder"] / "open.toml"
    port = free_port()
    command = [sys.executable, "-m", "arena.cli", "serve", "--db", str(db), "--port", str(port)]
    command += ["--competition", str(ladder), "--certfile", str(cert), "--keyfile", str(key)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        context = ssl.create_default_context(cafile=str(tmp_path / "tls" / "ca.pem"))
        context.check_hostname = False  # the cluster's certificate names no host; its CA is checked
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(
                    f"https://127.0.0.1:{port}/signup", context=context, timeout=5
                ) as page:
                    cookies = page.headers.get_all("set-cookie")
                    break
            except OSError:
                assert process.poll() is None and time.monotonic() < deadline, stop_server(process)
                time.sleep(0.3)
        assert any(c.startswith("tl_csrf=") and "Secure" in c and "HttpOnly" in c for c in cookies)
        with pytest.raises(OSError):  # plain http is not answered on a TLS port
            urllib.request.urlopen(f"http://127.0.0.1:{port}/signup", timeout=5).read()
    finally:
        said = stop_server(process)
    assert f"at https://127.0.0.1:{port}/ (the competition on" in said


def test_arena_serve_competition_bad_input_is_one_line(server, tmp_path):
    db = server["folder"] / "tlachtli.db"
    missing = arena_in_process("serve", "--db", str(db), "--competition", str(tmp_path / "nope.toml"))
    assert missing.returncode == 2 and "error:" in missing.stderr and "Traceback" not in missing.stderr
    half = arena_in_process(
        "serve", "--db", str(db), "--competition", str(server["folder"] / "open.toml"), "--certfile", str(db)
    )
    assert half.returncode == 2 and "give both --certfile and --keyfile" in half.stderr

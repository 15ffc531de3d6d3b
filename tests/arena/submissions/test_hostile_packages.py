"""Hostile and broken packages, each ending `rejected` with one line for its owner, the ladder
untouched, nothing unpacked outside its folder and no process left (the suite's leak guard).

Archives are crafted here in memory: a zip bomb's headers are patched to claim gigabytes, a tar's
header declares 10 GB, so no test writes (or reads) more than a few megabytes.
"""

from __future__ import annotations

import gzip
import io
import os
import stat
import struct
import sys
import tarfile
import uuid
import zipfile
from pathlib import Path

import pytest

from arena.process.sandbox import bwrap_works
from arena.registry.plugins import discover
from arena.submissions.entrants import with_submissions
from arena.submissions.store import SubmissionStore
from arena.tournament.plan.ladder import load_ladder
from tests.support.bot_packages import AGENT, manifest, submit_package, write_ladder, write_package

pytestmark = pytest.mark.skipif(not bwrap_works(), reason="submitted bots run only under bubblewrap")

BOT = ("bot_code/__init__.py", AGENT)


def rejected(tmp_path: Path, package: Path, *words: str, extra: str = "") -> str:
    """Submit ``package``; assert it was rejected with one line holding ``words``, that the ladder
    did not grow and that no package was kept. Its reason."""
    ladder = write_ladder(tmp_path, extra=extra)
    record = submit_package(package, ladder)
    assert record.state == "rejected", record
    assert "\n" not in record.reason and all(word in record.reason for word in words), record.reason
    store = SubmissionStore(tmp_path / "submissions")
    grown = with_submissions(load_ladder(ladder, discover()), store)
    assert [entrant.name for entrant in grown.entrants] == ["random", "random-b"]
    assert [path.name for path in store.packages.iterdir()] == []
    return record.reason


def zip_of(path: Path, files: list[tuple[str, str | bytes]], links: tuple[tuple[str, str], ...] = ()) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("tlachtli.toml", manifest())
        for name, data in files:
            archive.writestr(name, data)
        for name, target in links:
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, target)
    return path


def tar_of(path: Path, members: list[tuple[tarfile.TarInfo, bytes | None]], tail: bytes = b"") -> Path:
    """A .tar.gz of the manifest, the bot and ``members``; ``tail``: raw bytes after them (a forged header)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.GNU_FORMAT) as archive:
        for name, text in (("tlachtli.toml", manifest()), BOT):
            info = tarfile.TarInfo(name)
            info.size = len(text.encode())
            archive.addfile(info, io.BytesIO(text.encode()))
        for info, data in members:
            archive.addfile(info, io.BytesIO(data) if data is not None else None)
        end = archive.offset
    raw = buffer.getvalue()
    path.write_bytes(gzip.compress(raw[:end] + tail + raw[end:] if tail else raw))
    return path


def member(name: str, kind: bytes = tarfile.REGTYPE, target: str = "", size: int = 0) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname, info.size = kind, target, size
    return info


def test_zip_slip(tmp_path):
    escape = f"x-{uuid.uuid4().hex}"
    package = zip_of(tmp_path / "slip.zip", [BOT, (f"../../{escape}", "owned")])
    assert "'..' path leaves the package" in rejected(tmp_path, package)
    assert not any(
        (parent / escape).exists() for parent in (tmp_path, tmp_path.parent, tmp_path.parent.parent)
    )


def test_absolute_path(tmp_path):
    target = f"/tmp/abs-{uuid.uuid4().hex}"
    package = tar_of(tmp_path / "abs.tar.gz", [(member(target, size=5), b"owned")])
    assert "absolute" in rejected(tmp_path, package)
    assert not os.path.exists(target)


@pytest.mark.parametrize("kind", [tarfile.SYMTYPE, tarfile.LNKTYPE, tarfile.CHRTYPE, tarfile.FIFOTYPE])
def test_links_and_devices_in_a_tar(tmp_path, kind):
    store = str(tmp_path / "tlachtli.db")
    target = "/etc/shadow" if kind == tarfile.SYMTYPE else store
    package = tar_of(tmp_path / "link.tar.gz", [(member("bot_code/data", kind, target), None)])
    assert "only files and folders" in rejected(tmp_path, package)


def test_a_link_in_a_zip_and_in_a_folder(tmp_path):
    package = zip_of(tmp_path / "link.zip", [BOT], links=(("shadow", "/etc/shadow"),))
    assert "only files and folders" in rejected(tmp_path, package)
    again = tmp_path / "again"
    again.mkdir()
    folder = write_package(again / "folder")
    (folder / "store").symlink_to(tmp_path / "tlachtli.db")
    assert "only files and folders" in rejected(again, folder)


def _patch_sizes(data: bytes, name: bytes, size: int) -> bytes:
    """A zip's bytes with ``name``'s uncompressed size (local and central headers) set to ``size``."""
    data = bytearray(data)
    local = data.index(b"PK\x03\x04")  # the first local header
    while True:
        name_length = struct.unpack_from("<H", data, local + 26)[0]
        if bytes(data[local + 30 : local + 30 + name_length]) == name:
            struct.pack_into("<I", data, local + 22, size)
            break
        local = data.index(b"PK\x03\x04", local + 4)
    central = data.index(b"PK\x01\x02")
    while central >= 0:
        name_length = struct.unpack_from("<H", data, central + 28)[0]
        if bytes(data[central + 46 : central + 46 + name_length]) == name:
            struct.pack_into("<I", data, central + 24, size)
        central = data.find(b"PK\x01\x02", central + 4)
    return bytes(data)


def test_zip_bomb_claiming_gigabytes(tmp_path):
    package = zip_of(tmp_path / "bomb.zip", [BOT, ("zeros", b"\0" * (1 << 20))])
    package.write_bytes(_patch_sizes(package.read_bytes(), b"zeros", 4_000_000_000))
    assert "over 100 MiB" in rejected(tmp_path, package)


def test_zip_bomb_by_ratio(tmp_path):
    package = zip_of(tmp_path / "bomb.zip", [BOT, ("zeros", b"\0" * (8 << 20))])  # 8 MiB in ~8 KiB
    assert "times its size" in rejected(tmp_path, package, "zip bomb")


def test_zip_whose_header_lies_small(tmp_path):
    package = zip_of(tmp_path / "liar.zip", [BOT, ("zeros", os.urandom(1 << 16))])
    package.write_bytes(_patch_sizes(package.read_bytes(), b"zeros", 10))
    rejected(tmp_path, package, "zeros")


def test_tar_declaring_a_10_gb_file(tmp_path):
    header = member("bot_code/huge", size=10 << 30).tobuf(format=tarfile.GNU_FORMAT)
    package = tar_of(tmp_path / "sparse.tar.gz", [], tail=header + b"\0" * 4096)  # its data never follows
    assert "over 100 MiB" in rejected(tmp_path, package)


def test_a_sparse_10_gb_file_in_a_folder(tmp_path):
    folder = write_package(tmp_path / "folder")
    with open(folder / "sparse", "wb") as handle:
        handle.truncate(10 << 30)  # no block written
    assert "100 MiB unpacked" in rejected(tmp_path, folder)


def test_100k_tiny_files(tmp_path):
    package = tar_of(tmp_path / "many.tar.gz", [(member(f"f/{i}"), b"") for i in range(100_000)])
    assert "more than 2000 files" in rejected(tmp_path, package)


def test_a_manifest_naming_a_game_it_cannot_play(tmp_path):
    liar = "\nclass Bot(Agent):\n    def act(self, observation, decision):\n        return 999\n"
    folder = write_package(tmp_path / "liar", agent="from arena.bot import Agent\n" + liar)
    assert "illegal-choice" in rejected(tmp_path, folder, "validation")


def test_a_manifest_naming_a_game_not_installed_or_not_the_ladders(tmp_path):
    assert "not installed" in rejected(tmp_path, write_package(tmp_path / "a", games=("goofspiel", "chess")))
    (tmp_path / "b").mkdir()
    assert "does not claim 'goofspiel'" in rejected(
        tmp_path / "b", write_package(tmp_path / "b" / "p", games=("zapotec",))
    )


def test_a_valid_package_that_crashes_in_validation(tmp_path):
    folder = write_package(
        tmp_path / "crash",
        body="import os\nif os.environ.get('HOME') == '/tmp':\n    raise RuntimeError('boom')",
    )
    assert "crash" in rejected(tmp_path, folder, "validation: it forfeited")
    log = SubmissionStore(tmp_path / "submissions").read_log(1)
    assert "RuntimeError: boom" in log


def build_package(tmp_path: Path, command: list[str]) -> Path:
    quoted = ", ".join(f'"{part}"' for part in command)
    return write_package(tmp_path / "built", extra=f"\n[build]\ncommand = [{quoted}]\n")


def test_a_build_that_runs_forever(tmp_path):
    package = build_package(tmp_path, ["sh", "-c", "while true; do :; done"])
    assert "ran past its 2 s" in rejected(tmp_path, package, extra="[submissions]\nbuild_seconds = 2\n")


def test_a_build_that_forks_a_lot(tmp_path):
    package = build_package(tmp_path, ["sh", "-c", "for i in $(seq 300); do sleep 60 & done; wait"])
    assert "the build failed" in rejected(tmp_path, package)
    assert "fork" in SubmissionStore(tmp_path / "submissions").read_log(1).lower()


def test_a_build_that_fills_the_disk(tmp_path):
    package = build_package(tmp_path, ["sh", "-c", "head -c 100000000 /dev/zero > big"])
    assert "the build failed" in rejected(tmp_path, package, extra="[submissions]\nbuild_mb = 16\n")
    assert "space" in SubmissionStore(tmp_path / "submissions").read_log(1).lower()


def test_a_build_that_tries_the_network(tmp_path):
    code = "import socket; socket.create_connection(('1.1.1.1', 53), timeout=5)"
    package = build_package(tmp_path, [sys.executable, "-c", code])
    assert "the build failed" in rejected(tmp_path, package)
    assert "unreachable" in SubmissionStore(tmp_path / "submissions").read_log(1).lower()


def test_a_build_that_succeeds_is_frozen_read_only(tmp_path):
    write = "mkdir deps && echo 'ANSWER = 42' > deps/helper.py"
    folder = write_package(
        tmp_path / "built",
        body="import helper\nassert helper.ANSWER == 42",
        extra=f'path = ["deps"]\n\n[build]\ncommand = ["sh", "-c", "{write}"]\n',
    )
    record = submit_package(folder, write_ladder(tmp_path))
    assert record.state == "active", record.reason
    built = SubmissionStore(tmp_path / "submissions").package(record.sha256)
    assert (built / "deps" / "helper.py").read_text().strip() == "ANSWER = 42"
    assert stat.S_IMODE(built.stat().st_mode) == 0o555
    assert stat.S_IMODE((built / "deps" / "helper.py").stat().st_mode) == 0o444


def test_import_time_code_reaching_for_the_store_finds_nothing(tmp_path):
    store = tmp_path / "tlachtli.db"
    store.write_bytes(b"SQLite")
    body = f"""
        for path in ({str(store)!r}, {str(tmp_path / "pwned")!r}):
            try:
                open(path, 'a').write('x')
            except OSError:
                pass
    """
    record = submit_package(write_package(tmp_path / "snoop", body=body), write_ladder(tmp_path))
    assert record.state == "active", record.reason  # it plays fine: it just found nothing
    assert store.read_bytes() == b"SQLite" and not (tmp_path / "pwned").exists()


@pytest.mark.parametrize("network", [False, True])
def test_the_build_has_no_network_unless_the_operator_allows_it(tmp_path, network):
    """The build sees only a loopback interface, or, with ``build_network = true``, the host's."""
    extra = '\n[build]\ncommand = ["sh", "-c", "wc -l < /proc/net/dev > lines"]\n'
    folder = write_package(tmp_path / "net", extra=extra)
    ladder = write_ladder(tmp_path, extra=f"[submissions]\nbuild_network = {str(network).lower()}\n")
    record = submit_package(folder, ladder)
    assert record.state == "active", record.reason
    inside = int((SubmissionStore(tmp_path / "submissions").package(record.sha256) / "lines").read_text())
    host = len(Path("/proc/net/dev").read_text().splitlines())
    assert inside == (host if network else 3)  # two header lines and lo

"""A submitted package's bytes, checked before and while they are unpacked: nothing escapes its folder.

A package arrives as a folder (packed here into a ``.tar.gz``, refusing anything but files and
folders), a ``.zip`` or a ``.tar.gz``. Before a byte is written: the archive's size, and from its
headers every entry's name (no absolute path, no ``..``, no backslash), kind (files and folders
only: every symbolic link, hard link, device, FIFO is refused), the count of entries, the declared
unpacked size and its ratio to the archive's size (a zip bomb). While unpacking: the bytes
actually written are counted against the same caps (a header that lies about its size), and a
gzip stream is read through a counter too (a tar's headers are inside it).
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from arena.registry.manifest import MANIFEST
from arena.tournament.plan.submission_limits import MIB, SubmissionLimits

CHUNK = 1 << 16


class PackageRejected(ValueError):
    """A package refused; the message is the one line its owner reads."""


def read_package(source: Path, limits: SubmissionLimits) -> tuple[bytes, str]:
    """The package's archive bytes and their kind ("zip" or "tar.gz"): a folder is packed first."""
    if source.is_symlink():
        raise PackageRejected(f"{source.name} is a link; submit the folder or archive itself")
    if source.is_dir():
        return pack_folder(source, limits), "tar.gz"
    if not source.is_file():
        raise PackageRejected(f"{source} is not a folder, .zip or .tar.gz file")
    with open(source, "rb") as handle:
        data = handle.read(limits.archive_bytes + 1)
    if len(data) > limits.archive_bytes:
        raise PackageRejected(f"the archive is over {limits.archive_mb} MiB (submissions.archive_mb)")
    if data.startswith(b"PK\x03\x04") or data.startswith(b"PK\x05\x06"):
        return data, "zip"
    if data.startswith(b"\x1f\x8b"):
        return data, "tar.gz"
    raise PackageRejected("the package is neither a folder, a .zip nor a .tar.gz")


def pack_folder(folder: Path, limits: SubmissionLimits) -> bytes:
    """``folder`` as a .tar.gz (sorted, no owners or times: the same folder gives the same bytes)."""
    buffer = io.BytesIO()
    count = total = 0
    with (
        gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as zipped,
        tarfile.open(fileobj=zipped, mode="w") as tar,
    ):
        for path in _walk(folder):
            relative = path.relative_to(folder).as_posix()
            info = os.lstat(path)
            count += 1
            if count > limits.files:
                raise PackageRejected(f"more than {limits.files} files (submissions.files)")
            entry = tarfile.TarInfo(relative)
            entry.mode = 0o755 if stat.S_ISDIR(info.st_mode) or info.st_mode & 0o111 else 0o644
            if stat.S_ISDIR(info.st_mode):
                entry.type = tarfile.DIRTYPE
                tar.addfile(entry)
                continue
            if not stat.S_ISREG(info.st_mode) or info.st_nlink > 1:
                raise PackageRejected(
                    f"{relative}: only files and folders are allowed (no links, devices or FIFOs)"
                )
            total += info.st_size
            if total > limits.unpacked_bytes:
                raise PackageRejected(
                    f"more than {limits.unpacked_mb} MiB unpacked (submissions.unpacked_mb)"
                )
            entry.size = info.st_size
            with open(path, "rb") as handle:
                tar.addfile(entry, handle)
    data = buffer.getvalue()
    if len(data) > limits.archive_bytes:
        raise PackageRejected(f"the archive is over {limits.archive_mb} MiB (submissions.archive_mb)")
    return data


def _walk(folder: Path) -> Iterator[Path]:
    for name in sorted(os.listdir(folder)):
        path = folder / name
        yield path
        if path.is_dir() and not path.is_symlink():
            yield from _walk(path)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def check_name(name: str) -> str:
    """An entry's name, normalised ("a/b"); PackageRejected for one that could leave its folder."""
    if not name or "\\" in name or "\0" in name or name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        raise PackageRejected(f"entry {name!r}: absolute or malformed path")
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if any(part == ".." for part in parts):
        raise PackageRejected(f"entry {name!r}: a '..' path leaves the package")
    if not parts or any(len(part) > 255 for part in parts) or len(parts) > 32:
        raise PackageRejected(f"entry {name!r}: empty, too long or too deep")
    return "/".join(parts)


class _Budget:
    """Counts entries and bytes against the caps (declared first, then as written)."""

    def __init__(self, limits: SubmissionLimits, archive_size: int) -> None:
        self.limits = limits
        self.archive_size = max(archive_size, 1)
        self.entries = 0
        self.declared = 0
        self.written = 0

    def entry(self) -> None:
        self.entries += 1
        if self.entries > self.limits.files:
            raise PackageRejected(f"more than {self.limits.files} files (submissions.files)")

    def declare(self, size: int) -> None:
        self.declared += size
        if self.declared > self.limits.unpacked_bytes:
            raise PackageRejected(
                f"its files declare {_mib(self.declared)} unpacked, over {self.limits.unpacked_mb} MiB (submissions.unpacked_mb)"
            )
        if self.declared > max(self.archive_size * self.limits.ratio, MIB):
            raise PackageRejected(
                f"its files declare {_mib(self.declared)} from a {_mib(self.archive_size)} archive: over "
                f"{self.limits.ratio} times its size (submissions.ratio; a zip bomb?)"
            )

    def write(self, size: int) -> None:
        self.written += size
        if self.written > self.limits.unpacked_bytes or self.written > self.declared:
            raise PackageRejected("its files hold more bytes than their headers declare (a lying archive)")


def _mib(size: int) -> str:
    return f"{size / MIB:.1f} MiB" if size >= MIB else f"{size} bytes"


def unpack(data: bytes, kind: str, target: Path, limits: SubmissionLimits) -> None:
    """Unpack a checked archive into ``target`` (made; empty): PackageRejected at the first problem."""
    target.mkdir(parents=True)
    budget = _Budget(limits, len(data))
    if kind == "zip":
        _unpack_zip(data, target, budget)
    else:
        _unpack_tar(data, target, budget)


def _unpack_zip(data: bytes, target: Path, budget: _Budget) -> None:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        entries = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as error:
        raise PackageRejected(f"not a readable zip: {error}") from None
    plan = []
    for info in entries:  # every header checked before a byte is written
        budget.entry()
        name = check_name(info.filename)
        kind = stat.S_IFMT(info.external_attr >> 16)
        if info.is_dir():
            plan.append((info, name, True))
            continue
        if kind not in (0, stat.S_IFREG):
            raise PackageRejected(
                f"entry {name!r}: only files and folders are allowed (no links, devices or FIFOs)"
            )
        budget.declare(info.file_size)
        plan.append((info, name, False))
    for info, name, is_dir in plan:
        path = _place(target, name, is_dir)
        if path is None:
            continue
        try:
            with archive.open(info) as source:
                _copy(source, path, budget, executable=bool((info.external_attr >> 16) & 0o111))
        except (zipfile.BadZipFile, OSError, EOFError, RuntimeError) as error:
            raise PackageRejected(f"entry {name!r} cannot be unpacked: {error}") from None


class _Counted(io.RawIOBase):
    """A gzip stream read through a cap: a tar's headers (pax ones of any declared size) come out of it."""

    def __init__(self, stream: gzip.GzipFile, cap: int) -> None:
        self.stream = stream
        self.cap = cap
        self.read_bytes = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        data = self.stream.read(min(len(buffer), CHUNK))
        self.read_bytes += len(data)
        if self.read_bytes > self.cap:
            raise PackageRejected(
                f"it unpacks to more than the cap of {_mib(self.cap)} (submissions.unpacked_mb)"
            )
        buffer[: len(data)] = data
        return len(data)


def _unpack_tar(data: bytes, target: Path, budget: _Budget) -> None:
    # Streamed (``r|``): a header is read and checked, then its data, never a seek back; the
    # decompressed stream itself is capped (headers are inside it, and cost bytes too).
    cap = budget.limits.unpacked_bytes + budget.limits.files * 2048 + MIB
    stream = _Counted(gzip.GzipFile(fileobj=io.BytesIO(data)), cap)
    try:
        with tarfile.open(fileobj=io.BufferedReader(stream, CHUNK), mode="r|") as archive:
            for member in archive:
                budget.entry()
                name = check_name(member.name)
                if member.isdir():
                    _place(target, name, True)
                    continue
                if not member.isreg() or member.issparse():
                    raise PackageRejected(
                        f"entry {name!r}: only files and folders are allowed (no links, devices, FIFOs or sparse files)"
                    )
                budget.declare(member.size)
                path = _place(target, name, False)
                source = archive.extractfile(member)
                assert path is not None and source is not None
                _copy(source, path, budget, executable=bool(member.mode & 0o111))
    except (tarfile.TarError, EOFError, OSError, zlib.error) as error:
        raise PackageRejected(f"not a readable .tar.gz: {error}") from None


def _place(target: Path, name: str, is_dir: bool) -> Path | None:
    """Where entry ``name`` goes (its folders made); None for a folder. Never outside ``target``:
    names were checked, and nothing but plain folders exists under it (no link to follow)."""
    path = target / name
    try:
        if is_dir:
            path.mkdir(parents=True, exist_ok=True)
            return None
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise PackageRejected(f"entry {name!r} cannot be placed: {error.strerror or error}") from None
    if path.exists():
        raise PackageRejected(f"entry {name!r} appears twice")
    return path


def _copy(source: IO[bytes], path: Path, budget: _Budget, executable: bool) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o755 if executable else 0o644)
    with open(fd, "wb") as out:
        while chunk := source.read(CHUNK):
            budget.write(len(chunk))  # counted before it is written: a lying header stops here
            out.write(chunk)


def package_root(unpacked: Path) -> Path:
    """The folder holding the manifest: the unpacked root, or its one folder (an archive of a folder)."""
    if (unpacked / MANIFEST).is_file():
        return unpacked
    inside = list(unpacked.iterdir())
    if len(inside) == 1 and inside[0].is_dir() and (inside[0] / MANIFEST).is_file():
        return inside[0]
    raise PackageRejected(f"no {MANIFEST} at the package's root (see `arena new-bot`, docs/submissions.md)")


def freeze(folder: Path) -> None:
    """Make ``folder`` read-only for everyone and readable by all (a seat uid reads it): 0555/0444."""
    for path in sorted(folder.rglob("*"), reverse=True):
        mode = path.lstat().st_mode
        executable = stat.S_ISDIR(mode) or mode & 0o111
        os.chmod(path, 0o555 if executable else 0o444)
    os.chmod(folder, 0o555)


def thaw(folder: Path) -> None:
    """Make a frozen folder writable by its owner again (to delete it)."""
    if not folder.exists():
        return
    os.chmod(folder, 0o755)
    for path in folder.rglob("*"):
        if path.is_dir() and not path.is_symlink():
            os.chmod(path, 0o755)

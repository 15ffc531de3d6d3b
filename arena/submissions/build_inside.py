"""Inside a build's sandbox: copy the package to its writable tmpfs, run the build, send the result.

``python -m arena.submissions.build_inside COMMAND...`` (arena/submissions/build.py starts it):
the unpacked package is at /src (read-only), /bot is a size-capped tmpfs. The command runs in
/bot with its output on stderr (kept, cut, for the owner); if it succeeds, /bot goes back on
stdout as a .tar.gz, which the referee unpacks under the same checks as an upload.
"""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
import sys
import tarfile

SOURCE, TARGET = "/src", "/bot"


def main(argv: list[str] | None = None) -> int:
    command = sys.argv[1:] if argv is None else argv
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # the build's own prints go to the log, never into the result
    for name in os.listdir(SOURCE):  # into the tmpfs's root, which is not the build's to chmod
        source, target = os.path.join(SOURCE, name), os.path.join(TARGET, name)
        if os.path.isdir(source):
            shutil.copytree(source, target)
        else:
            shutil.copy(source, target)
    os.chdir(TARGET)
    try:
        status = subprocess.call(command, stdin=subprocess.DEVNULL, stdout=2, stderr=2)
    except OSError as error:
        print(f"build: cannot run {command[0]!r}: {error.strerror or error}", file=sys.stderr)
        return 127
    if status != 0:
        print(f"build: {' '.join(command)} exited with status {status}", file=sys.stderr)
        return status if status > 0 else 128 - status
    with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=1, mtime=0) as zipped:
        with tarfile.open(fileobj=zipped, mode="w|") as tar:
            for name in sorted(os.listdir(TARGET)):
                tar.add(os.path.join(TARGET, name), arcname=name)
    out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

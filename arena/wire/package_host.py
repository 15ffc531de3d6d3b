"""Inside a bot's sandbox: import a bot package's Agent class and speak the wire protocol for it.

``python -m arena.wire.package_host /bot MODULE:CLASS NAME VERSION [PATH...]`` is how the referee
execs a submitted Python bot (arena/registry/manifest.py ``launch_argv``); a zygote's child
(arena/process/zygote.py) calls ``host_package`` with the same arguments. Either way this runs only
inside the bot's sandbox, where the package is mounted read-only: it is the first place any of
the package's code is imported.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Sequence
from typing import BinaryIO

from arena.wire.host import claim_stdio, serve

USAGE = "usage: python -m arena.wire.package_host PACKAGE MODULE:CLASS NAME VERSION [PATH...]"


def host_package(args: Sequence[str], inp: BinaryIO, out: BinaryIO) -> int:
    """Import the bot named by ``args`` (as ``launch_argv`` gives them, after the module) and serve it."""
    if len(args) < 4:
        print(USAGE, file=sys.stderr)
        return 2
    folder, start, name, version, *paths = args
    module_name, _, attribute = start.partition(":")
    # The package's root and its declared folders first: its own modules win over same-named ones.
    for path in reversed([folder, *(os.path.join(folder, p) for p in paths)]):
        sys.path.insert(0, path)
    importlib.invalidate_caches()
    try:
        factory = getattr(importlib.import_module(module_name), attribute)
        agent = factory()
    except Exception as error:  # the bot's own bug: shown in its stderr (the record), and on the wire
        import traceback

        traceback.print_exc()
        print(
            f"arena.wire.package_host: cannot build {start}: {type(error).__name__}: {error}",
            file=sys.stderr,
        )
        return 1
    return serve(agent, name, version, inp, out)


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m arena.wire.package_host`` (the exec start of a bot package)."""
    from arena.wire.protocol import plain_codec

    plain_codec()
    inp, out = claim_stdio()
    return host_package(sys.argv[1:] if argv is None else argv, inp, out)


if __name__ == "__main__":
    sys.exit(main())

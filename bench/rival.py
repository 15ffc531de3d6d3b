"""Last round's bots beside this checkout's, for the 2-player strength figures (this checkout's ismcts
against last round's ismcts at 1000 iterations, docs/bots.md): the rival is the old code, evaluator tables included.

``extract(repo, commit, folder)`` copies ``plugins/bots`` as it was at ``commit`` out of ``repo``'s
history into ``folder/rival_bots``, a package of its own; ``rival_ismcts(folder)`` imports it and
returns its ``ismcts`` agent class, after giving the package's evaluator lookup the package's own
evaluators (it would otherwise discover the ones this checkout's plugins register, and the old
search would play with today's tables). The engine is this checkout's: the old bot plays today's rules.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from functools import cache
from pathlib import Path

# Last round's bots (2026-11-25: the commits to them between that one and this one moved
# imports, typed and formatted, none changed a choice); its imports name today's engine modules.
LAST_ROUND = "3f100e2"
PACKAGE = "rival_bots"
BOTS = "plugins/bots"


def git(repo: Path, *args: str) -> str:
    try:
        done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)
    except FileNotFoundError:
        raise SystemExit(
            "error: --rival-commit needs git, which is not installed here "
            "(install it, or --rival-commit here plays this checkout's ismcts)"
        ) from None
    if done.returncode:
        raise SystemExit(
            f"error: --rival-commit: git {' '.join(args)} failed in {repo}: {' '.join(done.stderr.split())} "
            "(a shallow clone needs `git fetch --unshallow`; --rival-commit here plays this checkout's ismcts)"
        )
    return done.stdout


def extract(repo: Path, commit: str, folder: Path) -> Path:
    """Write ``plugins/bots`` at ``commit`` as the package ``folder/rival_bots``; returns ``folder``."""
    package = folder / PACKAGE
    package.mkdir(parents=True)
    for path in git(repo, "ls-tree", "--name-only", commit, f"{BOTS}/").split():
        if path.endswith(".py"):
            (package / Path(path).name).write_text(git(repo, "show", f"{commit}:{path}"))
    if not (package / "ismcts.py").exists():
        raise SystemExit(f"error: --rival-commit {commit}: it has no {BOTS}/ismcts.py")
    return folder


@cache
def rival_ismcts(folder: str) -> type:
    """The ``ismcts`` agent class of the package ``extract`` wrote (once per process: the worker
    processes of bench_strength import it themselves)."""
    for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
        del sys.modules[name]  # another folder's package (one process, two rivals: the tests)
    sys.path.insert(0, folder)
    evaluators = importlib.import_module(f"{PACKAGE}.evaluators")
    found = {spec.game: spec for spec in evaluators.tlachtli_evaluators()}
    evaluators._FOUND = found  # type: ignore[attr-defined]  # the rival's module: mypy knows ours
    return importlib.import_module(f"{PACKAGE}.ismcts").ISMCTSAgent

"""Bot packages written for the tests: a manifest and a Python module, in a folder (or archived).

``write_package`` writes a folder with ``tlachtli.toml`` and ``bot_code/__init__.py``; ``body`` is
the module's import-time code, before the Agent class (which plays the first option).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

AGENT = """
from arena.bot import Agent


class Bot(Agent):
    def act(self, observation, decision):
        return 0
"""


def manifest(
    name: str = "pkgbot", version: str = "1.0", games: tuple[str, ...] = ("goofspiel",), extra: str = ""
) -> str:
    """A manifest for a Python bot starting ``bot_code:Bot``; ``extra``: more TOML after [start]."""
    listed = ", ".join(f'"{game}"' for game in games)
    return f'name = "{name}"\nversion = "{version}"\ngames = [{listed}]\n\n[start]\npython = "bot_code:Bot"\n{extra}'


def write_package(
    folder: Path,
    name: str = "pkgbot",
    version: str = "1.0",
    body: str = "",
    games: tuple[str, ...] = ("goofspiel",),
    extra: str = "",
    agent: str = AGENT,
) -> Path:
    """Write a package to ``folder`` (made); return it."""
    (folder / "bot_code").mkdir(parents=True, exist_ok=True)
    (folder / "tlachtli.toml").write_text(manifest(name, version, games, extra))
    (folder / "bot_code" / "__init__.py").write_text(textwrap.dedent(body) + "\n" + agent)
    return folder


LADDER = """name = "{name}"
game = "goofspiel"
players = 2
seed = 1
{extra}
[[agents]]
agent = "random"

[[agents]]
name = "random-b"
agent = "random"
options = {{seed = 5}}
"""


def write_ladder(folder: Path, name: str = "open", extra: str = "") -> Path:
    """A goofspiel ladder of two randoms that submitted bots join; ``extra``: more top-level TOML."""
    path = folder / f"{name}.toml"
    path.write_text(LADDER.format(name=name, extra=extra))
    return path


def submit_package(package: Path, ladder_file: Path, submitter: str = "ana"):
    """Submit ``package`` to the ladder in ``ladder_file`` (its store beside it); the final record."""
    from arena.registry.plugins import discover
    from arena.submissions.pipeline import submit
    from arena.submissions.store import SubmissionStore
    from arena.tournament.plan.ladder import load_ladder
    from arena.tournament.plan.submission_limits import parse_limits

    registry = discover()
    ladder = load_ladder(ladder_file, registry)
    store = SubmissionStore(ladder_file.parent / "submissions")
    return submit(package, ladder, parse_limits(ladder.submissions), store, submitter, registry)

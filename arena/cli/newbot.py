"""``arena new-bot``: write a ready bot package from the templates in arena/cli/templates/newbot/.

The package holds a pyproject with the ``tlachtli`` entry point, a ``tlachtli.toml`` manifest
(what ``arena submit`` reads: arena/registry/manifest.py), the agent (a random starting
point written against ``arena.bot``, the bot author's one module), a test playing it against ``random`` in
process, and a README. ``pip install -e`` makes it visible in ``arena agents`` and it passes
``arena check`` as written.
"""

from __future__ import annotations

import importlib.resources
import importlib.util
import json
import re
from collections.abc import Sequence
from pathlib import Path
from string import Template

from engine.api import Game

# Agent names become package names (dash -> underscore): lower case, a letter first.
NAME_PATTERN = re.compile(r"[a-z][a-z0-9_-]{0,39}")

# template file -> path in the package ({module}: the importable name)
FILES = {
    "pyproject.toml.tmpl": "pyproject.toml",
    "README.md.tmpl": "README.md",
    "bot.py.tmpl": "{module}/__init__.py",
    "test_bot.py.tmpl": "tests/test_{module}.py",
    "tlachtli.toml.tmpl": "tlachtli.toml",
}


class NewBotError(ValueError):
    """A name, game or directory ``arena new-bot`` cannot use; the message says why."""


def module_name(name: str) -> str:
    """The importable package name for agent ``name``."""
    return name.replace("-", "_")


def check_name(name: str, taken_agents: set[str]) -> None:
    """Refuse a name that is malformed, already an agent, or would shadow an importable module."""
    if not NAME_PATTERN.fullmatch(name):
        raise NewBotError(
            f"bot name {name!r}: use lower-case letters, digits, '-' and '_', a letter first, at most 40"
        )
    if name in taken_agents:
        raise NewBotError(
            f"an agent named {name!r} is installed already (see `arena agents`); choose another name"
        )
    if importlib.util.find_spec(module_name(name)) is not None:
        raise NewBotError(f"a Python module {module_name(name)!r} exists already; choose another bot name")


def example_choice(game: Game | None, claimed: bool) -> str:
    """Commented lines for the bot's ``choose``: a choice in the first decision of a ``game`` match,
    with its real kind and option fields; guarded by the game's id when the bot plays every game
    (``claimed`` False). Nothing when there is no game to take it from."""
    if game is None:
        return ""
    state = game.setup(max(2, game.min_players), 1, {})
    decision = state.decision(state.to_act()[0])
    numbers = [
        key
        for key, value in decision.options[0].items()
        if key != "label" and isinstance(value, int) and not isinstance(value, bool)
    ]
    pick = (
        f'max(decision.options, key=lambda option: option["{numbers[0]}"])'
        if numbers
        else "decision.options[-1]"
    )
    test = f"decision.kind == {json.dumps(decision.kind)}"
    if not claimed:
        test = f"self.hello.game == {json.dumps(game.id)} and {test}"
    return (
        f"\n        # For example, in the first decision of a {game.id} match:"
        f"\n        #     if {test}:"
        f"\n        #         return {pick}"
    )


def render(
    name: str, game: str | None, example: Game | None = None, installed: Sequence[str] = ()
) -> dict[str, str]:
    """The package's files (relative path -> text) for agent ``name``, claiming ``game`` or every game;
    ``example``: the game (``game``'s own, or any installed one) the strategy's example is taken from;
    ``installed``: the games a bot claiming every game lists in its manifest (one is needed there)."""
    module = module_name(name)
    manifest_games = [game] if game else sorted(installed) or ["zapotec"]
    values = {
        "agent": name,
        "dist": f"tlachtli-bot-{name}",
        "module": module,
        "games": f"({json.dumps(game)},)" if game else "()",
        "games_list": f"[{json.dumps(game)}]" if game else "[]",
        "games_text": game if game else "every installed game",
        "example_game": game or "zapotec",
        "example": example_choice(example, claimed=game is not None),
        "manifest_games": json.dumps(manifest_games),
    }
    folder = importlib.resources.files("arena.cli") / "templates" / "newbot"
    return {
        target.format(module=module): Template((folder / source).read_text(encoding="utf-8")).substitute(
            values
        )
        for source, target in FILES.items()
    }


def write_package(directory: Path, files: dict[str, str]) -> list[Path]:
    """Write ``files`` under ``directory`` (absent or empty, else NewBotError); return the paths."""
    written = []
    try:
        if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
            raise NewBotError(f"{directory} exists and is not an empty directory; choose another --dir")
        for relative, text in files.items():
            path = directory / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            written.append(path)
    except OSError as error:  # e.g. --dir /proc/x, a read-only disk, a full one
        where = error.filename or directory
        raise NewBotError(
            f"cannot write {where}: {error.strerror or error}; choose a --dir you can write"
        ) from None
    return written

"""The decision kinds a game asks and the fields of each kind's options, found by playing it.

A bot author reads what an option carries besides its ``label`` (Zapotec's ``action``, ``line``,
``space``, ...; Teotihuacan's ``act`` payload) in the table docs/zapotec.md and docs/teotihuacan.md
hold. The table is made here from seeded random games of every set-up, so it follows the engine:
tests/engine/test_decision_kinds.py fails when the docs' copy differs, and

    python -m engine.decision_kinds --write

writes it again (between the ``decision-kinds`` markers of each doc).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from random import Random
from typing import Any

from engine.api import Game

ROOT = Path(__file__).resolve().parents[1]
BEGIN, END = (
    "<!-- decision-kinds: begin (python -m engine.decision_kinds --write) -->",
    "<!-- decision-kinds: end -->",
)
SEEDS = range(12)  # games played per set-up
EXAMPLE_CHARS = 60  # an example value or prompt longer than this is cut


@dataclass
class Kind:
    """One decision kind as met in play: the fields its options carried, an example of each."""

    name: str
    fields: dict[str, Any] = field(default_factory=dict)  # field -> its first value seen
    prompt: str = ""
    label: str = ""


def setups(game: Game) -> list[tuple[int, dict[str, Any]]]:
    """The set-ups played to find a game's kinds: every player count, the automaton, the modules."""
    found: list[tuple[int, dict[str, Any]]] = [(players, {}) for players in range(2, game.max_players + 1)]
    for automaton in game.automata:
        found.append((1, {"automaton": automaton}))
    for name, spec in game.option_schema().items():  # each rule switched on: its own kinds (a draft)
        if spec.get("type") == "bool" and not spec.get("default"):
            found.append((2, {name: True}))
    if "modules" in game.option_schema():
        found += [(players, {"modules": "all"}) for players in (2, 4)]
        found += [(1, {"automaton": automaton, "modules": "all"}) for automaton in game.automata]
    return found


def survey(game: Game) -> list[Kind]:
    """Every decision kind seeded random games of ``game`` asked, in the order first met (a kind
    that random play rarely reaches may be missing: the docs name those in their text)."""
    kinds: dict[str, Kind] = {}
    for players, options in setups(game):
        for seed in SEEDS:
            state = game.setup(players, seed, options)
            rng = Random(seed)
            while state.to_act():
                seat = state.to_act()[0]
                decision = state.decision(seat)
                kind = kinds.setdefault(decision.kind, Kind(decision.kind, prompt=decision.prompt))
                for option in decision.options:
                    if not kind.label:
                        kind.label = str(option.get("label", ""))
                    for name, value in option.items():
                        if name != "label":
                            kind.fields.setdefault(name, value)
                state.apply(seat, rng.randrange(len(decision.options)))
    return list(kinds.values())


def _cut(text: str) -> str:
    text = " ".join(text.split()).replace("|", "\\|")
    return text if len(text) <= EXAMPLE_CHARS else text[: EXAMPLE_CHARS - 3] + "..."


def table(kinds: list[Kind]) -> str:
    """The Markdown table: each kind, its options' fields with an example value, a prompt and a label."""
    lines = [
        "| kind | option fields besides `label` (an example value) | example prompt | example option label |",
        "| --- | --- | --- | --- |",
    ]
    for kind in kinds:
        fields = ", ".join(f"`{name}` ({_cut(json.dumps(value))})" for name, value in kind.fields.items())
        lines.append(f"| `{kind.name}` | {fields or '-'} | {_cut(kind.prompt)} | {_cut(kind.label)} |")
    return "\n".join(lines)


def block(game: Game) -> str:
    """The table with its markers, as a doc holds it."""
    return f"{BEGIN}\n{table(survey(game))}\n{END}"


def in_doc(text: str) -> str | None:
    """The marked block of a doc's ``text``; None if it has none."""
    found = re.search(re.escape(BEGIN) + r".*?" + re.escape(END), text, re.S)
    return found.group() if found else None


def docs() -> dict[Path, Game]:
    """Each doc that holds a table, with its game."""
    from engine.teotihuacan import GAME as TEOTIHUACAN
    from engine.zapotec import GAME as ZAPOTEC

    return {ROOT / "docs" / "zapotec.md": ZAPOTEC, ROOT / "docs" / "teotihuacan.md": TEOTIHUACAN}


def main(argv: list[str] | None = None) -> int:
    """Print each game's table, or with ``--write`` put it in its doc (between the markers)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="write the tables into the docs")
    args = parser.parse_args(argv)
    for path, game in docs().items():
        fresh = block(game)
        if not args.write:
            print(f"{path.name}:\n{fresh}\n")
            continue
        text = path.read_text(encoding="utf-8")
        old = in_doc(text)
        if old is None:
            print(f"error: {path} has no {BEGIN!r} ... {END!r} markers", file=sys.stderr)
            return 1
        path.write_text(text.replace(old, fresh), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

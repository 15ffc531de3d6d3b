"""The decision-kinds tables of docs/zapotec.md and docs/teotihuacan.md are the engine's own."""

from __future__ import annotations

import pytest

from engine.decision_kinds import block, docs, in_doc


@pytest.mark.parametrize("path", list(docs()), ids=lambda path: path.name)
def test_the_docs_decision_kinds_table_is_made_from_the_engine(path):
    game = docs()[path]
    shown = in_doc(path.read_text(encoding="utf-8"))
    assert shown is not None, f"{path.name} lost its decision-kinds markers"
    assert shown == block(game), f"{path.name} is out of date: run `python -m engine.decision_kinds --write`"


def test_the_table_names_each_kinds_option_fields():
    zapotec = in_doc(next(path for path in docs() if path.name == "zapotec.md").read_text(encoding="utf-8"))
    assert zapotec is not None
    rows = {line.split("|")[1].strip(): line for line in zapotec.splitlines() if line.startswith("| `")}
    assert "`action`" in rows["`income`"] and "`line`" in rows["`income`"]
    assert "`space`" in rows["`construction`"] and "`cell`" in rows["`grid-space`"]

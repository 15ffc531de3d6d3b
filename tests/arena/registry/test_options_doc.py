"""The agent option tables in docs/*.md are the ones the agents declare (arena/registry/options_doc.py)."""

from __future__ import annotations

import pytest

from arena.registry.options_doc import COMMAND, DOCS, agent_table, blocks, rewrite
from arena.registry.plugins import discover

REGISTRY = discover()
DOCUMENTED = [
    (path.name, name, text)
    for path in sorted(DOCS.glob("*.md"))
    for name, text in blocks(path.read_text(encoding="utf-8"))
]


def test_the_docs_hold_the_bundled_bots_option_tables():
    assert {name for _, name, _ in DOCUMENTED} >= {"ismcts", "greedy", "flatmc"}


@pytest.mark.parametrize("doc, agent, text", DOCUMENTED, ids=[f"{d}:{a}" for d, a, _ in DOCUMENTED])
def test_each_agent_options_block_is_the_generated_table(doc, agent, text):
    assert text == agent_table(agent, REGISTRY), (
        f"docs/{doc}: the options table of {agent!r} is not what it declares; run `{COMMAND}`"
    )


def test_rewrite_fills_a_block_and_leaves_the_rest():
    text = "before\n<!-- agent-options: random -->\nstale\n<!-- /agent-options -->\nafter\n"
    fresh = rewrite(text, REGISTRY)
    assert fresh.startswith("before\n<!-- agent-options: random -->\n| option | type |")
    assert "| `seed` | int |" in fresh and "stale" not in fresh
    assert fresh.endswith("<!-- /agent-options -->\nafter\n")
    assert rewrite(fresh, REGISTRY) == fresh

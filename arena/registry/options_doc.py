"""The agent option tables in docs/*.md, generated from the options each agent declares.

A document marks where an agent's table goes::

    <!-- agent-options: ismcts -->
    (the table, written by this module)
    <!-- /agent-options -->

``python -m arena.registry.options_doc`` rewrites every such block in docs/*.md in place (``--check``:
only says which are out of date, exit status 1), so the docs list the options the bots accept.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from arena.registry.plugins import Registry, discover
from engine.options import markdown_table

DOCS = Path(__file__).resolve().parents[2] / "docs"
COMMAND = "python -m arena.registry.options_doc"
BLOCK = re.compile(r"(<!-- agent-options: ([\w.-]+) -->\n)(.*?)(<!-- /agent-options -->)", re.DOTALL)


def agent_table(name: str, registry: Registry) -> str:
    """Agent ``name``'s declared options as a markdown table (a line saying so if it declares none)."""
    spec = registry.agent(name)
    if not spec.options:
        return f"`{name}` takes no options.\n"
    return markdown_table(spec.options)


def blocks(text: str) -> list[tuple[str, str]]:
    """Each ``(agent name, text between the markers)`` of ``text``, in order."""
    return [(found.group(2), found.group(3)) for found in BLOCK.finditer(text)]


def rewrite(text: str, registry: Registry) -> str:
    """``text`` with every agent-options block holding its agent's generated table."""
    return BLOCK.sub(
        lambda found: found.group(1) + agent_table(found.group(2), registry) + found.group(4), text
    )


def main(argv: list[str]) -> int:
    """Rewrite the blocks of docs/*.md (``--check``: list the stale ones instead); 1 if any were."""
    check = "--check" in argv
    registry = discover()
    stale = []
    for path in sorted(DOCS.glob("*.md")):
        text = path.read_text(encoding="utf-8")
        fresh = rewrite(text, registry)
        if fresh != text:
            stale.append(path)
            if not check:
                path.write_text(fresh, encoding="utf-8")
    for path in stale:
        print(f"{path.name}: {'out of date' if check else 'rewritten'}")
    return 1 if stale and check else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

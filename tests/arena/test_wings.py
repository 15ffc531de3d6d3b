"""arena's wings depend on each other one way, and no modules import each other in a loop.

Every import counts: at the top, inside a function, under TYPE_CHECKING. docs/architecture.md
draws the same order.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Lowest first: a wing may import the wings before it, never one after it.
WINGS = (
    "arena/text/",
    "arena/registry/",
    "arena/wire/",
    "arena/process/",
    "arena/match/",
    "arena/tournament/formats.py",
    "arena/tournament/store/",
    "arena/tournament/stats/",
    "arena/tournament/plan/",
    "arena/submissions/",
    "arena/tournament/run/",
    "arena/web/",
    "arena/cli/",
    "arena/bot.py",
)


def arena_modules() -> dict[str, Path]:
    found = {}
    for path in (ROOT / "arena").rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imports_of(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The arena modules ``name`` imports, wherever the import stands."""

    def known_prefix(target: str) -> str | None:
        while target and target not in known:
            target = target.rpartition(".")[0]
        return target or None

    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            targets = [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        found |= {hit for hit in map(known_prefix, targets) if hit and hit != "arena"}
    found.discard(name)
    return found


def graph() -> dict[str, set[str]]:
    known = arena_modules()
    return {name: imports_of(name, path, known) for name, path in known.items()}


def wing_of(module: str) -> int | None:
    """The place in WINGS of the wing that holds ``module``."""
    for place, wing in enumerate(WINGS):
        dotted = wing.removesuffix("/").removesuffix(".py").replace("/", ".")
        if module == dotted or (wing.endswith("/") and module.startswith(dotted + ".")):
            return place
    return None


def loops(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def test_the_loop_finder_finds_a_loop_and_only_one():
    assert loops({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_arena_modules_import_each_other_in_a_loop():
    assert loops(graph()) == []


def test_every_arena_module_is_in_a_wing():
    edges = graph()
    outside = sorted(
        name for name in edges if wing_of(name) is None and name not in ("arena", "arena.tournament")
    )
    assert outside == [], f"modules in no wing of tests/arena/test_wings.py's WINGS: {outside}"


def test_wings_import_only_the_wings_below_them():
    upward = sorted(
        f"{source} -> {target}"
        for source, targets in graph().items()
        for target in targets
        if (a := wing_of(source)) is not None and (b := wing_of(target)) is not None and b > a
    )
    assert upward == [], f"imports against the wings' order (docs/architecture.md): {upward}"

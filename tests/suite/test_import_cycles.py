"""The engines' modules import each other without a cycle: every import counts, those under
``if TYPE_CHECKING:`` and those inside a function too (a cycle hidden there is still a knot a
reader has to untie)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def module_name(path: Path) -> str:
    """``engine/teotihuacan/rules/setup.py`` -> ``engine.teotihuacan.rules.setup`` (a package's
    ``__init__.py`` is the package)."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported(path: Path, name: str, modules: set[str]) -> set[str]:
    """The modules of ``modules`` that ``path`` (module ``name``) imports, anywhere in it.
    ``from package import x`` names the submodule ``x`` where there is one, else the package
    (the package's ``__init__`` running first is no arrow of this file's)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            target = node.module or ""
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join([*base, *filter(None, [node.module])])
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.add(sub if sub in modules else target)
    return found & modules - {name}


def import_graph(folder: str) -> dict[str, set[str]]:
    """Module -> the modules of ``folder`` it imports."""
    files = {module_name(path): path for path in (ROOT / folder).rglob("*.py")}
    return {name: imported(path, name, set(files)) for name, path in files.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_engines_have_no_import_cycle():
    assert cycles(import_graph("engine")) == []


def test_a_cycle_through_a_type_checking_import_is_found(tmp_path):
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    # the check reads imports under TYPE_CHECKING and inside functions as well
    source = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .core import X\ndef f():\n    from . import rules\n"
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "state.py").write_text(source)
    known = {"engine.pkg", "engine.pkg.state", "engine.pkg.core", "engine.pkg.rules"}
    assert imported(package / "state.py", "engine.pkg.state", known) == {
        "engine.pkg.core",
        "engine.pkg.rules",
    }

"""README.md's Layout section against the tree: every path it names exists, and every package and
every loose module of arena/, engine/ and plugins/ is named there (a module inside a named package
is that package's business: its docstring says what it is)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("arena", "engine", "plugins")
DESCRIPTION_COLUMN = 20  # a line indented this far continues the description above it


def layout_block(readme: str) -> str:
    """The fenced block under the ``## Layout`` heading."""
    section = readme.split("\n## Layout\n", 1)[1]
    found = re.search(r"^```\n(.*?)^```", section, re.MULTILINE | re.DOTALL)
    assert found, "README.md's Layout section has no fenced block"
    return found.group(1)


def named_paths(block: str) -> list[str]:
    """The paths the block names: the first word of each line that is not a continuation, joined
    to the folder it is indented under (two spaces a level)."""
    paths: list[str] = []
    stack: list[tuple[int, str]] = []  # (indent, path) of the folders above the current line
    for line in block.splitlines():
        indent = len(line) - len(line.lstrip(" "))
        if not line.strip() or indent >= DESCRIPTION_COLUMN:
            continue
        word = line.split()[0]
        while stack and stack[-1][0] >= indent:
            stack.pop()
        path = (stack[-1][1] if stack else "") + word
        paths.append(path)
        if word.endswith("/"):
            stack.append((indent, path))
    return paths


def test_the_layout_parser_reads_nesting_and_skips_descriptions():
    block = "a/                  x\n  b.py              y\n                      z.py continued\n  c/\n    d.py\ne.toml\n"
    assert named_paths(block) == ["a/", "a/b.py", "a/c/", "a/c/d.py", "e.toml"]


def test_every_path_the_layout_names_exists():
    paths = named_paths(layout_block((ROOT / "README.md").read_text(encoding="utf-8")))
    assert len(paths) > 20
    missing = [path for path in paths if "<" not in path and not (ROOT / path).exists()]
    assert missing == [], f"README.md's Layout names paths that are not in the tree: {missing}"


def test_every_package_and_loose_module_is_named_in_the_layout():
    named = set(named_paths(layout_block((ROOT / "README.md").read_text(encoding="utf-8"))))
    wanted = set()
    for package in PACKAGES:
        for init in (ROOT / package).rglob("__init__.py"):
            wanted.add(init.parent.relative_to(ROOT).as_posix() + "/")
        for module in (ROOT / package).glob("*.py"):
            if module.name != "__init__.py":
                wanted.add(module.relative_to(ROOT).as_posix())
    unnamed = sorted(wanted - named)
    assert unnamed == [], (
        f"README.md's Layout does not name {unnamed}: give each package and each module beside the "
        "wings a line there (or move the module into the wing it belongs to)"
    )

"""arena's wings depend on each other one way, and no modules import each other in a loop.

Every import counts: at the top, inside a function, under TYPE_CHECKING. docs/architecture.md
draws the same order.
"""

from __future__ import annotations

from tests.support.import_graph import import_graph, loops

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
    "arena/accounts/",
    "arena/tournament/run/",
    "arena/web/",
    "arena/cli/",
    "arena/bot.py",
)


def graph() -> dict[str, set[str]]:
    return import_graph("arena")


def wing_of(module: str) -> int | None:
    """The place in WINGS of the wing that holds ``module``."""
    for place, wing in enumerate(WINGS):
        dotted = wing.removesuffix("/").removesuffix(".py").replace("/", ".")
        if module == dotted or (wing.endswith("/") and module.startswith(dotted + ".")):
            return place
    return None


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

"""The engines' modules import each other without a cycle: every import counts, those under
``if TYPE_CHECKING:`` and those inside a function too (a cycle hidden there is still a knot a
reader has to untie)."""

from __future__ import annotations

from tests.support.import_graph import import_graph, imported, loops


def test_the_engines_have_no_import_cycle():
    assert loops(import_graph("engine")) == []


def test_a_cycle_through_a_type_checking_import_is_found(tmp_path):
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert loops(graph) == [["a", "b", "c"]]
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

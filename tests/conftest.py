"""Shared fixtures: the test game goofspiel and the fault-injecting agents load as plugins via TLACHTLI_PLUGINS."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _test_plugins(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the test game discoverable in this process and in any subprocess it starts."""
    monkeypatch.setenv(
        "TLACHTLI_PLUGINS",
        "tests.support.goofspiel,tests.support.faulty_agents,tests.support.goofspiel_agents",
    )
    path = os.environ.get("PYTHONPATH", "")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), path])))

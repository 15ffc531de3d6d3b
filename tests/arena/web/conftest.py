"""The web tests' store, played once per test process and shared by test_web.py and
test_web_browser.py (both only read it: test_web checks that no request writes to it).

Both modules carry the ``WEB_STORE`` xdist group (tests/support/web_store.py), so that they run on
the same worker and the store is built once in a parallel run too.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.browser import chromium
from tests.support.web_store import build_contest_store, build_store


@pytest.fixture(scope="session")
def web_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two small ladders (Zapotec, Teotihuacan) played by `arena run` into one store."""
    return build_store(tmp_path_factory.mktemp("web"))


@pytest.fixture(scope="session")
def contest_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Zapotec solo ladder and an `arena compare` run, played once (build_contest_store)."""
    return build_contest_store(tmp_path_factory.mktemp("contest"))


@pytest.fixture
def browser():
    """A Chromium for one test (tests/support/browser.py); skips without Playwright."""
    with chromium() as launched:
        yield launched

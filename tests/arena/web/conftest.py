"""The web tests' store, played once per test process and shared by test_web.py and
test_web_browser.py (both only read it: test_web checks that no request writes to it).

Both modules carry the ``WEB_STORE`` xdist group (tests/support/web_store.py), so that they run on
the same worker and the store is built once in a parallel run too.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import SharedChromium, shared_chromium
from tests.support.web_store import build_contest_store, build_store, served


@pytest.fixture(scope="session")
def web_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two small ladders (Zapotec, Teotihuacan) played by `arena run` into one store."""
    return build_store(tmp_path_factory.mktemp("web"))


@pytest.fixture(scope="session")
def contest_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Zapotec solo ladder and an `arena compare` run, played once (build_contest_store)."""
    return build_contest_store(tmp_path_factory.mktemp("contest"))


@pytest.fixture(scope="session")
def _shared_chromium() -> Iterator[SharedChromium]:
    """One Chromium per test process (each xdist worker), started by the first test that asks."""
    with shared_chromium() as shared:
        yield shared


@pytest.fixture
def browser(_shared_chromium: SharedChromium) -> Iterator[Any]:
    """The Chromium lent to one test: each page it opens is a context of its own, closed on
    every path when the test ends (tests/support/browser.py); skips without Playwright."""
    with _shared_chromium.lend() as lent:
        yield lent


@pytest.fixture(scope="session")
def web_server(web_store: Path) -> Iterator[str]:
    """The web arena over ``web_store``, served in a thread of this process (web_store.served)."""
    with served(web_store) as url:
        yield url


@pytest.fixture(scope="session")
def contest_server(contest_store: Path) -> Iterator[str]:
    """The web arena over ``contest_store``, served in a thread of this process."""
    with served(contest_store) as url:
        yield url

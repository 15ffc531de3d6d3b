"""The Chromium the browser tests share (tests/support/browser.py: one per test process): lent to
one test at a time, it leaves the thread's asyncio free between tests and the leak guard blind
to nothing but its own processes."""

from __future__ import annotations

import asyncio
import sys

from tests.support.browser import NEEDS_CHROMIUM, SharedChromium, playwright_api
from tests.support.processes import leftovers
from tests.support.web_store import WEB_STORE

playwright_api()
pytestmark = [NEEDS_CHROMIUM, WEB_STORE]


def test_between_loans_asyncio_is_free_and_the_browser_still_serves(_shared_chromium: SharedChromium):
    with _shared_chromium.lend() as browser:
        browser.new_page().set_content("<p>one</p>")
    # Playwright's sync API marks its loop running between calls: not outside a loan.
    assert asyncio.run(asyncio.sleep(0, "free")) == "free"
    with _shared_chromium.lend() as browser:
        assert browser.contexts == []  # the last loan's pages were closed
        page = browser.new_page()
        page.set_content("<p>two</p>")
        assert page.inner_text("p") == "two"


def test_the_leak_guard_passes_only_the_shared_browser_by(_shared_chromium: SharedChromium, popen):
    with _shared_chromium.lend() as browser:
        browser.new_page().set_content("<p>a renderer runs</p>")
        other = popen([sys.executable, "-c", "import time; time.sleep(60)"])
        assert leftovers("a tag no process has") == [other.pid]

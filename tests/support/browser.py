"""What the browser tests share: Playwright driving the system's Chromium (never a download), a
page that collects console errors, page errors and dialogs, and screenshots.

Where Playwright or a `chromium` executable is missing the tests skip with a one-line reason
(`.ci/run` installs chromium when it runs as root). TLACHTLI_WEB_SHOTS=DIR keeps the screenshots
(docs/web.md's come from there).
"""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import psutil
import pytest

from tests.support.processes import kept_for_the_session

CHROMIUM = os.environ.get("TLACHTLI_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
NEEDS_CHROMIUM = pytest.mark.skipif(
    CHROMIUM is None, reason="no chromium executable (apt-get install chromium)"
)


def playwright_api() -> ModuleType:
    """``playwright.sync_api``; called at a test module's top, it skips the module without it."""
    return pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install -e '.[dev]')"
    )


@contextmanager
def chromium() -> Iterator[Any]:
    """A Chromium browser, closed on every path (the suite fails a test that leaves a process)."""
    with playwright_api().sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield browser
        finally:
            browser.close()


class SharedChromium:
    """One Chromium lent to test after test (``lend``): launching one costs ~2 s of CPU, a fresh
    context per page ~0.25 s.

    Playwright's sync API marks its asyncio loop as running in this thread between its calls;
    left so, another test here could not use asyncio (``asyncio.run`` refuses to start). So the
    mark is set only while a test borrows the browser.
    """

    def __init__(self, browser: Any) -> None:
        self.browser = browser
        self._loop = asyncio._get_running_loop()  # set by Playwright's last call, the launch's
        asyncio._set_running_loop(None)

    @contextmanager
    def lend(self) -> Iterator[Any]:
        """The browser for one test; the contexts (pages) it opened are closed on every path."""
        asyncio._set_running_loop(self._loop)
        try:
            if not self.browser.is_connected():
                pytest.fail("the shared Chromium is gone (crashed or killed by an earlier test)")
            yield self.browser
        finally:
            try:
                for context in self.browser.contexts:
                    context.close()
            finally:
                asyncio._set_running_loop(None)

    def close(self) -> None:
        asyncio._set_running_loop(self._loop)
        self.browser.close()


@contextmanager
def shared_chromium() -> Iterator[SharedChromium]:
    """A Chromium for a whole test session (``SharedChromium``), closed at its end; the leak
    guard passes its processes by meanwhile (Playwright's driver, Chromium and its children)."""
    me = psutil.Process()
    before = {child.pid for child in me.children()}
    with chromium() as browser:
        shared = SharedChromium(browser)
        started = {child.pid for child in me.children()} - before
        try:
            with kept_for_the_session(started):
                yield shared
        finally:
            shared.close()


def open_page(browser: Any, url: str, size: tuple[int, int] = (1400, 1000)) -> Any:
    """A page at ``url`` (a viewport of ``size``, width and height) collecting console errors, page
    errors and dialogs into ``page.problems``."""
    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    problems: list[str] = []
    page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("dialog", lambda dialog: problems.append(f"dialog: {dialog.message}"))  # an alert() got through
    page.problems = problems
    page.goto(url)
    return page


def shot(page: Any, name: str, tmp_path: Path) -> None:
    """A screenshot of ``page`` as ``name``, under TLACHTLI_WEB_SHOTS or the test's ``tmp_path``."""
    target = Path(os.environ.get("TLACHTLI_WEB_SHOTS") or tmp_path)
    target.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(target / name), full_page=False)
    assert (target / name).stat().st_size > 10_000

"""What the browser tests share: Playwright driving the system's Chromium (never a download), a
page that collects console errors, page errors and dialogs, and screenshots.

Where Playwright or a `chromium` executable is missing the tests skip with a one-line reason
(`.ci/run` installs chromium when it runs as root). TLACHTLI_WEB_SHOTS=DIR keeps the screenshots
(docs/web.md's come from there).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

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


def open_page(browser: Any, url: str) -> Any:
    """A page at ``url`` collecting console errors, page errors and dialogs into ``page.problems``."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
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

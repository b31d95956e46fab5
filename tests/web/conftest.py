"""Fixtures for the browser tests: Debian's headless Chromium driven by Playwright.

The session's one Playwright driver and Chromium (``playwright``, ``browser``)
live in ``tests/conftest.py``, shared with the mail tests that render mails.

Chromium comes from apt (``tests/web/ensure_chromium.sh``, run here when
``/usr/bin/chromium`` is missing), never from ``playwright install``; axe-core, the
accessibility engine injected into the pages, from npm (``tests/web/ensure_axe.sh``, run when
``tests/web/axe/node_modules`` lacks it, at the version ``tests/web/axe/package-lock.json`` pins).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
#: A phone-sized window, so that the screenshots show what a phone shows.
PHONE = {"width": 390, "height": 844}
SCREENSHOTS = ROOT / "test-output" / "screenshots"
AXE = Path(__file__).parent / "axe" / "node_modules" / "axe-core" / "axe.min.js"


@pytest.fixture
def new_context(browser: Browser) -> Iterator:
    """A factory of separate browser contexts (separate cookie jars, like separate people)."""
    contexts: list[BrowserContext] = []

    def make() -> BrowserContext:
        context = browser.new_context(viewport=PHONE)
        context.set_default_timeout(15_000)
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()


@pytest.fixture(scope="session")
def screenshots() -> Path:
    """The folder for the reviewers' screenshots (git-ignored ``test-output/``)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS

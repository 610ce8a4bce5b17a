"""Debian's Chromium for the browser tests: where it is, how it starts, and when to skip.

The tests drive ``chromium-headless-shell``, Debian's headless build of the same Chromium
(Blink and V8 as in the desktop browser, without its window system and browser services): it
starts and runs on about a quarter less CPU than ``chromium --headless``. The browser features
it leaves out, such as the Push API, are tested in the desktop build (``DESKTOP_CHROMIUM``).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Browser, Locator, Page, async_playwright, expect

from kinbot_web.blueprints.frontend import PACKAGED_BUILD

CHROMIUM = Path("/usr/bin/chromium-headless-shell")
#: The desktop browser, for what the headless shell lacks (the Push API).
DESKTOP_CHROMIUM = Path("/usr/bin/chromium")
#: How long a browser test's ``expect`` waits for a state (5 s by Playwright's default, short
#: for a busy CI machine); the states come sooner, this only bounds a test that fails.
EXPECT_TIMEOUT_MS = 30_000
expect.set_options(timeout=EXPECT_TIMEOUT_MS)
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]

# A browser test module's `pytestmark`: it needs Chromium and the built web interface.
NEEDS_BROWSER = [
    pytest.mark.skipif(
        not CHROMIUM.exists(),
        reason="needs Debian's headless Chromium (apt-get install chromium-headless-shell)",
    ),
    pytest.mark.skipif(
        not (PACKAGED_BUILD / "index.html").is_file(),
        reason="the web interface is not built (make test builds it)",
    ),
]


@asynccontextmanager
async def launched(executable: Path = CHROMIUM) -> AsyncIterator[Browser]:
    """Chromium started from ``executable`` (Playwright never downloads a browser), closed
    afterwards."""
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=str(executable), args=FLAGS)
        yield browser
        await browser.close()


def toast(page: Page, text: str) -> Locator:
    """The toast showing ``text``, in the toasts' region: while it is announced, a copy of
    its text also sits in a screen-reader live region, which a page-wide lookup matches too."""
    region = page.get_by_role("region", name=re.compile(r"^Notifications"))
    return region.get_by_text(text, exact=True)


@asynccontextmanager
async def open_page(browser: Browser, **options: Any) -> AsyncIterator[Page]:
    """A page in a browser context of its own, made with ``options`` for
    ``browser.new_context`` (an English locale and a 1280x800 viewport unless they say
    otherwise); its actions wait up to EXPECT_TIMEOUT_MS, and an error the page raises fails
    the test once the context is closed."""
    context = await browser.new_context(
        **{"locale": "en-US", "viewport": {"width": 1280, "height": 800}, **options}
    )
    context.set_default_timeout(EXPECT_TIMEOUT_MS)
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    await context.close()
    assert errors == [], errors

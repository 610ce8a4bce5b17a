"""Debian's Chromium for the browser tests: where it is, how it starts, and when to skip."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.async_api import Locator, Page

from kinbot_web.blueprints.frontend import PACKAGED_BUILD

CHROMIUM = Path("/usr/bin/chromium")
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
        not CHROMIUM.exists(), reason="needs Debian's Chromium (apt-get install chromium)"
    ),
    pytest.mark.skipif(
        not (PACKAGED_BUILD / "index.html").is_file(),
        reason="the web interface is not built (make test builds it)",
    ),
]


def toast(page: Page, text: str) -> Locator:
    """The toast showing ``text``, in the toasts' region: while it is announced, a copy of
    its text also sits in a screen-reader live region, which a page-wide lookup matches too."""
    region = page.get_by_role("region", name=re.compile(r"^Notifications"))
    return region.get_by_text(text, exact=True)

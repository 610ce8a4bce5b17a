"""Debian's Chromium for the browser tests: where it is, how it starts, and when to skip."""

from __future__ import annotations

from pathlib import Path

import pytest

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

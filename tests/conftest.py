"""Fixtures for the whole suite: a clean environment and a private data directory per test."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from kinbot_core.config import Settings, load_settings
from kinbot_core.platform import Platform

#: The real llama.cpp server's option, marker and fixture (tests/support/llama_server.py).
pytest_plugins = ("tests.support.llama_server",)


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No KINBOT_* variable of the developer's shell leaks into a test. Memory extraction
    waits an hour after a turn unless the test sets its delay: after the default 30 s (a
    loaded host makes many tests that long), its model call would take a reply the test
    queued in a fake provider for a turn."""
    for name in list(os.environ):
        if name.startswith("KINBOT_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("KINBOT_MEMORY_EXTRACTION_DELAY_SECONDS", "3600")


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def settings(data_dir: Path) -> Settings:
    return load_settings(data_dir=data_dir, plugin_hook_timeout_seconds=2.0)


@pytest.fixture
async def platform(settings: Settings) -> AsyncIterator[Platform]:
    """A started platform with the installed plugins, stopped after the test."""
    platform = Platform(settings)
    await platform.start()
    yield platform
    await platform.stop()


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Print the figures tests left as a ``("summary", line)`` user property (the API fuzzing
    run's, say), also when they ran in another xdist worker."""
    lines = {
        value
        for reports in terminalreporter.stats.values()
        for report in reports
        for name, value in getattr(report, "user_properties", ())
        if name == "summary"
    }
    if lines:
        terminalreporter.write_sep("-", "figures")
        for line in sorted(lines):
            terminalreporter.write_line(line)

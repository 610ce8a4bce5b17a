"""Setting up the Telegram channel against the fake Bot API (test support).

The ``telegram`` plugin is registered the way a test registers a plugin in process
(``register_telegram``), or, for a ``kinbot serve`` subprocess, through a throw-away
distribution with its entry point (``telegram_entry_point``) when the installed package
does not declare it yet.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import httpx

import kinbot_plugins.channels.telegram as telegram_plugin
from kinbot_core.platform import Platform
from tests.support.distributions import write_distribution
from tests.support.telegram_fake import FakeTelegram

T = TypeVar("T")

#: A token of the shape @BotFather gives.
TOKEN = "7000:AAHfake-token-for-the-family-bot-0123456789"
CODE = r"\b[A-Z2-9]{4}-[A-Z2-9]{4}\b"


def _installed() -> bool:
    return any(ep.name == "telegram" for ep in importlib.metadata.entry_points(group="kinbot"))


def register_telegram(platform: Platform) -> Platform:
    """The Telegram plugin on ``platform`` (before it starts) unless installed."""
    if not _installed():
        platform.plugins.register(telegram_plugin, "telegram")
    return platform


def telegram_entry_point(site: Path) -> dict[str, str]:
    """The environment a ``kinbot serve`` subprocess needs to find the Telegram plugin: a
    distribution declaring its entry point in ``site`` (on ``PYTHONPATH``) unless the
    installed package declares it."""
    if _installed():
        return {}
    write_distribution(
        site,
        "kinbot-telegram-for-tests",
        modules={},
        entry_points={"telegram": "kinbot_plugins.channels.telegram"},
    )
    root = Path(telegram_plugin.__file__).resolve().parents[3]
    return {"PYTHONPATH": f"{site}:{root}"}


def telegram_settings(fake: FakeTelegram, **changes: Any) -> dict[str, Any]:
    """A connection's settings pointing at ``fake`` (short polls, so tests end quickly)."""
    return {
        "bot_token": TOKEN,
        "base_url": fake.base_url,
        "base_file_url": fake.base_file_url,
        "poll_timeout_seconds": 1,
        **changes,
    }


async def add_telegram_channel(
    client: httpx.AsyncClient,
    fake: FakeTelegram,
    kin_ids: list[str],
    label: str = "Family Telegram",
    **changes: Any,
) -> dict[str, Any]:
    """Through HTTP, as an administrator: a Telegram connection to ``fake``."""
    response = await client.post(
        "/api/channels",
        json={
            "type": "telegram",
            "label": label,
            "settings": telegram_settings(fake, **changes),
            "kin_ids": kin_ids,
        },
    )
    assert response.status_code == 201, response.text
    channel: dict[str, Any] = response.json()["channel"]
    return channel


async def eventually(probe: Callable[[], Awaitable[T | None]], seconds: float = 60.0) -> T:
    """The first truthy answer of ``probe``, asked again every 50 ms (a state the server
    reaches on its own: a delivery recorded, a connection's state)."""
    deadline = time.monotonic() + seconds
    while True:
        found = await probe()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError("the awaited state was not reached")
        await asyncio.sleep(0.05)

"""Setting up the Telegram channel against the fake Bot API (test support).

The ``telegram`` plugin is a built-in one (an entry point of the package), loaded by every
platform and ``kinbot serve``.
"""

from __future__ import annotations

from typing import Any

import httpx

from tests.support.telegram_fake import FakeTelegram

#: A token of the shape @BotFather gives.
TOKEN = "7000:AAHfake-token-for-the-family-bot-0123456789"
CODE = r"\b[A-Z2-9]{4}-[A-Z2-9]{4}\b"


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

"""``kinbot vault rotate-key`` re-encrypts the secrets inside settings documents too (they sit
in a JSON column whose name says nothing of them): a Telegram connection's token and a
plugin's secret setting still open under the new key."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from kinbot_core.config import load_settings
from kinbot_core.platform import Platform
from tests import test_vault_rotation as rotation
from tests.support.fakes import FakeOpenAI
from tests.support.provider_setups import API_KEY
from tests.support.telegram_setup import TOKEN

# The fake provider's fixture, under the name pytest looks for.
fake_llm = rotation.fake_llm

DISPLAY_TOKEN = "house-rules-display-token-0123456789"


def stored(data_dir: Path) -> dict[str, str]:
    with sqlite3.connect(data_dir / "kinbot.db") as conn:
        channel = conn.execute("select settings from channel_connection").fetchone()[0]
        plugin = conn.execute("select stored from plugin_settings").fetchone()[0]
    return {"channel": channel, "plugin": plugin}


async def test_rotation_reseals_channel_and_plugin_settings(
    data_dir: Path, fake_llm: FakeOpenAI
) -> None:
    platform = Platform(load_settings(data_dir=data_dir))
    await platform.start()
    try:
        config = {"api_key": API_KEY, "base_url": f"{fake_llm.base_url}/v1"}
        await platform.providers.add("ai", "openai", "OpenAI", config)
        kin = await platform.kins.create({"name": "Chef", "model": "gpt-4o"})
        # Not enabled: nothing connects; only the settings matter here.
        channel = await platform.channels.connections.create(
            "telegram", "Family Telegram", {"bot_token": TOKEN}, [kin.id], enabled=False
        )
        await platform.plugin_settings.update("house_rules", {"display_token": DISPLAY_TOKEN})
    finally:
        await platform.stop()
    before = stored(data_dir)

    result = rotation.rotate(data_dir)
    assert result.returncode == 0, result.stderr
    assert "1 in channel_connection" in result.stdout and "1 in plugin_settings" in result.stdout
    after = stored(data_dir)
    assert after["channel"] != before["channel"] and after["plugin"] != before["plugin"]

    platform = Platform(load_settings(data_dir=data_dir))
    await platform.start()
    try:
        settings = await platform.channels.connections.settings_of(channel.id)
        assert settings.bot_token.get_secret_value() == TOKEN  # type: ignore[attr-defined]
        house_rules = platform.plugin_settings.view("house_rules")
        assert house_rules["values"]["display_token"] == {"set": True}  # opened, not dropped
    finally:
        await platform.stop()

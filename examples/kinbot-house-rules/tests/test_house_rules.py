"""The example plugin's own tests, run against a real KinBot platform (its plugin manager, hook
caller and settings store on a SQLite file in a temporary directory) with only this plugin."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import kinbot_house_rules
import pytest
from kinbot_house_rules import HouseRulesSettings

from kinbot_core import ChatContext, KinRef
from kinbot_core.config import load_settings
from kinbot_core.platform import Platform
from kinbot_core.plugins import PluginManager
from kinbot_core.schema_settings import SettingsInvalid

KIN = KinRef(id="k1", name="Chef", model="gpt-4o")
TOKEN = "fridge-screen-4471-token"


@pytest.fixture
async def platform(tmp_path: Path) -> AsyncIterator[Platform]:
    manager = PluginManager()
    manager.register(kinbot_house_rules, "house_rules")
    platform = Platform(
        load_settings(data_dir=tmp_path / "data"), plugins=manager, load_entry_points=False
    )
    await platform.start()
    yield platform
    await platform.stop()


async def prompt(platform: Platform) -> list[str]:
    context = ChatContext(model="gpt-4o", system_prompt=["You are Chef."])
    await platform.hooks.call("before_chat", kin=KIN, context=context)
    return context.system_prompt


async def test_rules_are_added_to_the_system_prompt(platform: Platform) -> None:
    sections = await prompt(platform)
    assert sections[0] == "You are Chef."
    assert sections[1].startswith("House rules:\n- Call everyone")


async def test_rules_come_from_the_environment(
    platform: Platform, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KINBOT_HOUSE_RULES", "No spoilers; Bedtime is at nine ;")
    assert (await prompt(platform))[1:] == ["House rules:\n- No spoilers\n- Bedtime is at nine"]


async def test_the_settings_start_from_their_defaults(platform: Platform) -> None:
    settings = platform.plugin_settings.get("house_rules", HouseRulesSettings)
    assert settings == HouseRulesSettings.model_validate({})
    assert settings.quiet_hours == "" and settings.display_token is None


async def test_saved_quiet_hours_become_a_rule_at_once(platform: Platform) -> None:
    await platform.plugin_settings.update("house_rules", {"quiet_hours": "21:30-07:00"})
    rules = (await prompt(platform))[1]
    assert rules.endswith("- Quiet hours are 21:30-07:00: keep answers short then.")


async def test_quiet_hours_that_are_not_hours_are_refused(platform: Platform) -> None:
    with pytest.raises(SettingsInvalid) as error:
        await platform.plugin_settings.update("house_rules", {"quiet_hours": "after dinner"})
    assert [(f["field"], f["type"]) for f in error.value.fields] == [
        ("quiet_hours", "string_pattern_mismatch")
    ]
    assert "Quiet hours" not in (await prompt(platform))[1]


async def test_the_display_token_is_kept_secret(platform: Platform) -> None:
    view = await platform.plugin_settings.update("house_rules", {"display_token": TOKEN})
    assert view["values"]["display_token"] == {"set": True}
    assert TOKEN not in str(view)
    settings = platform.plugin_settings.get("house_rules", HouseRulesSettings)
    assert settings.display_token is not None
    assert settings.display_token.get_secret_value() == TOKEN
    assert TOKEN not in repr(settings) and TOKEN not in (await prompt(platform))[1]
    # Saving the quiet hours alone keeps the token.
    await platform.plugin_settings.update("house_rules", {"quiet_hours": "22:00-06:30"})
    kept = platform.plugin_settings.get("house_rules", HouseRulesSettings).display_token
    assert kept is not None and kept.get_secret_value() == TOKEN


async def test_the_rules_route_is_registered(platform: Platform) -> None:
    (entry,) = [e for e in platform.registries.routes.entries() if e.item.path == "/rules"]
    assert (entry.plugin, entry.item.methods, entry.item.access) == (
        "house_rules",
        ("GET",),
        "user",
    )
    assert await entry.item.handler(platform=platform) == {
        "rules": list(kinbot_house_rules.DEFAULT_RULES)
    }


async def test_disabled_plugin_no_longer_changes_the_prompt(platform: Platform) -> None:
    await platform.set_plugin_enabled("house_rules", False)
    assert await prompt(platform) == ["You are Chef."]


async def test_settings_name_what_the_plugin_does_in_english_and_french(
    platform: Platform,
) -> None:
    (info,) = [p for p in platform.list_plugins() if p.name == "house_rules"]
    assert info.description is not None and set(info.description) == {"en", "fr"}

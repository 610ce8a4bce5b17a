"""The plugin settings example of docs/plugins.md runs as written: its model registers, the form
marks its secret and carries its French title, and its hook reads a saved value."""

from __future__ import annotations

import re
import types
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from kinbot_core import ChatContext, KinRef
from kinbot_core.config import Settings
from kinbot_core.platform import Platform
from kinbot_core.plugins import PluginManager
from kinbot_core.schema_settings import SettingsInvalid

ROOT = Path(__file__).resolve().parents[1]


def documented_plugin() -> types.ModuleType:
    """The first Python block of the "Plugin settings" section, as a plugin module."""
    text = (ROOT / "docs" / "plugins.md").read_text()
    section = text.split("## Plugin settings\n", 1)[1].split("\n## ", 1)[0]
    match = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert match is not None, "the Plugin settings section shows no Python example"
    module = types.ModuleType("documented_house_rules")
    code = compile(match.group(1), "docs/plugins.md", "exec", dont_inherit=True)
    exec(code, module.__dict__)
    return module


@pytest.fixture
async def platform(settings: Settings) -> AsyncIterator[Platform]:
    manager = PluginManager()
    manager.register(documented_plugin(), "house_rules")
    platform = Platform(settings, plugins=manager, load_entry_points=False)
    await platform.start()
    yield platform
    await platform.stop()


async def test_the_documented_settings_are_a_form_and_reach_the_hook(platform: Platform) -> None:
    view = platform.plugin_settings.view("house_rules")
    assert view["schema"]["properties"]["display_token"]["secret"] is True
    assert view["schema"]["i18n"]["fr"]["title"] == "Règles de la maison"
    assert view["values"] == {"quiet_hours": "", "display_token": {"set": False}}
    with pytest.raises(SettingsInvalid):
        await platform.plugin_settings.update("house_rules", {"quiet_hours": "later"})
    await platform.plugin_settings.update("house_rules", {"quiet_hours": "21:30-07:00"})
    context = ChatContext(model="gpt-4o")
    await platform.hooks.call(
        "before_chat", kin=KinRef(id="k1", name="Chef", model="gpt-4o"), context=context
    )
    assert context.system_prompt == ["Quiet hours are 21:30-07:00."]

"""The example third-party plugin, installed by its entry point, toggled on a running server."""

from __future__ import annotations

import importlib.metadata

from kinbot_core import ChatContext, KinRef
from kinbot_core.config import Settings
from kinbot_core.events.catalogue import PluginDisabled, PluginEnabled
from kinbot_core.platform import Platform
from tests.support.accounts import set_up_admin
from tests.support.server import running_server

KIN = KinRef(id="kin-1", name="Chef", model="gpt-4o")


async def prompt_sections(platform: Platform) -> list[str]:
    context = ChatContext(model=KIN.model, system_prompt=["You are Chef."])
    await platform.hooks.call("before_chat", kin=KIN, context=context)
    return context.system_prompt


async def test_the_example_plugin_is_found_through_its_entry_point(platform: Platform) -> None:
    (entry_point,) = importlib.metadata.entry_points(group="kinbot", name="house_rules")
    assert entry_point.dist is not None and entry_point.dist.name == "kinbot-house-rules"
    info = platform.plugins.info("house_rules")
    assert info.enabled and not info.builtin
    assert info.hooks == ("before_chat", "register_routes", "register_settings")


async def test_disable_and_enable_at_runtime_without_restarting(settings: Settings) -> None:
    platform = Platform(settings)
    toggles: list[str] = []
    async with running_server(platform) as server:
        await set_up_admin(server.client)
        platform.bus.on("plugin.*", lambda event: toggles.append(event.type))
        listed = (await server.client.get("/api/plugins")).json()["plugins"]
        house_rules = next(p for p in listed if p["name"] == "house_rules")
        assert house_rules["enabled"] and house_rules["version"] == "0.1.0"
        assert house_rules["hooks"] == ["before_chat", "register_routes", "register_settings"]
        rules = await server.client.get("/api/ext/house_rules/rules")
        assert rules.status_code == 200
        assert rules.json()["rules"][0].startswith("Call everyone")
        assert any(s.startswith("House rules:") for s in await prompt_sections(platform))

        off = await server.client.patch("/api/plugins/house_rules", json={"enabled": False})
        assert off.status_code == 200
        gone = await server.client.get("/api/ext/house_rules/rules")
        assert gone.status_code == 404
        assert gone.json()["error"]["code"] == "not_found"
        assert await prompt_sections(platform) == ["You are Chef."]
        health = (await server.client.get("/api/health")).json()
        assert {"name": "house_rules", "enabled": False} in health["plugins"]

        on = await server.client.patch("/api/plugins/house_rules", json={"enabled": True})
        assert on.status_code == 200
        back = await server.client.get("/api/ext/house_rules/rules")
        assert back.status_code == 200
        assert any(s.startswith("House rules:") for s in await prompt_sections(platform))
        await platform.bus.flush()
    assert toggles == [PluginDisabled.type, PluginEnabled.type]


async def test_the_choice_survives_a_restart_and_blocks_loading(settings: Settings) -> None:
    first = Platform(settings)
    await first.start()
    await first.set_plugin_enabled("house_rules", False)
    await first.stop()

    second = Platform(settings)
    await second.start()
    try:
        info = second.plugins.info("house_rules")
        assert not info.enabled
        assert info.hooks == ()  # blocked before its entry point was loaded
        assert await prompt_sections(second) == ["You are Chef."]
        await second.set_plugin_enabled("house_rules", True)
        assert any(s.startswith("House rules:") for s in await prompt_sections(second))
    finally:
        await second.stop()

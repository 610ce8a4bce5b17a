"""The example plugin's own tests, run against KinBot's real plugin manager and hook caller."""

from __future__ import annotations

import kinbot_house_rules
import pytest

from kinbot_core import ChatContext, KinRef
from kinbot_core.plugins import HookCaller, PluginManager, Registries

KIN = KinRef(id="k1", name="Chef", model="gpt-4o")


def caller_for(manager: PluginManager) -> HookCaller:
    def report(plugin: str, hook: str, exc: BaseException) -> None:
        raise AssertionError(f"{plugin} failed in {hook}: {exc}")

    return HookCaller(manager.pluggy, timeout=5, report=report)


@pytest.fixture
def manager() -> PluginManager:
    manager = PluginManager()
    manager.register(kinbot_house_rules, "house_rules")
    return manager


async def test_rules_are_added_to_the_system_prompt(manager: PluginManager) -> None:
    context = ChatContext(model="gpt-4o", system_prompt=["You are Chef."])
    await caller_for(manager).call("before_chat", kin=KIN, context=context)
    assert context.system_prompt[0] == "You are Chef."
    assert context.system_prompt[1].startswith("House rules:\n- Call everyone")


async def test_rules_come_from_the_environment(
    manager: PluginManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KINBOT_HOUSE_RULES", "No spoilers; Bedtime is at nine ;")
    context = ChatContext(model="gpt-4o")
    await caller_for(manager).call("before_chat", kin=KIN, context=context)
    assert context.system_prompt == ["House rules:\n- No spoilers\n- Bedtime is at nine"]


async def test_the_rules_route_is_registered(manager: PluginManager) -> None:
    registries = Registries()
    await registries.rebuild(caller_for(manager))
    (entry,) = registries.routes.entries()
    assert (entry.plugin, entry.item.path, entry.item.methods) == (
        "house_rules",
        "/rules",
        ("GET",),
    )
    assert await entry.item.handler() == {"rules": list(kinbot_house_rules.DEFAULT_RULES)}


async def test_disabled_plugin_no_longer_changes_the_prompt(manager: PluginManager) -> None:
    manager.disable("house_rules")
    context = ChatContext(model="gpt-4o")
    await caller_for(manager).call("before_chat", kin=KIN, context=context)
    assert context.system_prompt == []

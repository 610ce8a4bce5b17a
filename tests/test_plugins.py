"""Plugin discovery, validation, required plugins and runtime enable/disable."""

from __future__ import annotations

import importlib.metadata
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kinbot_core import hookimpl
from kinbot_core.config import Settings, load_settings
from kinbot_core.platform import Platform
from kinbot_core.plugins import PluginManager, PluginRequired, UnknownPlugin
from tests.support.distributions import write_distribution

BUILTIN_PLUGINS = {
    "event_log", "metrics",
    "anthropic", "openai", "openai_compatible", "gemini", "voyage", "local_embeddings",
    "brave_search", "searxng", "contacts", "kin_directory", "sqlite_memory", "memory_tools",
    "memory_extraction", "kin_messaging", "sub_kin_tasks", "web_tools", "mcp", "image_tools",
    "workspace_tools", "custom_tools", "cron_tools", "vault_tools", "telegram", "email",
}  # fmt: skip


def test_every_builtin_plugin_comes_from_its_own_entry_point() -> None:
    entry_points = [
        ep
        for ep in importlib.metadata.entry_points(group="kinbot")
        if ep.dist is not None and ep.dist.name == "kinbot-platform"
    ]
    assert {ep.name for ep in entry_points} == BUILTIN_PLUGINS
    assert len({ep.value for ep in entry_points}) == len(entry_points)
    assert all(ep.value.startswith("kinbot_plugins.") for ep in entry_points)
    assert {ep.name for ep in importlib.metadata.entry_points(group="kinbot")} >= BUILTIN_PLUGINS


async def test_a_fresh_platform_loads_the_builtin_plugins(platform: Platform) -> None:
    plugins = {info.name: info for info in platform.list_plugins()}
    assert set(plugins) >= BUILTIN_PLUGINS
    for name in BUILTIN_PLUGINS:
        assert plugins[name].enabled
        assert plugins[name].builtin
        assert plugins[name].version == importlib.metadata.version("kinbot-platform")
        assert plugins[name].hooks
    assert platform.registries.routes.plugins() >= {"metrics"}


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    return site


async def test_a_plugin_with_an_unknown_hook_or_a_broken_import_is_dropped(
    site: Path, settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    write_distribution(
        site,
        "kinbot-broken-plugins",
        modules={
            "typo_plugin": """
                from kinbot_core import hookimpl

                @hookimpl
                def before_chatt(context):
                    pass
            """,
            "crashing_plugin": "raise ImportError('missing dependency: kittens')\n",
        },
        entry_points={"typo": "typo_plugin", "crashing": "crashing_plugin"},
    )
    caplog.set_level(logging.WARNING)
    platform = Platform(settings)
    await platform.start()
    try:
        plugins = {info.name: info for info in platform.list_plugins()}
        assert not plugins["typo"].enabled
        assert "before_chatt" in (plugins["typo"].error or "")
        assert plugins["typo"].error_code == "plugin_unknown_hook"
        assert not plugins["crashing"].enabled
        assert "kittens" in (plugins["crashing"].error or "")
        assert plugins["crashing"].to_dict()["error_code"] == "plugin_load_failed"
        assert all(plugins[name].enabled for name in BUILTIN_PLUGINS)
        assert "plugin typo dropped" in caplog.text
        assert "plugin crashing dropped" in caplog.text
    finally:
        await platform.stop()


async def test_a_plugin_disabled_at_start_up_is_never_imported(site: Path, data_dir: Path) -> None:
    write_distribution(
        site,
        "kinbot-loud",
        modules={"loud_plugin": "raise SystemExit('I must not be imported')\n"},
        entry_points={"loud": "loud_plugin"},
    )
    platform = Platform(load_settings(data_dir=data_dir, disabled_plugins=["loud"]))
    await platform.start()
    try:
        info = platform.plugins.info("loud")
        assert (info.enabled, info.error, info.hooks) == (False, None, ())
        assert info.distribution == "kinbot-loud"
    finally:
        await platform.stop()


class Memory:
    name = "sqlite-memory"


class OnlyMemoryBackend:
    @hookimpl
    def register_memory_backends(self, register: Callable[[Any], None]) -> None:
        register(Memory())


class DeclaredRequired:
    KINBOT_REQUIRED = "it signs every outgoing message"


async def test_a_required_plugin_refuses_to_be_disabled_with_a_reason(settings: Settings) -> None:
    manager = PluginManager()
    manager.register(OnlyMemoryBackend(), "memory")
    manager.register(DeclaredRequired(), "signer")
    platform = Platform(settings, plugins=manager, load_entry_points=False)
    await platform.start()
    try:
        assert platform.registries.memory_backends.get("sqlite-memory") is not None
        with pytest.raises(PluginRequired, match="only memory backend"):
            await platform.set_plugin_enabled("memory", False)
        with pytest.raises(PluginRequired, match="signs every outgoing message"):
            await platform.set_plugin_enabled("signer", False)
        listed = {info.name: info for info in platform.list_plugins()}
        assert listed["memory"].required == "it provides the only memory backend"
        assert listed["signer"].required == "it signs every outgoing message"
        assert listed["memory"].required_code == "only_memory_backends"  # worded by the UI
        assert listed["signer"].required_code is None  # shown in the plugin's own words
        assert platform.plugins.is_enabled("memory")
        with pytest.raises(UnknownPlugin):
            await platform.set_plugin_enabled("nonexistent", False)
    finally:
        await platform.stop()


async def test_a_second_registration_of_a_taken_name_is_refused(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    manager = PluginManager()
    manager.register(OnlyMemoryBackend(), "first")
    manager.register(OnlyMemoryBackend(), "second")
    platform = Platform(settings, plugins=manager, load_entry_points=False)
    await platform.start()
    try:
        [entry] = platform.registries.memory_backends.entries()
        # pluggy calls the last registered plugin first
        assert entry.plugin == "second"
        assert "already registered by second" in caplog.text
        # with two backends, neither is indispensable
        await platform.set_plugin_enabled("second", False)
        assert platform.registries.memory_backends.entries()[0].plugin == "first"
    finally:
        await platform.stop()


class Wrapper:
    @hookimpl(wrapper=True)
    def before_chat(self) -> Any:
        return (yield)


def test_hook_wrappers_are_refused_with_a_reason() -> None:
    manager = PluginManager()
    manager.register(Wrapper(), "wrapper")
    info = manager.info("wrapper")
    assert not info.enabled
    assert "hook wrappers are not supported (before_chat)" in (info.error or "")
    assert manager.pluggy.get_plugin("wrapper") is None


class Counter:
    def __init__(self) -> None:
        self.seen = 0

    @hookimpl
    def register_events(self, subscribe: Callable[..., Any]) -> None:
        subscribe("user.*", self.count)

    def count(self, event: object) -> None:
        self.seen += 1


async def test_toggling_twice_keeps_exactly_one_subscription(settings: Settings) -> None:
    from kinbot_core.events.catalogue import UserLogin

    counter = Counter()
    manager = PluginManager()
    manager.register(counter, "counter")
    platform = Platform(settings, plugins=manager, load_entry_points=False)
    await platform.start()
    try:
        for enabled in (False, False, True, True):
            await platform.set_plugin_enabled("counter", enabled)
        platform.bus.emit(UserLogin(user_id="u1"))
        await platform.bus.flush()
        assert counter.seen == 1
    finally:
        await platform.stop()


class HalfRegistered:
    @hookimpl
    def register_tools(self, register: Callable[[Any], None]) -> None:
        register(type("Tool", (), {"name": "first_tool"})())
        raise RuntimeError("crashed after the first tool")


async def test_a_registration_hook_that_fails_half_way_contributes_nothing(
    settings: Settings,
) -> None:
    manager = PluginManager()
    manager.register(HalfRegistered(), "half")
    platform = Platform(settings, plugins=manager, load_entry_points=False)
    errors: list[str] = []
    platform.bus.on("plugin.error", lambda event: errors.append(event.payload()["hook"]))
    await platform.start()
    try:
        assert len(platform.registries.tools) == 0
        await platform.bus.flush()
        assert errors == ["register_tools"]
    finally:
        await platform.stop()


async def test_an_embedders_manager_also_honours_disabled_plugins(data_dir: Path) -> None:
    manager = PluginManager()
    manager.register(OnlyMemoryBackend(), "memory")
    manager.register(Counter(), "counter")
    settings = load_settings(data_dir=data_dir, disabled_plugins=["counter"])
    platform = Platform(settings, plugins=manager, load_entry_points=False)
    await platform.start()
    try:
        assert not platform.plugins.is_enabled("counter")
        assert platform.plugins.is_enabled("memory")
    finally:
        await platform.stop()


def test_a_plugin_that_exits_while_importing_is_dropped(site: Path) -> None:
    write_distribution(
        site,
        "kinbot-exit",
        modules={"exiting_plugin": "raise SystemExit(3)\n"},
        entry_points={"exiting": "exiting_plugin"},
    )
    manager = PluginManager()
    manager.load_entry_points()
    info = manager.info("exiting")
    assert not info.enabled
    assert "exited while importing" in (info.error or "")


async def test_what_a_turn_derives_from_the_tools_follows_a_plugin_toggled(
    platform: Platform,
) -> None:
    """The tools a turn offers are derived once per registry; disabling a plugin rebuilds
    the registries, and the tools derived from them are made again."""

    def offered() -> set[str]:
        tools = platform.registries.tools
        derived: frozenset[str] = tools.derived("names", lambda: frozenset(t.name for t in tools))
        return set(derived)

    assert "create_contact" in offered()
    await platform.set_plugin_enabled("contacts", False)
    assert "create_contact" not in offered()

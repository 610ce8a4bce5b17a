"""Plugin settings over real HTTP: the example plugin's form and values, validation as field
codes, secrets sealed (never in an answer, a log or the database file in clear) and in force
at once, across a restart too."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest
from kinbot_house_rules import HouseRulesSettings

from kinbot_core import ChatContext, KinRef
from kinbot_core.config import Settings
from kinbot_core.events import Event
from kinbot_core.platform import Platform
from tests.support.accounts import MARIE, register, set_up_admin
from tests.support.database_bytes import leaked
from tests.support.server import RunningServer, running_server

URL = "/api/plugins/house_rules/settings"
TOKEN = "fridge-screen-7c41d2e9b0a8f356"
OTHER_TOKEN = "hallway-screen-52e8aa17c9d04b61"


@pytest.fixture
async def server(settings: Settings) -> AsyncIterator[RunningServer]:
    async with running_server(Platform(settings)) as server:
        await set_up_admin(server.client)
        yield server


async def house_rules_prompt(platform: Platform) -> str:
    context = ChatContext(model="gpt-4o")
    await platform.hooks.call(
        "before_chat", kin=KinRef(id="k1", name="Chef", model="gpt-4o"), context=context
    )
    return next(section for section in context.system_prompt if section.startswith("House"))


async def display(server: RunningServer, token: str | None) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    async with server.new_client() as screen:  # no account: the display route is public
        return await screen.get("/api/ext/house_rules/display", headers=headers)


async def test_the_plugins_list_says_which_plugins_have_settings(server: RunningServer) -> None:
    plugins = (await server.client.get("/api/plugins")).json()["plugins"]
    with_settings = {plugin["name"] for plugin in plugins if plugin["has_settings"]}
    assert "house_rules" in with_settings and "metrics" not in with_settings


async def test_the_form_and_the_defaults_before_anything_is_saved(server: RunningServer) -> None:
    response = await server.client.get(URL)
    assert response.status_code == 200
    body = response.json()
    assert body["saved"] is False
    assert body["values"] == {"quiet_hours": "", "display_token": {"set": False}}
    properties = body["schema"]["properties"]
    assert properties["display_token"]["secret"] is True
    assert properties["display_token"]["nullable"] is True
    assert properties["quiet_hours"]["i18n"]["fr"]["title"] == "Heures calmes"
    assert body["schema"]["i18n"]["fr"]["title"] == "Règles de la maison"


async def test_saved_settings_are_in_force_at_once_and_the_secret_never_comes_back(
    server: RunningServer, settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    seen: list[Event] = []
    server.platform.bus.on("plugin.settings.changed", seen.append)
    assert (await display(server, TOKEN)).status_code == 401  # closed while no token is set
    caplog.set_level(logging.DEBUG)
    saved = await server.client.put(
        URL, json={"values": {"quiet_hours": "21:30-07:00", "display_token": TOKEN}}
    )
    assert saved.status_code == 200, saved.text
    assert TOKEN not in saved.text
    assert saved.json()["values"] == {
        "quiet_hours": "21:30-07:00",
        "display_token": {"set": True},
    }
    again = await server.client.get(URL)
    assert again.json()["saved"] is True and TOKEN not in again.text
    assert "Quiet hours are 21:30-07:00" in await house_rules_prompt(server.platform)
    shown = await display(server, TOKEN)
    assert shown.status_code == 200
    assert shown.json()["rules"][-1] == "Quiet hours are 21:30-07:00: keep answers short then."
    assert (await display(server, OTHER_TOKEN)).status_code == 401
    assert (await display(server, None)).status_code == 401
    await server.platform.bus.flush()
    assert [(e.payload()["plugin"], e.payload()["fields"]) for e in seen] == [
        ("house_rules", ("display_token", "quiet_hours"))
    ]
    assert TOKEN not in caplog.text and TOKEN not in str([e.to_dict() for e in seen])
    assert leaked(TOKEN, settings.database_path) == []


async def test_a_save_keeps_the_secret_unless_replaced_or_removed(server: RunningServer) -> None:
    await server.client.put(URL, json={"values": {"display_token": TOKEN}})
    for kept in ("", {"set": True}):
        response = await server.client.put(
            URL, json={"values": {"quiet_hours": "22:00-06:00", "display_token": kept}}
        )
        assert response.json()["values"]["display_token"] == {"set": True}
        assert (await display(server, TOKEN)).status_code == 200
    await server.client.put(URL, json={"values": {"display_token": OTHER_TOKEN}})
    assert (await display(server, TOKEN)).status_code == 401
    assert (await display(server, OTHER_TOKEN)).status_code == 200
    removed = await server.client.put(URL, json={"values": {"display_token": None}})
    assert removed.json()["values"] == {
        "quiet_hours": "22:00-06:00",
        "display_token": {"set": False},
    }
    assert (await display(server, OTHER_TOKEN)).status_code == 401


async def test_invalid_values_are_refused_field_by_field_and_nothing_is_saved(
    server: RunningServer,
) -> None:
    response = await server.client.put(
        URL,
        json={"values": {"quiet_hours": "after dinner", "display_token": "short-9f1", "colour": 3}},
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "settings_invalid"
    fields = {field["field"]: field for field in error["details"]["fields"]}
    assert {name: field["type"] for name, field in fields.items()} == {
        "quiet_hours": "string_pattern_mismatch",
        "display_token": "string_too_short",
        "colour": "extra_forbidden",
    }
    assert fields["display_token"]["min_length"] == 16
    assert "short-9f1" not in response.text
    assert (await server.client.get(URL)).json()["saved"] is False


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"values": None},
        {"values": ["quiet_hours"]},
        {"values": {"quiet_hours": {"nested": [1, 2]}}},
        {"values": {"display_token": 12345678901234567890}},
        {"values": {"display_token": {"set": "yes"}}},
    ],
)
async def test_malformed_bodies_get_a_4xx(server: RunningServer, body: dict[str, Any]) -> None:
    response = await server.client.put(URL, json=body)
    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] in {"invalid_request", "settings_invalid"}


async def test_plugins_without_settings_unknown_or_disabled(server: RunningServer) -> None:
    metrics = await server.client.get("/api/plugins/metrics/settings")
    assert (metrics.status_code, metrics.json()["error"]["code"]) == (404, "no_plugin_settings")
    unknown = await server.client.put("/api/plugins/nope/settings", json={"values": {}})
    assert (unknown.status_code, unknown.json()["error"]["code"]) == (404, "unknown_plugin")
    await server.client.patch("/api/plugins/house_rules", json={"enabled": False})
    disabled = await server.client.get(URL)
    assert (disabled.status_code, disabled.json()["error"]["code"]) == (409, "plugin_disabled")
    listed = (await server.client.get("/api/plugins")).json()["plugins"]
    assert not next(p for p in listed if p["name"] == "house_rules")["has_settings"]


async def test_members_may_not_read_or_change_plugin_settings(server: RunningServer) -> None:
    async with server.new_client() as member:
        await register(server.client, member, MARIE)
        assert (await member.get(URL)).status_code == 403
        put = await member.put(URL, json={"values": {"quiet_hours": "20:00-08:00"}})
        assert put.status_code == 403
    assert (await server.client.get(URL)).json()["saved"] is False


async def test_saved_settings_survive_a_restart_and_a_disable(settings: Settings) -> None:
    first = Platform(settings)
    await first.start()
    try:
        await first.plugin_settings.update(
            "house_rules", {"quiet_hours": "23:00-07:00", "display_token": TOKEN}
        )
    finally:
        await first.stop()
    second = Platform(settings)
    await second.start()
    try:
        await second.set_plugin_enabled("house_rules", False)
        await second.set_plugin_enabled("house_rules", True)
        again = second.plugin_settings.get("house_rules", HouseRulesSettings)
        assert again.quiet_hours == "23:00-07:00"
        assert again.display_token is not None
        assert again.display_token.get_secret_value() == TOKEN
    finally:
        await second.stop()

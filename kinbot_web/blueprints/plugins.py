"""Plugin administration: list, enable and disable plugins at runtime, and edit the settings a
plugin declares (administrators)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from quart import Blueprint, Response
from quart_schema import validate_request

from kinbot_core.platform import Platform
from kinbot_core.plugins.settings import NoPluginSettings
from kinbot_web.app_context import current_platform
from kinbot_web.auth import admin_only
from kinbot_web.errors import ApiError, error_response

blueprint = Blueprint("plugins", __name__)


class PluginUpdate(BaseModel):
    enabled: bool


class PluginSettingsUpdate(BaseModel):
    #: The settings by name; a secret left out, empty or as shown (``{"set": true}``) is kept,
    #: ``null`` removes it.
    values: dict[str, Any]


@blueprint.errorhandler(NoPluginSettings)
async def no_settings(exc: NoPluginSettings) -> Response:
    return error_response(404, exc.code, str(exc))


@blueprint.get("/api/plugins")
@admin_only
async def list_plugins() -> dict[str, object]:
    """Every installed plugin: version, hooks, enabled, required (with the reason), error, and
    whether it has settings to edit."""
    platform = current_platform()
    with_settings = platform.plugin_settings.declared()
    return {
        "plugins": [
            {**info.to_dict(), "has_settings": info.name in with_settings}
            for info in platform.list_plugins()
        ]
    }


@blueprint.patch("/api/plugins/<name>")
@admin_only
@validate_request(PluginUpdate)
async def update_plugin(name: str, data: PluginUpdate) -> dict[str, object]:
    """Enable or disable a plugin now; the choice is kept across restarts.

    409 ``plugin_required`` (with the reason) for a plugin the platform cannot run without.
    """
    platform = current_platform()
    info = await platform.set_plugin_enabled(name, data.enabled)
    return {
        "plugin": {**info.to_dict(), "has_settings": name in platform.plugin_settings.declared()}
    }


def _enabled(platform: Platform, name: str) -> None:
    if not platform.plugins.is_enabled(name):  # UnknownPlugin: 404
        raise ApiError(409, "plugin_disabled", f"The plugin {name!r} is disabled.")


@blueprint.get("/api/plugins/<name>/settings")
@admin_only
async def plugin_settings(name: str) -> dict[str, object]:
    """A plugin's settings form (JSON Schema) and values, secrets as ``{"set": bool}``."""
    platform = current_platform()
    _enabled(platform, name)
    return platform.plugin_settings.view(name)


@blueprint.put("/api/plugins/<name>/settings")
@admin_only
@validate_request(PluginSettingsUpdate)
async def update_plugin_settings(name: str, data: PluginSettingsUpdate) -> dict[str, object]:
    """Save a plugin's settings, validated; the plugin reads them from now on.

    400 ``settings_invalid`` with the invalid ``fields``; a secret's value is never returned.
    """
    platform = current_platform()
    _enabled(platform, name)
    return await platform.plugin_settings.update(name, data.values)

"""Plugin administration: list, enable and disable plugins at runtime (administrators)."""

from __future__ import annotations

from pydantic import BaseModel
from quart import Blueprint
from quart_schema import validate_request

from kinbot_web.app_context import current_platform
from kinbot_web.auth import admin_only

blueprint = Blueprint("plugins", __name__)


class PluginUpdate(BaseModel):
    enabled: bool


@blueprint.get("/api/plugins")
@admin_only
async def list_plugins() -> dict[str, object]:
    """Every installed plugin: version, hooks, enabled, required (with the reason), error."""
    return {"plugins": [info.to_dict() for info in current_platform().list_plugins()]}


@blueprint.patch("/api/plugins/<name>")
@admin_only
@validate_request(PluginUpdate)
async def update_plugin(name: str, data: PluginUpdate) -> dict[str, object]:
    """Enable or disable a plugin now; the choice is kept across restarts.

    409 ``plugin_required`` (with the reason) for a plugin the platform cannot run without.
    """
    info = await current_platform().set_plugin_enabled(name, data.enabled)
    return {"plugin": info.to_dict()}

"""``/api/kins/<id>/custom-tools``: the scripts a Kin registered as its own tools, and how
they are confined on this machine.

The tools are run by the ``custom_tools`` plugin; while it is disabled these routes answer 503.
"""

from __future__ import annotations

from quart import Blueprint, Response

from kinbot_plugins.custom_tools import CustomToolsRuntime, runtime_of
from kinbot_web.app_context import current_platform
from kinbot_web.auth import signed_in
from kinbot_web.errors import ApiError

blueprint = Blueprint("custom_tools", __name__)


def _runtime() -> CustomToolsRuntime:
    platform = current_platform()
    if not platform.plugins.is_enabled("custom_tools"):
        raise ApiError(503, "plugin_disabled", "The custom_tools plugin is disabled.")
    return runtime_of(platform)


@blueprint.get("/api/kins/<kin_id>/custom-tools")
@signed_in
async def list_custom_tools(kin_id: str) -> dict[str, object]:
    """The Kin's custom tools; ``sandbox``: how they are confined here (``bubblewrap``,
    ``landlock``, ``none`` or ``refused``); ``network``: what network they have (``off``,
    ``unavailable`` or ``proxy``)."""
    runtime = _runtime()
    await current_platform().kins.get(kin_id)
    tools = await runtime.store.list(kin_id)
    state = await runtime.sandbox_state()
    network = await runtime.network_of(kin_id)
    return {
        "sandbox": state.mode,
        "network": network.state,
        "tools": [tool.to_dict() for tool in tools],
    }


@blueprint.delete("/api/kins/<kin_id>/custom-tools/<name>")
@signed_in
async def delete_custom_tool(kin_id: str, name: str) -> Response:
    """Remove one of the Kin's custom tools (its script stays in the workspace)."""
    runtime = _runtime()
    await current_platform().kins.get(kin_id)
    if not await runtime.store.delete(kin_id, name):
        raise ApiError(404, "not_found", "This Kin has no custom tool of that name.")
    return Response(status=204)

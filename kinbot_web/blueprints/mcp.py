"""``/api/mcp-servers``: the MCP servers administrators configure, their health and tools; and
``/api/kins/<id>/mcp-servers``: which of them a Kin may use.

The servers are run by the ``mcp`` plugin; while it is disabled these routes answer 503.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field
from quart import Blueprint, Response
from quart_schema import validate_request

from kinbot_plugins.mcp import (
    McpConfigError,
    McpManager,
    McpServerNameTaken,
    McpServerNotFound,
    ServerConfig,
    manager_of,
    validated,
)
from kinbot_web.app_context import current_platform
from kinbot_web.auth import admin_only, current_user, signed_in
from kinbot_web.blueprints.schemas import Identifier
from kinbot_web.errors import ApiError

blueprint = Blueprint("mcp", __name__)

#: An argument, environment value or header value of a server.
Value = Annotated[str, Field(max_length=4000)]
#: An environment variable or header name.
Key = Annotated[str, Field(min_length=1, max_length=200)]


class McpServerIn(BaseModel):
    name: str = Field(min_length=1, max_length=32)
    transport: Literal["stdio", "http"]
    command: str | None = Field(None, max_length=1000)
    args: list[Value] = Field(default_factory=list, max_length=100)
    env: dict[Key, Value] = Field(default_factory=dict, max_length=100)
    url: str | None = Field(None, max_length=2000)
    headers: dict[Key, Value] = Field(default_factory=dict, max_length=50)
    enabled: bool = True


class McpServerUpdate(BaseModel):
    name: str | None = Field(None, min_length=1, max_length=32)
    transport: Literal["stdio", "http"] | None = None
    command: str | None = Field(None, max_length=1000)
    args: list[Value] | None = Field(None, max_length=100)
    env: dict[Key, Value] | None = Field(None, max_length=100)
    url: str | None = Field(None, max_length=2000)
    headers: dict[Key, Value] | None = Field(None, max_length=50)
    enabled: bool | None = None


class KinServersIn(BaseModel):
    server_ids: list[Identifier] = Field(max_length=100)


def _manager() -> McpManager:
    platform = current_platform()
    if not platform.plugins.is_enabled("mcp"):
        raise ApiError(503, "plugin_disabled", "The mcp plugin is disabled.")
    return manager_of(platform)


def _view(manager: McpManager, config: ServerConfig, *, admin: bool) -> dict[str, Any]:
    view: dict[str, Any] = {
        "id": config.id,
        "name": config.name,
        "transport": config.transport,
        "enabled": config.enabled,
        "created_at": config.created_at,
        "status": manager.status(config),
    }
    if view["status"].get("error"):
        view["status"] = {**view["status"], "error": config.scrub(view["status"]["error"])}
    if admin:  # commands, URLs and (masked) secrets are for administrators
        view["config"] = config.public()
    return view


async def _server(manager: McpManager, server_id: str) -> ServerConfig:
    try:
        return await manager.store.get(server_id)
    except McpServerNotFound:
        raise ApiError(404, "not_found", "No such MCP server.") from None


@blueprint.get("/api/mcp-servers")
@signed_in
async def list_servers() -> dict[str, object]:
    """Every MCP server with its health and tools (its configuration for administrators)."""
    manager = _manager()
    await manager.start()
    admin = current_user().is_admin
    return {"servers": [_view(manager, c, admin=admin) for c in await manager.store.all()]}


def _refused(error: McpConfigError) -> ApiError:
    """A configuration refused: 400 with its code, or 409 with the name when it is taken."""
    if isinstance(error, McpServerNameTaken):
        return ApiError(409, error.code, str(error), name=error.name)
    return ApiError(400, error.code, str(error))


@blueprint.post("/api/mcp-servers")
@admin_only
@validate_request(McpServerIn)
async def create_server(data: McpServerIn) -> tuple[dict[str, object], int]:
    """Add a stdio or Streamable HTTP server (administrators); it connects in the background."""
    manager = _manager()
    try:
        config = await manager.store.save(validated(data.model_dump()), new=True)
    except McpConfigError as error:
        raise _refused(error) from None
    await manager.sync(config.id)
    return {"server": _view(manager, config, admin=True)}, 201


@blueprint.get("/api/mcp-servers/<server_id>")
@signed_in
async def get_server(server_id: str) -> dict[str, object]:
    """One MCP server with its health and tools."""
    manager = _manager()
    await manager.start()
    config = await _server(manager, server_id)
    return {"server": _view(manager, config, admin=current_user().is_admin)}


@blueprint.patch("/api/mcp-servers/<server_id>")
@admin_only
@validate_request(McpServerUpdate)
async def update_server(server_id: str, data: McpServerUpdate) -> dict[str, object]:
    """Change a server (administrators): a masked value ``********`` keeps the stored one.
    The server reconnects with the new configuration."""
    manager = _manager()
    previous = await _server(manager, server_id)
    try:
        changed = validated(data.model_dump(exclude_unset=True), previous)
        config = await manager.store.save(changed, new=False)
    except McpConfigError as error:
        raise _refused(error) from None
    await manager.sync(config.id)
    return {"server": _view(manager, config, admin=True)}


@blueprint.delete("/api/mcp-servers/<server_id>")
@admin_only
async def delete_server(server_id: str) -> Response:
    """Remove a server (administrators); Kins lose its tools."""
    manager = _manager()
    try:
        await manager.store.delete(server_id)
    except McpServerNotFound:
        raise ApiError(404, "not_found", "No such MCP server.") from None
    await manager.sync(server_id)
    return Response(status=204)


@blueprint.post("/api/mcp-servers/<server_id>/reconnect")
@admin_only
async def reconnect_server(server_id: str) -> dict[str, object]:
    """Reconnect a server now, without waiting for its back-off (administrators)."""
    manager = _manager()
    config = await _server(manager, server_id)
    if not manager.reconnect(server_id):
        await manager.sync(server_id)
    return {"server": _view(manager, config, admin=True)}


@blueprint.get("/api/kins/<kin_id>/mcp-servers")
@signed_in
async def kin_servers(kin_id: str) -> dict[str, object]:
    """The ids of the MCP servers a Kin may use."""
    manager = _manager()
    await current_platform().kins.get(kin_id)
    return {"server_ids": await manager.store.servers_of(kin_id)}


@blueprint.put("/api/kins/<kin_id>/mcp-servers")
@signed_in
@validate_request(KinServersIn)
async def assign_servers(kin_id: str, data: KinServersIn) -> dict[str, object]:
    """Set the MCP servers a Kin may use (their tools are offered from its next turn)."""
    manager = _manager()
    await current_platform().kins.get(kin_id)
    try:
        server_ids = await manager.store.assign(kin_id, data.server_ids)
    except McpServerNotFound as error:
        raise ApiError(400, "invalid_request", str(error)) from None
    return {"server_ids": server_ids}

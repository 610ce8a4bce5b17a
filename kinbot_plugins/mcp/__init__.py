"""MCP servers: administrators configure them (``/api/mcp-servers``), each Kin is assigned
some (``/api/kins/<id>/mcp-servers``), and their tools are offered to that Kin's model as
``<server>__<tool>``. Connections start with the platform and are kept up in the background.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kinbot_core import KinRef, hookimpl
from kinbot_core.db.models import TaskRecord
from kinbot_plugins.mcp.manager import McpManager, McpTool, manager_of, tool_name
from kinbot_plugins.mcp.store import (
    McpConfigError,
    McpServerNameTaken,
    McpServerNotFound,
    ServerConfig,
    validated,
)

__all__ = [
    "McpConfigError",
    "McpManager",
    "McpServerNameTaken",
    "McpServerNotFound",
    "McpTool",
    "ServerConfig",
    "manager_of",
    "tool_name",
    "validated",
]


@hookimpl
def register_events(subscribe: Callable[..., Any], platform: Any) -> None:
    """Connect the configured servers once the platform has started (in the background)."""
    platform.spawn(manager_of(platform).start(), name="mcp:start")


@hookimpl
async def tools_for_kin(kin: KinRef, platform: Any) -> list[Any] | None:
    """The tools of the connected MCP servers assigned to this Kin (for a sub-Kin: to the Kin
    whose identity it takes)."""
    kin_id = kin.id
    if kin.task_id is not None:
        task_id = kin.task_id
        task = await platform.db.read(lambda: TaskRecord.get_or_none(TaskRecord.id == task_id))
        if task is not None:
            kin_id = task.kin_id
    tools: list[Any] = await manager_of(platform).tools_for(kin_id)
    return tools or None

"""Custom tools: scripts a Kin writes in its workspace and registers as its own tools.

The Kin manages them with ``register_tool``, ``list_custom_tools``, ``update_custom_tool``,
``delete_custom_tool`` and runs them with ``run_custom_tool``; each registered script is
also offered to that Kin alone as a tool of its own name (``tools_for_kin``). Scripts run
confined (``sandbox``): under bubblewrap where it works, else under Landlock; where neither
works custom tools are refused, unless an administrator set ``custom_tool_sandbox = "none"``.
Before each model call that offers them, a section of the system prompt says what the
scripts may reach (``before_chat``, ``description``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from hookspecs.types import ChatContext, KinRef
from kinbot_core import hookimpl
from kinbot_core.tools import Tool
from kinbot_plugins.custom_tools.runtime import CustomToolsRuntime, runtime_of
from kinbot_plugins.custom_tools.tools import TOOLS, ScriptTool

__all__ = ["CustomToolsRuntime", "runtime_of"]

logger = logging.getLogger(__name__)


@hookimpl
def register_tools(register: Callable[[Tool], None]) -> None:
    for tool in TOOLS:
        register(tool)


@hookimpl
def register_events(platform: Any) -> None:
    """Find out at start-up, in the background, how scripts can be confined here (logged:
    an error when they cannot, a warning when they run unconfined)."""
    platform.spawn(runtime_of(platform).sandbox_state(), name="custom_tools:probe")


@hookimpl
async def before_chat(kin: KinRef, context: ChatContext, platform: Any) -> None:
    """Say where the Kin's scripts run, when its custom tools are offered."""
    offered = {tool.get("name") for tool in context.tools}
    if offered & {"register_tool", "run_custom_tool"}:
        note = await runtime_of(platform).note(kin.id)
        context.system_prompt.append(f"## Your scripts' sandbox\n{note}")


@hookimpl
async def tools_for_kin(kin: KinRef, platform: Any) -> list[Tool]:
    runtime = runtime_of(platform)
    tools = await runtime.store.list(await runtime.owner(kin.id))
    return [ScriptTool(tool) for tool in tools]

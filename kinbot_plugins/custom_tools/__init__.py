"""Custom tools: scripts a Kin writes in its workspace and registers as its own tools.

The Kin manages them with ``register_tool``, ``list_custom_tools``, ``update_custom_tool``,
``delete_custom_tool`` and runs them with ``run_custom_tool``; each registered script is
also offered to that Kin alone as a tool of its own name (``tools_for_kin``). Scripts run
confined to the workspace (``sandbox``): bubblewrap where it works, otherwise a plain
subprocess, which start-up logs as a warning and ``GET /api/kins/<id>/custom-tools`` reports
as ``"sandbox": "none"``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from hookspecs.types import KinRef
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
    """Find out at start-up whether scripts can be sandboxed here (a warning if not)."""
    platform.spawn(_probe(platform), name="custom_tools:probe")


async def _probe(platform: Any) -> None:
    try:
        await runtime_of(platform).sandbox_mode()
    except RuntimeError as exc:  # custom_tool_sandbox = bubblewrap, and it does not work
        logger.error("custom tools cannot run: %s", exc)


@hookimpl
async def tools_for_kin(kin: KinRef, platform: Any) -> list[Tool]:
    runtime = runtime_of(platform)
    tools = await runtime.store.list(await runtime.owner(kin.id))
    return [ScriptTool(tool) for tool in tools]
